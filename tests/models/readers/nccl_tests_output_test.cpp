// nccl-tests output parser: the four real files of the 4 x H200 calibration machine
// (scenarios/validation/h200x4/measured/nccl-tests/, nccl-tests 2.19.6, NCCL 2.28.9) and synthetic
// old-format and broken inputs.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>
#include <utility>

#include "models/parse_error.hpp"
#include "models/readers/nccl_tests_output.hpp"

using models::ParseError;
using models::readers::parse_nccl_tests;
using models::readers::parse_nccl_tests_files;

namespace {
const std::string kDir = std::string(COMMSIM_SOURCE_DIR) + "/scenarios/validation/h200x4/measured/nccl-tests/";
}

TEST_CASE("nccl-tests parser: default all-reduce on 4 GPUs (ar_g4.txt)", "[models][calibrate]") {
  auto runs = parse_nccl_tests_files({kDir + "ar_g4.txt"});
  REQUIRE(runs.size() == 1);
  const auto& r = runs[0];
  CHECK(r.op == "all_reduce");
  CHECK(r.ranks == 4);
  CHECK(r.nthreads == 1);
  CHECK(r.ngpus == 4);
  CHECK(r.processes == 1);
  CHECK(r.hosts == std::vector<std::string>{"vm"});
  CHECK(r.gpus == std::vector<std::string>{"NVIDIA H200"});  // "... device 0 [0000:00:06] NVIDIA H200"
  CHECK(r.max_bytes == 1073741824);
  CHECK(r.iters == 20);
  // -b 8 -e 1G -f 2: sizes 2^3 .. 2^30, 28 rows
  REQUIRE(r.rows.size() == 28);
  CHECK(r.rows.front().size_bytes == 8);
  CHECK(r.rows.front().count == 2);
  CHECK(r.rows.front().type == "float");
  CHECK(r.rows.front().redop == "sum");
  CHECK(r.rows.front().root == -1);
  CHECK(r.rows.front().oop.time_us == Approx(33.38));
  const auto& last = r.rows.back();
  CHECK(last.size_bytes == 1073741824);
  CHECK(last.oop.time_us == Approx(4548.95));
  CHECK(last.oop.algbw_gbs == Approx(236.04));
  CHECK(last.oop.busbw_gbs == Approx(354.06));
  CHECK(last.oop.wrong == 0);
  REQUIRE(last.ip.has_value());
  CHECK(last.ip->busbw_gbs == Approx(354.82));
  // busbw = algbw * 2(n-1)/n for all-reduce (nccl-tests doc/PERFORMANCE.md); n = 4 -> x1.5
  CHECK(last.oop.busbw_gbs == Approx(last.oop.algbw_gbs * 1.5).epsilon(0.001));
  REQUIRE(r.avg_busbw_gbs.has_value());
  CHECK(*r.avg_busbw_gbs == Approx(98.7519));
}

TEST_CASE("nccl-tests parser: SHM and Socket runs, INFO lines between rows", "[models][calibrate]") {
  auto runs = parse_nccl_tests_files({kDir + "ar_g4_shm.txt", kDir + "ar_g4_sock.txt"});
  REQUIRE(runs.size() == 2);
  // SHM: -e 256M -> 2^3 .. 2^28, 26 rows
  CHECK(runs[0].source == kDir + "ar_g4_shm.txt");
  REQUIRE(runs[0].rows.size() == 26);
  CHECK(runs[0].rows.back().size_bytes == 268435456);
  CHECK(runs[0].rows.back().oop.time_us == Approx(15596.7));
  CHECK(runs[0].rows.back().ip->busbw_gbs == Approx(26.29));
  // Socket: -e 64M -> 2^3 .. 2^26, 24 rows, with 100+ NCCL INFO lines inside the output
  const auto& s = runs[1];
  CHECK(s.op == "all_reduce");
  CHECK(s.ranks == 4);
  REQUIRE(s.rows.size() == 24);
  CHECK(s.rows[0].oop.time_us == Approx(47.44));
  CHECK(s.rows.back().size_bytes == 67108864);
  CHECK(s.rows.back().oop.time_us == Approx(28626.0));
  CHECK(s.rows.back().ip->time_us == Approx(32656.5));
  CHECK(*s.avg_busbw_gbs == Approx(0.968486));
}

