// nccl-tests -C 1 (report_cputime) and -R 1 (report_timestamps): the time columns named cputime
// (JSON "cpu_time") hold the host's launch time, so a row's time is read as size / algbw
// (models/readers/nccl_tests_output.hpp, NcclTestsRun::cputime); a row whose printed algbw gives
// that time to worse than 0.5 % is left out; the timestamp column's value holds a blank.
#include <catch2/catch.hpp>

#include <string>

#include "models/readers/nccl_tests_output.hpp"

using models::readers::parse_nccl_tests;

namespace {
const std::string kCputimeHead =
    "# nccl-tests version 2.19.6 nccl-headers=22809 nccl-library=22809\n"
    "# Collective test starting: all_reduce_perf\n"
    "# nThread 1 nGpus 4 minBytes 8 maxBytes 1048576 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 "
    "validation: 1 graph: 0\n"
    "#\n"
    "#                                                              out-of-place                       in-place\n";
}  // namespace

TEST_CASE("nccl-tests -C 1: cputime columns, each row's time from its algbw", "[models][readers]") {
  const std::string text = kCputimeHead +
                           "#       size         count      type   redop    root  cputime   algbw   busbw  #wrong  "
                           "cputime   algbw   busbw  #wrong\n"
                           "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            "
                           " (us)  (GB/s)  (GB/s)\n"
                           "           8             2     float     sum      -1     5.10    0.00    0.00       0     "
                           "5.00    0.00    0.00       0\n"
                           "       32768          8192     float     sum      -1     5.30    0.99    1.49       0     "
                           "5.20    1.00    1.50       0\n"
                           "       65536         16384     float     sum      -1     5.40    1.00    1.50       0     "
                           "5.30    1.01    1.52       0\n"
                           "     1048576        262144     float     sum      -1     6.20   34.46   51.69       0     "
                           "6.10   35.00   52.50       0\n"
                           "# Out of bounds values : 0 OK\n";
  const auto runs = parse_nccl_tests(text, "c.txt");
  REQUIRE(runs.size() == 1);
  const auto& r = runs[0];
  CHECK(r.cputime);
  CHECK(r.columns[5] == "cputime");
  CHECK(r.columns[9] == "cputime");
  // 8 B: algbw 0.00 gives no time; 32768 B: 0.99 rounds by 0.005 / 0.99 = 0.51 % > 0.5 %.
  CHECK(r.coarse_lines == std::vector<int>{8, 9});
  REQUIRE(r.rows.size() == 2);
  // 1.00 GB/s rounds by exactly 0.5 %: kept. t = size / (algbw x 1e3) us.
  CHECK(r.rows[0].size_bytes == 65536);
  CHECK(r.rows[0].oop.time_us == Approx(65.536).epsilon(1e-12));
  CHECK(r.rows[0].oop.cpu_time_us == 5.40);
  CHECK(r.rows[1].oop.time_us == Approx(1048576 / 34.46e3).epsilon(1e-12));  // 30.429 us
  CHECK(r.rows[1].oop.cpu_time_us == 6.20);
  REQUIRE(r.rows[1].ip);
  CHECK(r.rows[1].ip->time_us == Approx(1048576 / 35.00e3).epsilon(1e-12));  // 29.959 us
  CHECK(r.rows[1].ip->cpu_time_us == 6.10);
  CHECK(r.rows[1].line == 11);
}

TEST_CASE("nccl-tests -R 1: the timestamp column's value holds a blank", "[models][readers]") {
  const std::string text = kCputimeHead +
                           "#       size         count      type   redop    root     time   algbw   busbw  #wrong     "
                           "time   algbw   busbw  #wrong           timestamp\n"
                           "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            "
                           " (us)  (GB/s)  (GB/s)          %Y-%m-%d %H:%M:%S\n"
                           "     1048576        262144     float     sum      -1    30.50   34.38   51.57       0    "
                           "30.40   34.49   51.74       0  2025-01-02 03:04:05\n"
                           "     2097152        524288     float     sum      -1    40.10   52.30   78.45       0    "
                           "40.00   52.43   78.64       0  2025-01-02 03:04:06\n";
  const auto runs = parse_nccl_tests(text, "t.txt");
  REQUIRE(runs.size() == 1);
  const auto& r = runs[0];
  CHECK_FALSE(r.cputime);
  CHECK(r.columns.size() == 14);
  CHECK(r.columns.back() == "timestamp");
  REQUIRE(r.rows.size() == 2);
  CHECK(r.rows[0].oop.time_us == 30.50);  // a time column is the collective's time, as printed
  CHECK(r.rows[0].oop.cpu_time_us == 0);
  REQUIRE(r.rows[1].ip);
  CHECK(r.rows[1].ip->time_us == 40.00);
  CHECK(r.rows[1].ip->busbw_gbs == 78.64);
}

TEST_CASE("nccl-tests -C 1 -J: cpu_time in the JSON, the time from alg_bw's every digit", "[models][readers]") {
  const std::string json = R"({"args": ["./all_reduce_perf", "-C", "1"],
    "config": {"nthreads": 1, "ngpus": 4, "minimum_bytes": 8, "maximum_bytes": 8, "iterations": 20},
    "results": [{"size": 8, "count": 2, "type": "float", "redop": "sum", "root": -1,
      "out_of_place": {"cpu_time": 5.1, "alg_bw": 0.000390625, "bus_bw": 0.0005859375, "nwrong": 0},
      "in_place": {"cpu_time": 5.0, "alg_bw": 0.0004, "bus_bw": 0.0006, "nwrong": 0}}]})";
  const auto runs = parse_nccl_tests(json, "c.json");
  REQUIRE(runs.size() == 1);
  CHECK(runs[0].cputime);
  CHECK(runs[0].columns[5] == "cputime");
  REQUIRE(runs[0].rows.size() == 1);
  CHECK(runs[0].rows[0].oop.time_us == Approx(20.48).epsilon(1e-12));  // 8 B / 0.000390625 GB/s
  CHECK(runs[0].rows[0].oop.cpu_time_us == 5.1);
  CHECK(runs[0].rows[0].ip->time_us == Approx(20.0).epsilon(1e-12));
}
