// The `commsim` subcommands of this folder, through the real binary: deterministic JSON with the
// contract's keys, atomic --out, sweeps identical across --jobs and merged shards.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "command_runner.hpp"

namespace fs = std::filesystem;
using scenarios_test::run_commsim;

namespace {
const std::string kAllReduce = std::string(COMMSIM_SOURCE_DIR) + "/scenarios/examples/allreduce_h200x4.toml";
}

TEST_CASE("scenarios: run --json prints one object with the contract's keys, identical across runs", "[scenarios]") {
  const auto a = run_commsim({"run", kAllReduce, "--json"});
  REQUIRE(a.exit_code == 0);
  const auto b = run_commsim({"run", kAllReduce, "--json"});
  CHECK(a.out == b.out);  // byte-identical
  const auto j = nlohmann::json::parse(a.out);
  for (const char* key : {"step_time_s", "run_time_s", "ranks", "links", "transports"}) CHECK(j.contains(key));
  REQUIRE(j["ranks"].size() == 4);
  for (const char* key : {"rank", "node", "pod", "gpu", "compute_s", "comm_s", "exposed_comm_s", "barrier_wait_s"})
    CHECK(j["ranks"][0].contains(key));
  CHECK(j["step_time_s"].get<double>() > 0);
  for (const auto& l : j["links"])
    for (const char* key : {"name", "kind", "bytes", "busy_s", "utilization"}) CHECK(l.contains(key));
  for (const auto& t : j["transports"]) CHECK((t.contains("label") && t.contains("pairs")));
}

TEST_CASE("scenarios: run --out writes result.json and summary.txt", "[scenarios]") {
  const fs::path dir = scenarios_test::fresh_temp_dir("out") / "res";
  const auto r = run_commsim({"run", kAllReduce, "--out", dir.string()});
  REQUIRE(r.exit_code == 0);
  CHECK(scenarios_test::slurp(dir / "summary.txt") == r.out);
  CHECK(nlohmann::json::parse(scenarios_test::slurp(dir / "result.json")).contains("step_time_s"));
  size_t files = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++files;
  CHECK(files == 2);  // no temporary left over
  fs::remove_all(dir.parent_path());
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

TEST_CASE("scenarios: every subcommand of this folder answers --help", "[scenarios]") {
  for (const char* cmd : {"run", "compare", "sweep"}) {
    const auto r = run_commsim({cmd, "--help"});
    CHECK(r.exit_code == 0);
    CHECK(r.out.find("--set") != std::string::npos);
  }
  const auto bad = run_commsim({"run"});
  CHECK(bad.exit_code == 2);
}
