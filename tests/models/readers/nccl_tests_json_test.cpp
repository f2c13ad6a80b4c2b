// nccl-tests -J JSON: the real files of one H200 (scenarios/validation/h200x1/measured_run/,
// nccl-tests 2.19.6) give the same rows as the text tables printed by the same runs.
#include <catch2/catch.hpp>

#include "models/parse_error.hpp"
#include "models/readers/nccl_tests_json.hpp"
#include "models/readers/nccl_tests_output.hpp"

using models::ParseError;
using models::readers::parse_nccl_tests;
using models::readers::parse_nccl_tests_files;

namespace {
const std::string kNcclTestsJsonRun = std::string(COMMSIM_SOURCE_DIR) + "/scenarios/validation/h200x1/measured_run/";
}

TEST_CASE("nccl-tests JSON: the same rows as the text table of the same run", "[models][readers][nccl_tests_json]") {
  for (const std::string op : {"all_reduce", "all_gather"}) {
    const auto json = parse_nccl_tests_files({kNcclTestsJsonRun + "nccl_tests_" + op + ".json"});
    const auto text = parse_nccl_tests_files({kNcclTestsJsonRun + "nccl_tests_" + op + ".txt"});
    REQUIRE(json.size() == 1);
    REQUIRE(text.size() == 1);
    const auto& j = json[0];
    const auto& t = text[0];
    CHECK(j.op == op);
    CHECK(j.op == t.op);
    CHECK(j.ranks == t.ranks);
    CHECK(j.ranks == 1);
    CHECK(j.nthreads == t.nthreads);
    CHECK(j.ngpus == t.ngpus);
    CHECK(j.processes == t.processes);
    CHECK(j.hosts == t.hosts);
    CHECK(j.gpus == t.gpus);
    CHECK(j.min_bytes == t.min_bytes);
    CHECK(j.max_bytes == t.max_bytes);
    CHECK(j.iters == t.iters);
    // -b 8 -e 1G -f 4: 8 x 4^i up to 512 MiB, 14 rows.
    REQUIRE(j.rows.size() == 14);
    REQUIRE(j.rows.size() == t.rows.size());
    for (std::size_t i = 0; i < j.rows.size(); ++i) {
      const auto& a = j.rows[i];
      const auto& b = t.rows[i];
      CHECK(a.size_bytes == b.size_bytes);
      CHECK(a.count == b.count);
      CHECK(a.type == b.type);
      CHECK(a.redop == b.redop);
      CHECK(a.root == b.root);
      // The table prints 4 significant digits; JSON keeps more.
      CHECK(a.oop.time_us == Approx(b.oop.time_us).epsilon(5e-3).margin(0.01));
      CHECK(a.oop.algbw_gbs == Approx(b.oop.algbw_gbs).epsilon(5e-3).margin(0.01));
      CHECK(a.oop.busbw_gbs == Approx(b.oop.busbw_gbs).margin(0.01));
      CHECK(a.oop.wrong == b.oop.wrong);
      REQUIRE(a.ip.has_value());
      CHECK(a.ip->time_us == Approx(b.ip->time_us).epsilon(5e-3).margin(0.01));
    }
    CHECK(j.rows.back().size_bytes == 536870912);
  }
}

TEST_CASE("nccl-tests JSON: malformed files fail at FILE:LINE:COL with the JSON path", "[models][readers][nccl_tests_json]") {
  const std::string good_head = R"({"version":3,"args":["./build/all_reduce_perf"],"config":{"nthreads":1,"ngpus":1,"minimum_bytes":8,"maximum_bytes":8,"iterations":20},)";
  auto fails = [](const std::string& text, int line, int col, const std::string& part) {
    try {
      parse_nccl_tests(text, "r.json");
      FAIL("no error for " << text);
    } catch (const ParseError& e) {
      CHECK(e.line() == line);
      CHECK(e.col() == col);
      CHECK_THAT(e.message(), Catch::Contains(part));
    }
  };
  const std::string row_head = good_head + "\n\"results\":[{\"size\":8,\"count\":2,\"type\":\"float\",\"redop\":\"sum\",\"root\":\"-1\",";
  fails(row_head + R"("out_of_place":{"time":"x","alg_bw":1,"bus_bw":1,"nwrong":0}}]})", 2, 96,
        "results[0].out_of_place.time: expected a number");
  fails(row_head + R"("in_place":{}}]})", 2, 12, "results[0]: no \"out_of_place\" member");
  fails(good_head + "\n\"results\":[{\"size\":-8}]}", 2, 20, "results[0].size: expected a whole number");
  fails(R"({"args":[],"config":{}})", 1, 9, "args: expected the command line");
  fails("{\"args\": [\"a\"],\n \"config\": 3}", 2, 12, "config: expected an object");
  fails("{\"args\":\n", 2, 1, "not valid JSON");
  // Valid JSON past double's range (found by fuzzing): refused at the number, not thrown raw.
  fails(good_head + "\n\"results\":[{\"size\":0.63e0450}]}", 2, 20, "number 0.63e0450 is too large");
  // A time of 0 is no measurement (each bandwidth or error from it would be infinite).
  fails(row_head + R"("out_of_place":{"time":0.0,"alg_bw":1,"bus_bw":1,"nwrong":0}}]})", 2, 96,
        "results[0].out_of_place.time: a time of 0 is not a measurement (expected a time in us above 0");
  // A good minimal file parses to one row.
  const auto runs = parse_nccl_tests(row_head + R"("out_of_place":{"time":6.5,"alg_bw":0.0,"bus_bw":0.0,"nwrong":0.0}}]})", "r.json");
  REQUIRE(runs.size() == 1);
  REQUIRE(runs[0].rows.size() == 1);
  CHECK(runs[0].rows[0].oop.time_us == 6.5);
  CHECK(runs[0].rows[0].root == -1);
  CHECK_FALSE(runs[0].rows[0].ip.has_value());
}
