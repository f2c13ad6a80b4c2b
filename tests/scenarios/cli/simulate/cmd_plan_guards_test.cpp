// `commsim plan`'s guards: a merge takes every shard of one plan once (same scenario, same
// objective) and refuses the options its shards decided; no output replaces an input (the
// scenario, --include, --merge files, --emit's files); all outputs are written together; an
// --include layout trains the plan's model to the plan's token target at its own batch; --emit
// carries a --prices price and removes the rank files an earlier --emit left; the refusal the
// engine gave is named; a front that covers only the simulated layouts says so.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/scenarios/command_runner.hpp"

namespace fs = std::filesystem;
using scenarios_test::run_commsim;

namespace {
const std::string kGuardDir = std::string(COMMSIM_SOURCE_DIR) + "/tests/scenarios/cli/plan/";
const std::string kGuardSmall = kGuardDir + "small.toml";
const std::vector<std::string> kGuardPlan = {"plan",
                                             kGuardSmall,
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
                                             "2"};

std::vector<std::string> guard_args(std::vector<std::string> args, const std::vector<std::string>& extra) {
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

bool mentions(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }
}  // namespace

TEST_CASE("scenarios: plan --merge takes every shard of one plan once, under its objective", "[scenarios]") {
  const auto dir = scenarios_test::fresh_temp_dir("plan-merge-guards");
  std::vector<std::string> shard;
  for (int i = 0; i < 2; ++i) {
    const auto s = run_commsim(guard_args(kGuardPlan, {"--json", "--shard", std::to_string(i) + "/2"}));
    REQUIRE(s.exit_code == 0);
    shard.push_back((dir / ("shard" + std::to_string(i) + ".json")).string());
    std::ofstream(shard.back()) << s.out;
  }
  const auto missing = run_commsim({"plan", kGuardSmall, "--merge", shard[0]});
  CHECK(missing.exit_code == 2);
  CHECK(mentions(missing.err, "--merge:1:1: shard 1/2 is missing"));
  const auto twice = run_commsim({"plan", kGuardSmall, "--merge", shard[0], shard[0]});
  CHECK(twice.exit_code == 2);
  CHECK(mentions(twice.err, "is shard 0/2 again"));
  const auto other_objective = run_commsim({"plan", kGuardSmall, "--merge", shard[0], shard[1], "--objective", "cost"});
  CHECK(other_objective.exit_code == 2);
  CHECK(mentions(other_objective.err, "searched for the fastest layout"));
  const auto space_option = run_commsim({"plan", kGuardSmall, "--merge", shard[0], shard[1], "--gpus", "16"});
  CHECK(space_option.exit_code == 2);
  CHECK(mentions(space_option.err, "--gpus:1:1: --gpus does not apply to --merge"));
  const auto other = dir / "other.toml";
  std::ofstream(other) << "name = \"another plan\"\n[cluster]\ninstance = \"p5.48xlarge\"\n[model]\npreset = "
                          "\"llama-3-8b\"\nseq = 2048\n[training]\nglobal_batch = 32\ntokens = 1e9\n";
  const auto other_scenario = run_commsim({"plan", other.string(), "--merge", shard[0], shard[1]});
  CHECK(other_scenario.exit_code == 2);
  CHECK(mentions(other_scenario.err, "not this scenario's 'another plan'"));
  // An output over a shard file is refused before anything is read or written.
  const std::string before = scenarios_test::slurp(shard[0]);
  const auto over = run_commsim({"plan", kGuardSmall, "--merge", shard[0], shard[1], "--csv", shard[0]});
  CHECK(over.exit_code == 2);
  CHECK(mentions(over.err, "is an input of this command"));
  CHECK(scenarios_test::slurp(shard[0]) == before);
  const auto merged = run_commsim({"plan", kGuardSmall, "--merge", shard[0], shard[1]});
  CHECK(merged.exit_code == 0);
  fs::remove_all(dir);
}

TEST_CASE("scenarios: plan writes no output over an input, and all its outputs or none", "[scenarios]") {
  const auto dir = scenarios_test::fresh_temp_dir("plan-output-guards");
  // --emit into the folder of the scenario named rank-01.toml would overwrite it.
  const auto base = dir / "rank-01.toml";
  fs::copy_file(kGuardSmall, base);
  const std::string text = scenarios_test::slurp(base.string());
  std::vector<std::string> over_base = kGuardPlan;
  over_base[1] = base.string();
  const auto e = run_commsim(guard_args(over_base, {"--emit", dir.string()}));
  CHECK(e.exit_code == 2);
  CHECK(mentions(e.err, "--emit: '" + base.string() + "' is an input of this command"));
  CHECK(scenarios_test::slurp(base.string()) == text);
  // --csv over the --include scenario.
  const auto inc = run_commsim(guard_args(kGuardPlan, {"--include", base.string(), "--csv", base.string()}));
  CHECK(inc.exit_code == 2);
  CHECK(scenarios_test::slurp(base.string()) == text);
  // A page that cannot be written leaves an older CSV as it was.
  const auto csv = dir / "rows.csv";
  std::ofstream(csv) << "OLD\n";
  const auto failed =
      run_commsim(guard_args(kGuardPlan, {"--csv", csv.string(), "--html", (dir / "no" / "x.html").string()}));
  CHECK(failed.exit_code == 2);
  CHECK(scenarios_test::slurp(csv.string()) == "OLD\n");
  fs::remove_all(dir);
}

TEST_CASE("scenarios: plan --emit carries a --prices price and removes the rank files an earlier one left",
          "[scenarios]") {
  const auto dir = scenarios_test::fresh_temp_dir("plan-emit-guards");
  const auto three = run_commsim(guard_args(kGuardPlan, {"--emit", dir.string(), "--emit-count", "3"}));
  REQUIRE(three.exit_code == 0);
  REQUIRE(fs::exists(dir / "rank-03.toml"));
  std::ofstream(dir / "rank-04.toml") << "# the user's own file\n";
  const auto one = run_commsim(
      guard_args(kGuardPlan, {"--emit", dir.string(), "--emit-count", "1", "--prices", kGuardDir + "prices.toml"}));
  REQUIRE(one.exit_code == 0);
  CHECK(fs::exists(dir / "rank-01.toml"));
  CHECK_FALSE(fs::exists(dir / "rank-02.toml"));
  CHECK_FALSE(fs::exists(dir / "rank-03.toml"));
  CHECK(fs::exists(dir / "rank-04.toml"));  // not one --emit wrote: kept, with a note
  CHECK(mentions(one.err, "rank-04.toml is not one --emit wrote; left as it is"));
  // prices.toml sells p5.48xlarge at $60 a node-hour: the emitted file costs what the plan said.
  const std::string emitted = scenarios_test::slurp((dir / "rank-01.toml").string());
  CHECK(mentions(emitted, "price_per_hour = 60"));
  const auto run = run_commsim({"run", (dir / "rank-01.toml").string(), "--json"});
  REQUIRE(run.exit_code == 0);
  CHECK(nlohmann::json::parse(run.out)["usd_per_hour"].get<double>() == Approx(60.0));
  fs::remove_all(dir);
}

TEST_CASE("scenarios: plan --include trains the plan's model to its token target at its own batch", "[scenarios]") {
  const auto dir = scenarios_test::fresh_temp_dir("plan-include-guards");
  // The same layout at twice the global batch takes half the steps to the same tokens.
  std::string text = scenarios_test::slurp(kGuardSmall);
  text.replace(text.find("global_batch = 32"), 17, "global_batch = 64");
  const auto big = dir / "batch64.toml";
  std::ofstream(big) << text;
  const auto r = run_commsim(guard_args(kGuardPlan, {"--include", big.string(), "--json"}));
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  const auto run = run_commsim({"run", big.string(), "--json"});
  REQUIRE(run.exit_code == 0);
  const auto rj = nlohmann::json::parse(run.out);
  CHECK(j["included"]["train_time_s"].get<double>() == Approx(rj["run_time_s"].get<double>()).epsilon(1e-9));
  // Another model is refused: its rows would not compare.
  text.replace(text.find("llama-3-8b"), 10, "llama-3-70b");
  const auto seventy = dir / "seventy.toml";
  std::ofstream(seventy) << text;
  const auto other = run_commsim(guard_args(kGuardPlan, {"--include", seventy.string()}));
  CHECK(other.exit_code == 2);
  CHECK(mentions(other.err, "--include trains 70.6 B parameters"));
  fs::remove_all(dir);
}

TEST_CASE(
    "scenarios: plan names a mistyped instance at --instances, counts a repeat once, says why the engine "
    "refused",
    "[scenarios]") {
  const auto typo = run_commsim(guard_args(kGuardPlan, {"--instances", "p5.48xlarg"}));
  CHECK(typo.exit_code == 2);
  CHECK(mentions(typo.err, "--instances:1:1: unknown instance 'p5.48xlarg'"));
  const auto once = run_commsim(guard_args(kGuardPlan, {"--instances", "p5.48xlarge", "--json"}));
  const auto twice = run_commsim(guard_args(kGuardPlan, {"--instances", "p5.48xlarge,p5.48xlarge", "--json"}));
  REQUIRE(once.exit_code == 0);
  REQUIRE(twice.exit_code == 0);
  CHECK(nlohmann::json::parse(once.out)["rows"].size() == nlohmann::json::parse(twice.out)["rows"].size());
  const auto refused = run_commsim(guard_args(kGuardPlan, {"--set", "nccl.env.NCCL_ALGO=\"Foo\""}));
  CHECK(refused.exit_code == 2);
  CHECK(mentions(refused.err, "refused by the engine (e.g. "));
  CHECK(mentions(refused.err, "NCCL_ALGO"));
}