TEST_CASE("nccl-tests parser: rows split by INFO lines glued mid-row (ar_g4_info.txt)", "[models][calibrate]") {
  auto runs = parse_nccl_tests_files({kDir + "ar_g4_info.txt"});
  REQUIRE(runs.size() == 1);
  const auto& r = runs[0];
  // -f 4 from 8 B: 2^3, 2^5, ..., 2^29 (2^31 > maxBytes): 14 rows
  REQUIRE(r.rows.size() == 14);
  for (size_t i = 0; i < r.rows.size(); ++i) CHECK(r.rows[i].size_bytes == (int64_t{8} << (2 * i)));
  const auto& last = r.rows.back();
  CHECK(last.size_bytes == 536870912);
  CHECK(last.oop.time_us == Approx(2306.20));
  CHECK(last.oop.busbw_gbs == Approx(349.19));
  CHECK(last.ip->time_us == Approx(2318.19));
  CHECK(last.ip->wrong == 0);
  CHECK(*r.avg_busbw_gbs == Approx(92.6228));
}

TEST_CASE("nccl-tests parser: old format without root, 'error' column, two runs in one file", "[models][calibrate]") {
  const std::string text =
      "# nThread 1 nGpus 8 minBytes 8 maxBytes 16 step: 2(factor) warmup iters: 5 iters: 20 validation: 1\n"
      "#\n"
      "# Using devices\n"
      "#   Rank  0 Pid  12345 on node1 device  0 [0x1a] Tesla V100-SXM2-32GB\n"
      "#   Rank  1 Pid  12345 on node1 device  1 [0x1b] Tesla V100-SXM2-32GB\n"
      "#\n"
      "#                                                     out-of-place                       in-place\n"
      "#       size         count    type   redop     time   algbw   busbw  error     time   algbw   busbw  error\n"
      "#        (B)    (elements)                     (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)\n"
      "           8             2   float     sum    35.41    0.00    0.00  1e-07    35.18    0.00    0.00  0e+00\n"
      "          16             4   float     sum    36.00    0.00    0.00  0e+00    35.90    0.00    0.00  0e+00\n"
      "# Out of bounds values : 0 OK\n"
      "# Avg bus bandwidth    : 0.001\n"
      "#\n"
      "# nThread 1 nGpus 2 minBytes 64 maxBytes 64 step: 2(factor) warmup iters: 5 iters: 20 validation: 1\n"
      "#       size         count    type   redop     time   algbw   busbw  error     time   algbw   busbw  error\n"
      "          64            16   float     sum    12.50    0.01    0.01  0e+00    12.40    0.01    0.01  0e+00\n";
  auto runs = parse_nccl_tests(text, "old.txt");
  REQUIRE(runs.size() == 2);
  CHECK(runs[0].op.empty());
  CHECK(runs[0].ngpus == 8);
  CHECK(runs[0].ranks == 2);  // two Rank lines
  REQUIRE(runs[0].rows.size() == 2);
  CHECK_FALSE(runs[0].rows[0].root.has_value());
  CHECK(runs[0].rows[0].oop.time_us == Approx(35.41));
  CHECK(*runs[0].rows[0].oop.max_error == Approx(1e-7));
  CHECK(runs[0].rows[1].ip->time_us == Approx(35.90));
  CHECK(runs[1].ranks == 2);  // no Rank lines: nThread x nGpus
  REQUIRE(runs[1].rows.size() == 1);
  CHECK(runs[1].rows[0].size_bytes == 64);
}

