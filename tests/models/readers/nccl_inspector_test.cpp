// NCCL Inspector JSON lines: the hand-written file in the documented v4.0 format (sizes per rank
// for AllGather and ReduceScatter, as the plugin counts them)
// (scenarios/validation/h200x1/measured_run/inspector_handwritten.jsonl: Inspector wrote nothing on
// the one-GPU machine, README there) and broken lines.
#include <catch2/catch.hpp>

#include "models/parse_error.hpp"
#include "models/readers/nccl_inspector.hpp"

using models::ParseError;
using models::readers::inspector_op_name;
using models::readers::looks_like_nccl_inspector;
using models::readers::parse_nccl_inspector;
using models::readers::read_nccl_inspector_files;

TEST_CASE("NCCL Inspector: the documented format's lines", "[models][readers][inspector]") {
  const auto rows = read_nccl_inspector_files(
      {std::string(COMMSIM_SOURCE_DIR) + "/scenarios/validation/h200x1/measured_run/inspector_handwritten.jsonl"});
  REQUIRE(rows.size() == 6);
  CHECK(rows[0].op == "AllReduce");
  CHECK(inspector_op_name(rows[0].op) == "all_reduce");
  CHECK(rows[0].n_ranks == 8);
  CHECK(rows[0].bytes == 268435456);
  CHECK(rows[0].exec_s == Approx(1530e-6));
  // busbw = algbw x 2 (n - 1) / n for an all-reduce (nccl-tests' and Inspector's convention).
  CHECK(rows[0].busbw_gbs == Approx(rows[0].algbw_gbs * 2 * 7 / 8).epsilon(1e-6));
  CHECK(rows[0].algbw_gbs == Approx(268435456 / 1530e-6 / 1e9).epsilon(1e-6));
  CHECK(rows[0].line == 1);
  CHECK(rows[0].total_bytes == 268435456);  // an all-reduce's size is the whole buffer
  // AllGather and ReduceScatter: coll_msg_size_bytes is per rank (sendcount, recvcount x type
  // size); nccl-tests' size, and Inspector's own algbw (inspectorComputeCollBw), use it x n_ranks.
  CHECK(rows[2].op == "AllGather");
  CHECK(rows[2].bytes == 4194304);
  CHECK(rows[2].total_bytes == 33554432);
  CHECK(rows[2].algbw_gbs == Approx(33554432 / 121e-6 / 1e9).epsilon(1e-6));
  CHECK(rows[2].busbw_gbs == Approx(rows[2].algbw_gbs * 7 / 8).epsilon(1e-6));
  CHECK(rows[3].op == "ReduceScatter");
  CHECK(rows[3].bytes == 33554432);
  CHECK(rows[3].total_bytes == 268435456);
  CHECK(rows[3].algbw_gbs == Approx(268435456 / 880e-6 / 1e9).epsilon(1e-6));
  CHECK(rows[5].total_bytes == rows[5].bytes);  // Send: per peer, as nccl-tests' sendrecv size
  CHECK(rows[5].p2p);
  CHECK(rows[5].op == "Send");
  CHECK(rows[5].peer == 1);
  CHECK(rows[5].line == 6);
}

TEST_CASE("NCCL Inspector: malformed lines fail at FILE:LINE:COL", "[models][readers][inspector]") {
  const std::string head = R"({"header":{"id":"0x1","rank":0,"n_ranks":2,"nnodes":1},"coll_perf":)";
  const std::string good = head + R"({"coll":"AllGather","coll_sn":1,"coll_msg_size_bytes":8,"coll_exec_time_us":3,"coll_algobw_gbs":1,"coll_busbw_gbs":1}})";
  CHECK(looks_like_nccl_inspector(good));
  CHECK_FALSE(looks_like_nccl_inspector("{\"traceEvents\": []}"));
  auto fails = [](const std::string& text, int line, int col, const std::string& part) {
    try {
      parse_nccl_inspector(text, "i.log");
      FAIL("no error for " << text);
    } catch (const ParseError& e) {
      CHECK(e.line() == line);
      CHECK(e.col() == col);
      CHECK_THAT(e.message(), Catch::Contains(part));
    }
  };
  fails(good + "\n\n" + head + R"({"coll":"AllGather","coll_sn":2,"coll_msg_size_bytes":8,"coll_exec_time_us":-3}})", 3, 144,
        "coll_perf.coll_exec_time_us: expected a whole number");
  fails(good + "\n{\"header\": 1}", 2, 12, "header: expected an object");
  fails(good + "\n{\"header\":{\"id\":\"0x1\",\"rank\":0,\"n_ranks\":2,\"nnodes\":1}}", 2, 1, "no \"coll_perf\" or \"p2p_perf\"");
  fails(good + "\n{\"header\":", 2, 11, "not valid JSON");
  fails("\n\n", 1, 1, "no NCCL Inspector lines");
  // A per-rank size whose total (x n_ranks) no buffer could hold.
  fails(R"({"header":{"id":"0x1","rank":0,"n_ranks":1024,"nnodes":1},"coll_perf":{"coll":"AllGather","coll_sn":1,)"
        R"("coll_msg_size_bytes":1152921504606846976,"coll_exec_time_us":3,"coll_algobw_gbs":1,"coll_busbw_gbs":1}})",
        1, 125, "coll_perf.coll_msg_size_bytes: this size x n_ranks is beyond any NCCL buffer");
  CHECK(parse_nccl_inspector(good + "\n", "i.log").size() == 1);
}
