// `commsim plan` ranks by the expected wall time to train, failures, checkpoints and restarts
// included, as `commsim run` reports it on its goodput line: a layout whose steps alone meet a
// deadline but whose expected time does not is not ranked, and with no failure rate the two are
// one figure.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "tests/scenarios/command_runner.hpp"

namespace fs = std::filesystem;
using scenarios_test::run_commsim;

namespace {
const std::string kFailingSmall = std::string(COMMSIM_SOURCE_DIR) + "/tests/scenarios/cli/plan/small.toml";
// One GPU failure per 50 GPU-hours (the catalog's rates are ~2,000 times rarer): on 8 GPUs the
// MTBF is about 6 hours, so the run's expected time is well above its steps'.
const std::string kOften = "cluster.params.failures.gpu=2e4";
const std::vector<std::string> kFailingPlan = {"plan",
                                               kFailingSmall,
                                               "--gpus",
                                               "8",
                                               "--strategies",
                                               "megatron,zero3",
                                               "--micro-batches",
                                               "1",
                                               "--cp",
                                               "1",
                                               "--max-pp",
                                               "2",
                                               "--max-vp",
                                               "1",
                                               "--jobs",
                                               "2",
                                               "--json",
                                               "--set",
                                               kOften};

std::vector<std::string> plus_args(std::vector<std::string> args, const std::vector<std::string>& extra) {
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}
}  // namespace

TEST_CASE("scenarios: plan's time and cost are the expected ones with failures, as run reports them", "[scenarios]") {
  const auto p = run_commsim(plus_args(kFailingPlan, {"--include", kFailingSmall}));
  REQUIRE(p.exit_code == 0);
  const auto j = nlohmann::json::parse(p.out);
  const auto& yours = j["included"];
  const auto run = run_commsim({"run", kFailingSmall, "--json", "--set", kOften});
  REQUIRE(run.exit_code == 0);
  const auto g = nlohmann::json::parse(run.out)["goodput"];
  CHECK(yours["expected_train_time_s"].get<double>() == Approx(g["expected_wall_s"].get<double>()).epsilon(1e-9));
  CHECK(yours["expected_cost_usd"].get<double>() == Approx(g["expected_cost_usd"].get<double>()).epsilon(1e-9));
  CHECK(yours["goodput"].get<double>() == Approx(g["goodput"].get<double>()).epsilon(1e-9));
  REQUIRE(j["rows"].size() > 1);
  double previous = 0;
  for (const auto& row : j["rows"]) {
    const double work = row["train_time_s"].get<double>(), wall = row["expected_train_time_s"].get<double>();
    CHECK(wall > 1.01 * work);  // failures every ~6 h cost more than 1 %
    CHECK(row["goodput"].get<double>() == Approx(work / wall).epsilon(1e-7));
    CHECK(row["expected_cost_usd"].get<double>() > row["cost_usd"].get<double>());
    CHECK(wall >= previous);  // ranked by it
    previous = wall;
  }
}

TEST_CASE("scenarios: plan holds a deadline to the expected time, which with no failures is the steps' time",
          "[scenarios]") {
  const auto first = run_commsim(kFailingPlan);
  REQUIRE(first.exit_code == 0);
  const auto best = nlohmann::json::parse(first.out)["rows"][0];
  const double work = best["train_time_s"].get<double>(), wall = best["expected_train_time_s"].get<double>();
  REQUIRE(wall > work);
  // A deadline the winner's steps meet and its expected time misses: it is no longer ranked.
  const std::string deadline = fmt::format("{:.0f}s", (work + wall) / 2);
  const auto tight = run_commsim(plus_args(kFailingPlan, {"--deadline", deadline}));
  if (tight.exit_code == 0) {
    const auto ranked = nlohmann::json::parse(tight.out);  // held: a temporary's member would dangle
    for (const auto& row : ranked["rows"]) {
      CHECK(row["layout"] != best["layout"]);
      CHECK(row["expected_train_time_s"].get<double>() <= (work + wall) / 2);
    }
  } else {
    CHECK(tight.exit_code == 2);
    CHECK(tight.err.find("deadline") != std::string::npos);
  }
  // No failure rate: nothing to recover from, the expected time is the steps' time.
  std::vector<std::string> calm = kFailingPlan;
  calm.erase(std::find(calm.begin(), calm.end(), kOften) - 1, std::find(calm.begin(), calm.end(), kOften) + 1);
  for (const char* c : {"gpu", "hbm", "nic", "network", "software", "host"})
    calm.insert(calm.end(), {"--set", fmt::format("cluster.params.failures.{}=0", c)});
  const auto none = run_commsim(calm);
  REQUIRE(none.exit_code == 0);
  const auto calm_rows = nlohmann::json::parse(none.out);  // held: a temporary's member would dangle
  for (const auto& row : calm_rows["rows"]) {
    CHECK(row["expected_train_time_s"].get<double>() == row["train_time_s"].get<double>());
    CHECK(row["goodput"].get<double>() == 1.0);
  }
}

