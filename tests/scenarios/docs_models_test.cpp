// docs/models.md is what the program does: every ```toml example in it runs (`commsim run --json`,
// exit 0, a step time), and its presets table names every preset `commsim presets` lists, with the
// same source, layers, hidden size and parameter counts.
#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/scenarios/command_runner.hpp"

namespace fs = std::filesystem;

namespace {
const fs::path kDoc = fs::path(COMMSIM_SOURCE_DIR) / "docs" / "models.md";

std::vector<std::string> toml_blocks(const std::string& text) {
  std::vector<std::string> out;
  const std::string open = "```toml\n";
  for (auto at = text.find(open); at != std::string::npos; at = text.find(open, at + 1)) {
    const auto from = at + open.size();
    const auto close = text.find("```", from);
    REQUIRE(close != std::string::npos);
    out.push_back(text.substr(from, close - from));
  }
  return out;
}

// The cells of the table row that starts with `row_start`, trimmed ("" where there is no such row).
std::vector<std::string> row_cells(const std::string& doc, const std::string& row_start) {
  const auto at = doc.find(row_start);
  if (at == std::string::npos) return {};
  std::istringstream line(doc.substr(at, doc.find('\n', at) - at));
  std::vector<std::string> cells;
  for (std::string cell; std::getline(line, cell, '|');) {
    const auto b = cell.find_first_not_of(' '), e = cell.find_last_not_of(' ');
    cells.push_back(b == std::string::npos ? "" : cell.substr(b, e - b + 1));
  }
  return cells;  // cells[0] is before the first '|'
}

std::string billions(double n) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f B", n / 1e9);
  return text;
}
}  // namespace

TEST_CASE("docs/models.md: every TOML example runs", "[scenarios]") {
  const std::string doc = scenarios_test::slurp(kDoc);
  const auto blocks = toml_blocks(doc);
  REQUIRE(blocks.size() >= 2);
  const auto dir = scenarios_test::fresh_temp_dir("docs-models");
  int i = 0;
  for (const std::string& block : blocks) {
    const fs::path file = dir / ("example" + std::to_string(i++) + ".toml");
    std::ofstream(file) << block;
    const auto r = scenarios_test::run_commsim({"run", file.string(), "--json"});
    INFO(block << "\n" << r.err);
    REQUIRE(r.exit_code == 0);
    const auto j = nlohmann::json::parse(r.out);
    CHECK(j["step_time_s"].get<double>() > 0);
  }
  fs::remove_all(dir);
}

TEST_CASE("docs/models.md: the presets table lists every preset with its source, layers, hidden and parameters",
          "[scenarios]") {
  const std::string doc = scenarios_test::slurp(kDoc);
  const auto r = scenarios_test::run_commsim({"presets", "--json"});
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  for (const auto& p : j["presets"]) {
    const std::string row = "| `" + p["name"].get<std::string>() + "` |";
    INFO(row);
    CHECK(doc.find(row) != std::string::npos);
    CHECK(doc.find(p["source"].get<std::string>()) != std::string::npos);
    // The numbers are typed by hand into the table: the ones a reader compares against a model
    // card (layers, hidden, total and active parameters) must be the program's.
    const auto cells = row_cells(doc, row);
    REQUIRE(cells.size() >= 10);
    CHECK(cells[2] == std::to_string(p["layers"].get<int>()));
    CHECK(cells[3] == std::to_string(p["hidden"].get<int>()));
    CHECK(cells[8] == billions(p["parameters"].get<double>()));
    CHECK(cells[9] == billions(p["active_parameters"].get<double>()));
  }
}
