#pragma once
// Runs a scenario text with and without --full, requires both to succeed and their run --json to
// agree apart from the mode (mode_free_json, step_time_s within the 1e-9); returns the
// default run's and the full run's JSON for the caller's checks on the mode taken.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "tests/scenarios/command_runner.hpp"
#include "tests/scenarios/scale/mode_free_json.hpp"

inline std::pair<nlohmann::json, nlohmann::json> run_default_and_full(const std::string& toml, const std::string& tag) {
  const auto dir = scenarios_test::fresh_temp_dir(tag);
  const auto path = dir / "s.toml";
  std::ofstream(path) << toml;
  INFO(toml);
  const auto quick = scenarios_test::run_commsim({"run", path.string(), "--json"});
  const auto full = scenarios_test::run_commsim({"run", path.string(), "--json", "--full"});
  std::filesystem::remove_all(dir);
  REQUIRE(quick.exit_code == 0);
  REQUIRE(full.exit_code == 0);
  auto a = nlohmann::json::parse(quick.out), b = nlohmann::json::parse(full.out);
  CHECK(mode_free_json(a) == mode_free_json(b));
  CHECK(a["step_time_s"].get<double>() == Approx(b["step_time_s"].get<double>()).epsilon(1e-9));
  return {std::move(a), std::move(b)};
}
