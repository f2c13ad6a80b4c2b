// docs/scenario-format.md's strategy table (Llama-3-8B on 4 x p4d.24xlarge) is what the program
// prints: each row is run and every cell compared at the page's precision, so a model change that
// moves a number fails here until the page follows.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/scenarios/command_runner.hpp"

namespace fs = std::filesystem;

namespace {
const fs::path kSourceOfStrategyTable = COMMSIM_SOURCE_DIR;

std::string fixed(double v, int digits) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", digits, v);
  return text;
}

std::vector<std::string> cells(const std::string& row) {
  std::vector<std::string> out;
  std::stringstream in(row.substr(1));
  for (std::string c; std::getline(in, c, '|');) {
    const auto a = c.find_first_not_of(' '), b = c.find_last_not_of(' ');
    out.push_back(a == std::string::npos ? "" : c.substr(a, b - a + 1));
  }
  return out;
}
}  // namespace

TEST_CASE("docs/scenario-format.md: the strategy table is what run prints", "[scenarios]") {
  const std::string doc = scenarios_test::slurp(kSourceOfStrategyTable / "docs" / "scenario-format.md");
  const std::string examples = (kSourceOfStrategyTable / "scenarios" / "examples").string() + "/";
  const size_t head = doc.find("| strategy | step (s) | exposed comm (s) |");
  REQUIRE(head != std::string::npos);
  std::istringstream table(doc.substr(head));
  std::string line;
  std::getline(table, line);  // header
  std::getline(table, line);  // |---|
  int rows = 0;
  for (; std::getline(table, line) && line.rfind("| ", 0) == 0; ++rows) {
    const auto c = cells(line);
    REQUIRE(c.size() == 5);
    const std::string strategy = c[0].substr(0, c[0].find(' '));
    std::vector<std::string> args = {"run"};
    if (strategy == "zero1" || strategy == "zero2" || strategy == "hsdp") {
      args.push_back(examples + "p4d_4node_" + strategy + "_llama3_8b.toml");
    } else {
      args.push_back(examples + "p4d_4node_hsdp_llama3_8b.toml");
      args.insert(args.end(), {"--set", "parallel.strategy=\"" + strategy + "\""});
    }
    args.push_back("--json");
    INFO(line);
    const auto r = scenarios_test::run_commsim(args);
    REQUIRE(r.exit_code == 0);
    const auto j = nlohmann::json::parse(r.out);
    double efa_bytes = 0, efa_links = 0;
    for (const auto& k : j["link_classes"])
      if (k["kind"] == "efa") efa_bytes = k["bytes"].get<double>(), efa_links = k["links"].get<double>();
    REQUIRE(efa_links > 0);
    CHECK(c[1] == fixed(j["step_time_s"].get<double>(), 2));
    CHECK(c[2] == fixed(j["max_exposed_comm_s"].get<double>(), 2));
    CHECK(c[3] == fixed(efa_bytes / efa_links / 1e9, 1));
    const std::string peak = fixed(j["memory"]["peak_bytes"].get<double>() / 1e9, 1);
    CHECK(c[4] == (j["fits"].get<bool>() ? peak : peak + " (does not fit)"));
  }
  CHECK(rows == 6);
}
