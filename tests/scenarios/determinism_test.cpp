// Determinism, audit and scale limits through the real binary: every shipped scenario
// runs in audit mode (--check: byte conservation per collective, link capacity, every flow ends)
// and, as a user runs it, gives byte-identical JSON twice; sweeps of a training scenario do not depend on --jobs or
// on sharding; --time-limit stops cleanly with "partial": true; a question too big for 4 GB is
// refused up front (exit 2, one positioned line, a suggestion).
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/scenarios/command_runner.hpp"

namespace fs = std::filesystem;
using scenarios_test::run_commsim;

namespace {
const fs::path kSourceOfDeterminism = COMMSIM_SOURCE_DIR;

std::vector<fs::path> shipped_scenarios() {
  std::vector<fs::path> out;
  for (const char* dir : {"scenarios/examples", "scenarios/seeds"})
    for (const auto& e : fs::directory_iterator(kSourceOfDeterminism / dir))
      if (e.path().extension() == ".toml") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}
}  // namespace

TEST_CASE("scenarios: every shipped scenario passes the audit and gives byte-identical JSON twice", "[scenarios]") {
  const auto paths = shipped_scenarios();
  REQUIRE(paths.size() >= 5);
  for (const auto& p : paths) {
    INFO(p.string());
    // --check simulates every rank and flow and fails (SIM_CHECK, exit 1) on any broken invariant, so
    // exit 0 means all held. It runs once: its cost is the full simulation's.
    const auto audited = run_commsim({"run", p.string(), "--check", "--json"});
    REQUIRE(audited.exit_code == 0);
    CHECK(audited.err.empty());
    CHECK(nlohmann::json::parse(audited.out)["partial"] == false);
    // What a user runs (folds and all) gives the same bytes twice.
    const auto a = run_commsim({"run", p.string(), "--json"});
    REQUIRE(a.exit_code == 0);
    const auto b = run_commsim({"run", p.string(), "--json"});
    CHECK(b.out == a.out);
    const auto j = nlohmann::json::parse(a.out);
    CHECK(j["partial"] == false);
    CHECK(j["step_time_s"].get<double>() > 0);
  }
}

TEST_CASE("scenarios: a training sweep is identical across --jobs 1/2 and across shards merged back", "[scenarios]") {
  const std::string seed = (kSourceOfDeterminism / "scenarios/seeds/p4d_1pod_4gpu.toml").string();
  const std::vector<std::string> base = {
      "sweep", seed, "--vary", "zero.reduce_bucket_size=1e7,5e7,2e8", "--vary", "placement.pods_per_node=1,4"};
  const auto runs = scenarios_test::sweep_three_ways(base, 2, 3);
  REQUIRE(runs.serial.exit_code == 0);
  CHECK(std::count(runs.serial.out.begin(), runs.serial.out.end(), '\n') == 7);  // header + 3 x 2 rows
  CHECK(runs.threaded == runs.serial.out);
  CHECK(runs.merged == runs.serial.out);
}

TEST_CASE("scenarios: --time-limit stops a large run cleanly and marks the result partial", "[scenarios]") {
  // ZeRO-3 Llama-3-70B on 256 x p5en.48xlarge (2,048 GPUs), every rank and flow simulated
  // (--full; with rank classes it takes ~1,000 events): millions of events, far more than 0.2 s
  // of work; the limit is checked every 1,024 finished operations.
  const std::string z3 = (kSourceOfDeterminism / "tests/scenarios/scale/zero3_70b_16k_p5en.toml").string();
  const auto r = run_commsim({"run", z3, "--set", "cluster.nodes=256", "--time-limit", "0.2", "--json", "--full"});
  REQUIRE(r.exit_code == 3);  // stopped: neither a result nor an error
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["partial"] == true);
  // No step or run time, not even extrapolated: how far it got instead.
  CHECK(j["step_time_s"].is_null());
  CHECK(j["run_time_s"].is_null());
  CHECK(j["simulated_fraction"].get<double>() >= 0);
  CHECK(j["simulated_fraction"].get<double>() < 1);
  CHECK(j["simulated_s"].get<double>() >= 0);
  CHECK(j["ranks"].size() == 2048);
  const auto text = run_commsim({"run", z3, "--set", "cluster.nodes=256", "--time-limit", "0.2", "--full"});
  CHECK(text.exit_code == 3);
  CHECK(text.out.find("simulated ") != std::string::npos);
  CHECK(text.out.find("% of one step") != std::string::npos);
  CHECK(text.out.find("\nstep time ") == std::string::npos);  // no "step time" nor "run time" line
  CHECK(text.out.find("\nrun time ") == std::string::npos);
  // A limit already spent during set-up stops there (wall_budget.hpp): exit 3, nothing simulated,
  // the notes name the stage; the JSON has no ranks rather than rows of zeros.
  const auto early = run_commsim({"run", z3, "--time-limit", "0.000001", "--json"});
  REQUIRE(early.exit_code == 3);
  const auto e = nlohmann::json::parse(early.out);
  CHECK(e["partial"] == true);
  CHECK(e["simulated_fraction"].get<double>() == 0);
  CHECK(e["ranks"].empty());
  CHECK(e["notes"].dump().find("of set-up, while") != std::string::npos);
}

TEST_CASE("scenarios: 16384 GPUs run a 1 GiB all-reduce and a folded alltoall, and refuse its pairs up front",
          "[scenarios]") {
  const std::string ar = (kSourceOfDeterminism / "tests/scenarios/scale/allreduce_16k_p5en.toml").string();
  const auto ok = run_commsim({"run", ar, "--json"});
  REQUIRE(ok.exit_code == 0);
  const auto j = nlohmann::json::parse(ok.out);
  CHECK(j["ranks"].size() == 16384);
  CHECK(j["partial"] == false);
  // The alltoall runs folded (a few flows per rank). Each GPU sends 16,376/16,384 of
  // 1 GiB through its NIC group and 7/16,384 over NVLink: the NICs' time.
  const auto a2a = run_commsim({"run", ar, "--set", "collective.op=alltoall", "--json"});
  REQUIRE(a2a.exit_code == 0);
  CHECK(nlohmann::json::parse(a2a.out)["step_time_s"].get<double>() > 0);
  // As pairs (--full) it opens n(n-1) = 268 million flows: ~128 GiB at 512 B each.
  const auto no = run_commsim({"run", ar, "--set", "collective.op=alltoall", "--full", "--json"});
  CHECK(no.exit_code == 2);
  CHECK(no.out.empty());
  CHECK(no.err.find("--set:1:") == 0);  // positioned at the override that chose alltoall
  CHECK(no.err.find("GiB") != std::string::npos);
  CHECK(no.err.find("(expected at most") != std::string::npos);
  CHECK(std::count(no.err.begin(), no.err.end(), '\n') == 1);
}
