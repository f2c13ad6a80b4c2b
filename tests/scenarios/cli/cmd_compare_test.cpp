// `commsim compare` through the real binary: ratios against the first scenario, JSON and text.
#include <catch2/catch.hpp>

#include <string>

#include <nlohmann/json.hpp>

#include "tests/scenarios/command_runner.hpp"

using scenarios_test::run_commsim;

namespace {
const std::string kAllReduce = std::string(COMMSIM_SOURCE_DIR) + "/scenarios/examples/allreduce_h200x4.toml";
}

TEST_CASE("scenarios: compare shows ratios against the first scenario", "[scenarios]") {
  const auto r = run_commsim({"compare", kAllReduce, kAllReduce, "--json"});
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  REQUIRE(j["scenarios"].size() == 2);
  // The same scenario twice: ratio exactly 1.
  CHECK(j["scenarios"][1]["step_time_ratio"].get<double>() == 1.0);
  const auto text = run_commsim({"compare", kAllReduce, kAllReduce, "--set", "collective.bytes=2 GiB"});
  CHECK(text.exit_code == 0);
  CHECK(text.out.find("x1.00") != std::string::npos);
}