TEST_CASE("nccl-tests parser: a bare table (rows copied from a page, no header) has an unknown rank count",
          "[models][calibrate]") {
  // OCI's published GB300 tables are rows alone: 64 ranks ran them, and nothing in the file says so.
  auto runs = parse_nccl_tests_files(
      {std::string(COMMSIM_SOURCE_DIR) + "/scenarios/validation/gb300_oci/measured/all_reduce_1rack.txt"});
  REQUIRE(runs.size() == 1);
  CHECK_FALSE(runs[0].header);
  CHECK(runs[0].ranks == 0);  // unknown, not nThread x nGpus's default 1
  CHECK(runs[0].rows.size() == 16);
}

TEST_CASE("nccl-tests parser: a header of one GPU per process without Rank lines has an unknown rank count",
          "[models][calibrate]") {
  // Google's A3 High all_reduce (mpirun -np 16, -g 1) was published with its header and without
  // its Rank lines: "nThread 1 nGpus 1" is one process's count, not the run's.
  auto runs = parse_nccl_tests_files(
      {std::string(COMMSIM_SOURCE_DIR) + "/scenarios/validation/gcp_2node/measured/a3_high_allreduce_aiinfra.txt"});
  REQUIRE(runs.size() == 1);
  CHECK(runs[0].header);
  CHECK(runs[0].nthreads * runs[0].ngpus == 1);
  CHECK(runs[0].ranks == 0);
  CHECK(runs[0].rows.size() == 14);
}

TEST_CASE("nccl-tests parser: a log cut to its last Rank line still says how many ranks ran", "[models][calibrate]") {
  // CoreWeave's twenty racks keep one "#  Rank 1439 ..." line of 1,440: the count is its index + 1.
  auto runs = parse_nccl_tests_files(
      {std::string(COMMSIM_SOURCE_DIR) + "/scenarios/validation/gb200_nvl72/measured/all_reduce_20racks.txt"});
  REQUIRE(runs.size() == 1);
  CHECK(runs[0].ranks == 1440);
  // Every line present: their count, as before.
  auto g4 = parse_nccl_tests_files(
      {std::string(COMMSIM_SOURCE_DIR) + "/scenarios/validation/h200x4/measured/nccl-tests/ar_g4.txt"});
  REQUIRE(g4.size() == 1);
  CHECK(g4[0].ranks == 4);
}

TEST_CASE("nccl-tests parser: GPU product names match catalog GPUs by family and memory size", "[models][calibrate]") {
  using models::readers::gpu_product_matches;
  CHECK(gpu_product_matches("NVIDIA H200", "H200"));
  CHECK(gpu_product_matches("NVIDIA H100 80GB HBM3", "H100"));
  CHECK(gpu_product_matches("NVIDIA A100-SXM4-40GB", "A100-40GB"));
  CHECK_FALSE(gpu_product_matches("NVIDIA A100-SXM4-80GB", "A100-40GB"));  // the memory size differs
  CHECK_FALSE(gpu_product_matches("NVIDIA H100 80GB HBM3", "H200"));
  CHECK_FALSE(gpu_product_matches("NVIDIA L40S", "L4"));  // a family is a whole word
  CHECK(gpu_product_matches("Tesla V100-SXM2-32GB", "v100"));
}

