// `commsim sweep` through the real binary: rows identical across --jobs and merged shards, a bad
// --vary value refused before anything runs.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "tests/scenarios/command_runner.hpp"

using scenarios_test::run_commsim;

namespace {
const std::string kAllReduce = std::string(COMMSIM_SOURCE_DIR) + "/scenarios/examples/allreduce_h200x4.toml";
}

TEST_CASE("scenarios: sweep rows do not depend on --jobs, and shards concatenate to the whole", "[scenarios]") {
  const std::vector<std::string> base = {"sweep",  kAllReduce,
                                         "--vary", "collective.bytes=1 MiB,16 MiB,64 MiB",
                                         "--vary", "collective.op=all_reduce,all_gather"};
  const auto runs = scenarios_test::sweep_three_ways(base, 3, 4);
  REQUIRE(runs.serial.exit_code == 0);
  CHECK(runs.threaded == runs.serial.out);
  // Header + 3 x 2 rows.
  CHECK(std::count(runs.serial.out.begin(), runs.serial.out.end(), '\n') == 7);
  CHECK(runs.serial.out.rfind("index,collective.bytes,collective.op,step_time_s,", 0) == 0);
  CHECK(runs.merged == runs.serial.out);
}

TEST_CASE("scenarios: a typo in --vary stops the sweep before it runs, pointing at the value", "[scenarios]") {
  const auto r = run_commsim({"sweep", kAllReduce, "--vary", "collective.bytes=1 MiB,-3 MB"});
  CHECK(r.exit_code == 2);
  CHECK(r.err.rfind("--vary:1:24: collective.bytes: size \"-3 MB\" must be positive", 0) == 0);
}
