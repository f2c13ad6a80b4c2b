// The step breakdown through the real binary: in `run --json` every rank of every
// shipped scenario carries `breakdown` with exactly compute_s, interference_s, exposed_comm_s,
// host_s, bubble_s, barrier_wait_s and other_s, adding up to step_time_s; the run summary's
// step_* terms (the mean rank) add up too; a pipeline shows its bubble, ZeRO-Offload its host work.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/scenarios/command_runner.hpp"

namespace fs = std::filesystem;
using scenarios_test::run_commsim;

namespace {
const fs::path kSource = COMMSIM_SOURCE_DIR;
const std::vector<std::string> kTerms = {"compute_s", "interference_s", "exposed_comm_s", "host_s",
                                         "bubble_s",  "barrier_wait_s", "other_s"};

// Every scenario scripts/json-snapshot.sh runs: scenarios/**/*.toml with [model] or [collective].
std::vector<fs::path> runnable_scenarios() {
  std::vector<fs::path> out;
  for (const auto& e : fs::recursive_directory_iterator(kSource / "scenarios")) {
    if (e.path().extension() != ".toml") continue;
    std::ifstream in(e.path());
    bool runnable = false, long_row = false;
    for (std::string line; std::getline(in, line);) {
      runnable |= line.rfind("[model]", 0) == 0 || line.rfind("[collective]", 0) == 0;
      long_row |= line.rfind("# long:", 0) == 0;  // minutes to simulate: the long test's rows (ctest -L long)
    }
    if (runnable && !long_row) out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// JSON numbers carry 9 significant digits: seven rounded terms sum within a few 1e-9 of the step.
double tolerance(double step) { return 1e-8 * step + 1e-15; }

nlohmann::json run_json(const std::vector<std::string>& args) {
  const auto r = run_commsim(args);
  REQUIRE(r.exit_code == 0);
  return nlohmann::json::parse(r.out);
}

double sum_of(const nlohmann::json& b, const std::string& prefix = "") {
  double s = 0;
  for (const auto& k : kTerms) s += b.at(prefix + k).get<double>();
  return s;
}
}  // namespace

TEST_CASE("scenarios: every rank's breakdown has the seven terms and adds up to the step on every shipped scenario",
          "[scenarios]") {
  const auto paths = runnable_scenarios();
  REQUIRE(paths.size() >= 30);
  for (const auto& p : paths) {
    INFO(p.string());
    const auto j = run_json({"run", p.string(), "--json"});
    const double step = j["step_time_s"].get<double>();
    REQUIRE(step > 0);
    for (const auto& rank : j["ranks"]) {
      const auto& b = rank.at("breakdown");
      REQUIRE(b.size() == kTerms.size());
      for (const auto& k : kTerms) CHECK(b.at(k).get<double>() >= 0);
      CHECK(sum_of(b) == Approx(step).margin(tolerance(step)));
      // "other" is what no named cause explains: nothing in the shipped programs.
      CHECK(b["other_s"].get<double>() <= 1e-6 * step);
    }
    CHECK(sum_of(j, "step_") == Approx(step).margin(tolerance(step)));
  }
}

TEST_CASE("scenarios: a TP8 x PP4 job shows its pipeline bubble, ZeRO-Offload its host work", "[scenarios]") {
  const std::string p5 = (kSource / "scenarios/seeds/p5_1pod_8gpu.toml").string();
  const auto pp = run_json({"run", p5, "--set", "cluster.nodes=4", "--set", "parallel.strategy=\"megatron\"", "--set",
                            "parallel.tp=8", "--set", "parallel.pp=4", "--set", "parallel.micro_batches=4", "--set",
                            "zero.stage=0", "--json"});
  const double step = pp["step_time_s"].get<double>();
  // 1F1B with p stages and m micro-batches idles (p-1)/(m+p-1) of the step: 3/7 here.
  CHECK(pp["step_bubble_s"].get<double>() > 0.2 * step);
  CHECK(sum_of(pp, "step_") == Approx(step).margin(tolerance(step)));

  // The README's headline study: most of the 1-pod step is CPU-Adam the GPUs wait for.
  const std::string offload = (kSource / "scenarios/seeds/p4d_1pod_4gpu.toml").string();
  const auto off = run_json({"run", offload, "--json"});
  CHECK(off["step_host_s"].get<double>() > 0.5 * off["step_time_s"].get<double>());
  for (const auto& rank : off["ranks"])  // the same instants as the offload account
    CHECK(rank["breakdown"]["host_s"].get<double>() == Approx(rank["offload_s"].get<double>()));
}