TEST_CASE("scenarios: plan says when a layout is not expected to finish, and why #1 wins counts goodput",
          "[scenarios]") {
  // Failures so frequent that no checkpoint lets a run progress: nothing finishes.
  std::vector<std::string> hopeless = kFailingPlan;
  *std::find(hopeless.begin(), hopeless.end(), kOften) = "cluster.params.failures.gpu=1e6";
  const auto never = run_commsim(plus_args(hopeless, {"--set", "cluster.params.restart.time=1e6"}));
  CHECK(never.exit_code == 2);
  CHECK(never.err.find("no layout is expected to finish") != std::string::npos);
  CHECK(never.err.find("--deadline") == std::string::npos);  // no constraint was given
  // The winner's explanation shows the goodput beside the step (text output).
  std::vector<std::string> text = kFailingPlan;
  text.erase(std::find(text.begin(), text.end(), "--json"));
  const auto t = run_commsim(text);
  REQUIRE(t.exit_code == 0);
  CHECK(t.out.find("  goodput ") != std::string::npos);
  CHECK(t.out.find("  time to train ") != std::string::npos);
  CHECK(t.out.find("time       expected:") != std::string::npos);
}

TEST_CASE("scenarios: plan --merge ranks --include under the shards' --set, and names a field an old shard lacks",
          "[scenarios]") {
  const auto dir = scenarios_test::fresh_temp_dir("plan-merge-failures");
  std::vector<std::string> merge = {"plan", kFailingSmall, "--json", "--include", kFailingSmall, "--merge"};
  for (int i = 0; i < 2; ++i) {
    const auto s = run_commsim(plus_args(kFailingPlan, {"--shard", std::to_string(i) + "/2"}));
    REQUIRE(s.exit_code == 0);
    const auto f = dir / ("shard" + std::to_string(i) + ".json");
    std::ofstream(f) << s.out;
    merge.push_back(f.string());
  }
  const auto merged = run_commsim(merge);
  REQUIRE(merged.exit_code == 0);
  const auto j = nlohmann::json::parse(merged.out);
  // The include is the plan's own scenario: its goodput is the shards' failure rates', as run gives.
  const auto run = run_commsim({"run", kFailingSmall, "--json", "--set", kOften});
  REQUIRE(run.exit_code == 0);
  CHECK(j["included"]["goodput"].get<double>() ==
        Approx(nlohmann::json::parse(run.out)["goodput"]["goodput"].get<double>()).epsilon(1e-7));
  CHECK(j["inputs"]["overrides"] == nlohmann::json::array({kOften}));
  // A shard written before the expected times existed: the missing key is named.
  auto old = nlohmann::json::parse(scenarios_test::slurp(dir / "shard0.json"));
  for (auto& row : old["rows"]) row.erase("expected_train_time_s");
  std::ofstream(dir / "shard0.json") << old.dump();
  const auto stale =
      run_commsim({"plan", kFailingSmall, "--merge", (dir / "shard0.json").string(), (dir / "shard1.json").string()});
  CHECK(stale.exit_code == 2);
  CHECK(stale.err.find("expected_train_time_s") != std::string::npos);
  fs::remove_all(dir);
}
