// Several jobs on one fabric through the real binary (scenarios/examples/two_jobs_fat_tree.toml):
// run --json's `jobs` (step alone, together, lost), the shared run's ranks adding up to its step,
// the summary's jobs table, and full bisection taking the loss away.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/scenarios/command_runner.hpp"

using scenarios_test::run_commsim;

namespace {
const std::string kTwoJobsOfJobsOutput = std::string(COMMSIM_SOURCE_DIR) + "/scenarios/examples/two_jobs_fat_tree.toml";
}

TEST_CASE("scenarios: two jobs on a 4:1 fat-tree each lose part of their step to the other", "[scenarios]") {
  const auto r = run_commsim({"run", kTwoJobsOfJobsOutput, "--json"});
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  REQUIRE(j["jobs"].size() == 2);
  double longest = 0;
  for (const auto& job : j["jobs"]) {
    INFO(job["name"].get<std::string>());
    const double alone = job["step_alone_s"].get<double>(), together = job["step_together_s"].get<double>();
    CHECK(job["gpus"] == 32);
    CHECK(together > alone * 1.05);  // both rings leave pod 1 through one uplink
    CHECK(job["lost_s"].get<double>() == Approx(together - alone).epsilon(1e-6));
    CHECK(job["lost_fraction"].get<double>() == Approx((together - alone) / alone).epsilon(1e-6));
    longest = std::max(longest, together);
  }
  CHECK(j["jobs"][0]["nodes"] == nlohmann::json::array({2, 5}));
  CHECK(j["step_time_s"].get<double>() == Approx(longest).epsilon(1e-8));
  REQUIRE(j["ranks"].size() == 64);
  for (const auto& rank : j["ranks"]) {
    double sum = 0;
    for (const auto& [k, v] : rank["breakdown"].items()) sum += v.get<double>();
    CHECK(sum == Approx(longest).epsilon(1e-7));
  }
  bool spine = false;
  for (const auto& l : j["links"]) spine |= l["name"] == "fabric/pod1/up" && l["utilization"].get<double>() > 0.8;
  CHECK(spine);

  const auto text = run_commsim({"run", kTwoJobsOfJobsOutput});
  REQUIRE(text.exit_code == 0);
  CHECK(text.out.find("step alone  step together") != std::string::npos);
  CHECK(text.out.find("  zero3                  2-5     32") != std::string::npos);

  const auto flat = run_commsim({"run", kTwoJobsOfJobsOutput, "--json", "--set", "cluster.fabric.oversubscription=1"});
  REQUIRE(flat.exit_code == 0);
  const auto flat_json = nlohmann::json::parse(flat.out);  // named: a range-for over a temporary's ["jobs"] dangles
  REQUIRE(flat_json["jobs"].size() == 2);
  for (const auto& job : flat_json["jobs"]) CHECK(job["lost_s"].get<double>() == 0);
}