TEST_CASE("nccl-tests parser: broken inputs give file:line:col errors", "[models][calibrate]") {
  const std::string head =
      "# Collective test starting: all_gather_perf\n"
      "#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  "
      "#wrong\n";
  SECTION("truncated in the middle of a row") {
    try {
      parse_nccl_tests(head + "        1024           256     float    none      -1    12.0", "t.txt");
      FAIL("no error");
    } catch (const ParseError& e) {
      CHECK(e.file() == "t.txt");
      CHECK(e.line() == 3);
      CHECK(std::string(e.what()).find("ends in the middle of a result row") != std::string::npos);
    }
  }
  SECTION("a word where a number belongs") {
    try {
      parse_nccl_tests(
          head + "        1024           256     float    none      -1    fast   0.1  0.1  0  12.0 0.1 0.1 0\n",
          "t.txt");
      FAIL("no error");
    } catch (const ParseError& e) {
      CHECK(e.line() == 3);
      CHECK(e.col() == 57);  // 1-based column of "fast"
      CHECK(std::string(e.what()).find("'fast' is not a time in us") != std::string::npos);
    }
  }
  SECTION("a time of 0 is no measurement: refused at it, in either column group") {
    const std::pair<std::string, int> rows[] = {
        {"  1024  256  float  none  -1  0.00  0.1  0.1  0  12.0  0.1  0.1  0\n", 31},
        {"  1024  256  float  none  -1  12.0  0.1  0.1  0     0  0.1  0.1  0\n", 53}};
    for (const auto& [row, col] : rows) {
      try {
        parse_nccl_tests(head + row, "t.txt");
        FAIL("no error");
      } catch (const ParseError& e) {
        CHECK(e.line() == 3);
        CHECK(e.col() == col);
        CHECK_THAT(e.message(), Catch::EndsWith("' is not a measurement (expected a time in us above 0, as nccl-tests "
                                                "measures it)"));
      }
    }
  }
  SECTION("row cut short by the summary") {
    CHECK_THROWS_AS(parse_nccl_tests(head + "  1024  256  float none -1 12.0\n# Avg bus bandwidth : 1\n", "t.txt"),
                    ParseError);
  }
  SECTION("a value missing from a row is reported at that row, not at the next") {
    try {
      parse_nccl_tests(head +
                           "        1024   256  float  none  -1  12.0  0.1  0.1  0  12.0  0.1  0.1\n"
                           "        2048   512  float  none  -1  13.0  0.2  0.2  0  13.0  0.2  0.2  0\n",
                       "t.txt");
      FAIL("no error");
    } catch (const ParseError& e) {
      CHECK(e.line() == 3);
      CHECK(std::string(e.what()).find("cut short: 12 values where the table has 13 columns") != std::string::npos);
    }
  }
  SECTION("a value too many is reported at itself, also on a line an NCCL message ends") {
    try {
      parse_nccl_tests(
          head + "  1024  256  float  none  -1  12.0  0.1  0.1  0  12.0  0.1  0.1  0  7h:1:1 [0] NCCL INFO x\n" +
              "  2048  512  float  none  -1  13.0  0.2  0.2  0  13.0  0.2  0.2  0\n",
          "t.txt");
      FAIL("no error");
    } catch (const ParseError& e) {
      CHECK(e.line() == 3);
      CHECK(std::string(e.what()).find("'7' is a value too many") != std::string::npos);
    }
  }
  SECTION("a file cut off mid-row and ending in blank lines says so") {
    try {
      parse_nccl_tests(head + "        1024           256     float    none      -1    12.0\n\n   \n", "t.txt");
      FAIL("no error");
    } catch (const ParseError& e) {
      CHECK(std::string(e.what()).find("ends in the middle of a result row") != std::string::npos);
    }
  }
  SECTION("a value too many is reported at itself") {
    try {
      parse_nccl_tests(head + "  1024  256  float  none  -1  12.0  0.1  0.1  0  12.0  0.1  0.1  0  7\n", "t.txt");
      FAIL("no error");
    } catch (const ParseError& e) {
      CHECK(e.line() == 3);
      CHECK(e.col() == 69);  // the 1-based column of the stray "7"
      CHECK(std::string(e.what()).find("'7' is a value too many: this row has 14 values") != std::string::npos);
    }
  }
  SECTION("binary data") {
    std::string bin = head + std::string(
                                 "\x7f"
                                 "ELF\x02\x01",
                                 6);
    try {
      parse_nccl_tests(bin, "b.bin");
      FAIL("no error");
    } catch (const ParseError& e) {
      CHECK(e.line() == 3);
      CHECK(e.col() == 1);
    }
  }
  SECTION("missing file") { CHECK_THROWS_AS(parse_nccl_tests_files({"/nonexistent/x.txt"}), ParseError); }
}

