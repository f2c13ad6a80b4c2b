// docs/plan.md's catalog price table is the program's: every priced instance `commsim instances`
// lists has a row with its $ per node-hour, pricing, region and month, and every row names priced
// instances (a row may list several, "g6e.8xlarge, .12xlarge, .48xlarge", with one figure each).
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/scenarios/command_runner.hpp"

namespace {
std::string trim(std::string s) {
  const auto b = s.find_first_not_of(' '), e = s.find_last_not_of(' ');
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}
std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string part; std::getline(in, part, sep);) out.push_back(trim(part));
  return out;
}
struct DocRow {
  double usd_per_hour = 0;
  std::string pricing, region, month;
};
// The table under "The catalog (Linux, one node; ...": instance -> its row, names like
// "g6e.8xlarge, .12xlarge" expanded against the first name's family.
std::map<std::string, DocRow> doc_prices() {
  std::ifstream f(std::filesystem::path(COMMSIM_SOURCE_DIR) / "docs" / "plan.md");
  std::stringstream ss;
  ss << f.rdbuf();
  const std::string doc = ss.str();
  const auto at = doc.find("| instance | $/node-h | pricing | region | source | month |");
  REQUIRE(at != std::string::npos);
  std::map<std::string, DocRow> rows;
  std::istringstream lines(doc.substr(at));
  std::string line;
  std::getline(lines, line);  // header
  std::getline(lines, line);  // |---|
  while (std::getline(lines, line) && line.rfind("| ", 0) == 0) {
    const auto cells = split(line.substr(1, line.size() - 2), '|');
    REQUIRE(cells.size() >= 6);
    const auto names = split(cells[0], ','), figures = split(cells[1], ',');
    REQUIRE(names.size() == figures.size());
    const std::string family = names[0].substr(0, names[0].find('.'));
    for (size_t i = 0; i < names.size(); ++i) {
      const std::string name = names[i][0] == '.' ? family + names[i] : names[i];
      rows[name] = {std::stod(figures[i]), cells[2], cells[3], cells[5]};
    }
  }
  return rows;
}
}  // namespace

TEST_CASE("docs/plan.md's price table holds every catalog price as the program has it", "[scenarios][docs]") {
  const auto r = scenarios_test::run_commsim({"instances", "--json"});
  REQUIRE(r.exit_code == 0);
  const auto doc = doc_prices();
  int priced = 0;
  const auto listed = nlohmann::json::parse(r.out);  // kept alive for the loop over its member
  for (const auto& i : listed.at("instances")) {
    const std::string name = i.at("name");
    if (i.at("usd_per_hour").is_null()) {
      INFO(name);
      CHECK(doc.count(name) == 0);  // no price in the program, none in the table
      continue;
    }
    ++priced;
    INFO(name);
    REQUIRE(doc.count(name) == 1);
    const DocRow& row = doc.at(name);
    CHECK(row.usd_per_hour == Approx(i.at("usd_per_hour").get<double>()).epsilon(1e-9));
    CHECK(row.pricing == i.at("pricing").get<std::string>());
    CHECK(row.region == i.at("price_region").get<std::string>());
    CHECK(row.month == i.at("price_date").get<std::string>());
  }
  CHECK(priced == int(doc.size()));  // no row for an instance the program does not price
}
