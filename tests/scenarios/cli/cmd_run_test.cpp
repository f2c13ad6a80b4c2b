// `commsim run` through the real binary: deterministic JSON with the contract's keys, atomic --out.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/scenarios/command_runner.hpp"

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