// A crashed run (nccl-tests' common.h prints "HOST: Test NCCL failure FILE:LINE 'error / last
// error'" and " .. HOST pid N: Test failure FILE:LINE") used to read as "'vm:' is not a size".
TEST_CASE("nccl-tests parser: a crashed or interrupted run says so, at the line", "[models][calibrate]") {
  const std::string head =
      "# Collective test starting: all_reduce_perf\n"
      "#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  "
      "#wrong\n"
      "           8             2     float     sum      -1    33.38    0.00    0.00       0    33.97    0.00    0.00  "
      "     0\n";
  auto error_of = [](const std::string& text) {
    try {
      parse_nccl_tests(text, "crash.txt");
    } catch (const ParseError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  SECTION("nccl-tests' own failure line inside the table") {
    const std::string e =
        error_of(head +
                 "vm: Test NCCL failure common.cu:1005 'unhandled cuda error / '\n .. vm pid 2759: Test failure "
                 "common.cu:891\n");
    CHECK(e.rfind("crash.txt:4:1: ", 0) == 0);
    CHECK(e.find("nccl-tests failed here: 'vm: Test NCCL failure common.cu:1005") != std::string::npos);
    CHECK(e.find("(expected the output of a run that completed") != std::string::npos);
  }
  SECTION("a failure before the table (during init)") {
    const std::string e = error_of(
        "# nThread 1 nGpus 4 minBytes 8 maxBytes 1073741824\n"
        "ip-10-0-0-1: Test CUDA failure common.cu:932 'out of memory'\n");
    CHECK(e.rfind("crash.txt:2:1: nccl-tests failed here: 'ip-10-0-0-1: Test CUDA failure", 0) == 0);
  }
  SECTION("a signal report between rows") {
    const std::string e = error_of(head + "[vm:02759] *** Process received signal ***\n");
    CHECK(e.rfind("crash.txt:4:1: the result table stops here: '[vm:02759] *** Process received signal ***' is not a "
                  "result row",
                  0) == 0);
    CHECK(e.find("did the run crash or get interrupted?)") != std::string::npos);
  }
  SECTION("a UTF-8 byte-order mark before the first line is not data") {
    auto runs = parse_nccl_tests("\xEF\xBB\xBF" + head, "bom.txt");
    REQUIRE(runs.size() == 1);
    CHECK(runs[0].op == "all_reduce");
    CHECK(runs[0].rows.size() == 1);
  }
}

TEST_CASE("nccl-tests parser: launchers' rank labels in front of every line are read through", "[models][calibrate]") {
  // Open MPI's --tag-output ("[1,0]<stdout>:") and Slurm's srun --label ("0: "): the same rows,
  // header and ranks as the unlabelled file.
  std::ifstream in(kDir + "ar_g4_info.txt");
  std::stringstream text;
  text << in.rdbuf();
  const auto plain = parse_nccl_tests(text.str(), "plain.txt");
  for (const std::string label : {"[1,0]<stdout>:", "0: ", "12: "}) {
    INFO(label);
    std::string labelled;
    std::istringstream lines(text.str());
    for (std::string l; std::getline(lines, l);) labelled += label + l + "\n";
    const auto runs = parse_nccl_tests(labelled, "labelled.txt");
    REQUIRE(runs.size() == plain.size());
    CHECK(runs[0].ranks == plain[0].ranks);
    CHECK(runs[0].op == plain[0].op);
    REQUIRE(runs[0].rows.size() == plain[0].rows.size());
    for (size_t i = 0; i < runs[0].rows.size(); ++i) {
      CHECK(runs[0].rows[i].size_bytes == plain[0].rows[i].size_bytes);
      CHECK(runs[0].rows[i].oop.time_us == plain[0].rows[i].oop.time_us);
    }
  }
}
