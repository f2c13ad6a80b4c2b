// `commsim plan`'s page and CSV say what its text says, no surer: a front that covers the layouts
// simulated only is hedged alike (the CSV's front_exact column), with the text's remarks, the
// "not searched" lines, why #1 wins and the near-tie; a near-tie names the cost first where the
// tied rows differ much in it; a tight front row carries the table's "!" with its footnote; the
// page prints goodput and MFU to the text's tenth of a percent.
#include <catch2/catch.hpp>

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "tests/scenarios/command_runner.hpp"

namespace fs = std::filesystem;
using scenarios_test::run_commsim;

namespace {

const std::string kPlan8b = std::string(COMMSIM_SOURCE_DIR) + "/scenarios/examples/plan_llama3_8b.toml";

// The page's text with the five entities svg::esc writes turned back into their characters.
std::string unescaped(std::string s) {
  for (const auto& [entity, c] : std::vector<std::pair<std::string, std::string>>{
           {"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&#39;", "'"}, {"&amp;", "&"}})
    for (size_t at = s.find(entity); at != std::string::npos; at = s.find(entity, at + c.size()))
      s.replace(at, entity.size(), c);
  return s;
}

// The line of `text` that starts with `prefix` (after its indent), without the indent; "" if none.
std::string line_starting(const std::string& text, const std::string& prefix) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    const size_t from = line.find_first_not_of(' ');
    if (from != std::string::npos && line.compare(from, prefix.size(), prefix) == 0) return line.substr(from);
  }
  return "";
}

// Every value of a CSV column (no cell of these rows before it holds a comma inside quotes).
std::vector<std::string> csv_column(const std::string& csv, const std::string& name) {
  std::istringstream in(csv);
  std::string header;
  std::getline(in, header);
  size_t index = 0;
  for (size_t at = 0, k = 0;; ++k) {
    const size_t comma = header.find(',', at);
    if (header.substr(at, comma - at) == name) {
      index = k;
      break;
    }
    REQUIRE(comma != std::string::npos);  // the column is there
    at = comma + 1;
  }
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> cells;
    bool quoted = false;
    std::string cell;
    for (char c : line) {
      if (c == '"') quoted = !quoted;
      if (c == ',' && !quoted) {
        cells.push_back(cell);
        cell.clear();
      } else {
        cell += c;
      }
    }
    cells.push_back(cell);
    if (index < cells.size()) out.push_back(cells[index]);
  }
  return out;
}

}  // namespace

TEST_CASE("scenarios: plan --html and --csv hedge a front of the layouts simulated as the text does", "[scenarios]") {
  // GB200 UltraServers beat every p5 layout on time, so the p5 ones are skipped: the front is the
  // one of the layouts simulated, and a p5 layout the search never ran may be cheaper.
  const auto dir = scenarios_test::fresh_temp_dir("plan-page");
  const std::vector<std::string> args = {
      "plan",         kPlan8b,    "--gpus",          "64..144", "--instances", "p5.48xlarge,u-p6e-gb200x72",
      "--strategies", "megatron", "--micro-batches", "1",       "--cp",        "1",
      "--jobs",       "2"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> a = args;
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  };
  const auto hedged =
      run_commsim(with({"--html", (dir / "hedged.html").string(), "--csv", (dir / "hedged.csv").string()}));
  INFO(hedged.err);
  REQUIRE(hedged.exit_code == 0);
  const std::string page = unescaped(scenarios_test::slurp(dir / "hedged.html"));
  const std::string heading = line_starting(hedged.out, "Pareto front among the ");
  REQUIRE(!heading.empty());
  // The page's chart says the text's heading (less its colon), never "no other layout is both faster".
  CHECK(page.find("the line joins the " + heading.substr(0, heading.size() - 1) + ".") != std::string::npos);
  CHECK(page.find("no other layout") == std::string::npos);
  CHECK(page.find("Pareto (of the simulated)") != std::string::npos);
  // The text's warnings are on the page, word for word.
  for (const char* prefix : {"not searched: ", "near-tie: ", "why #1 wins over #2: "}) {
    const std::string line = line_starting(hedged.out, prefix);
    INFO(prefix);
    REQUIRE(!line.empty());
    CHECK(page.find(line) != std::string::npos);
  }
  // The CSV: every row's front_exact is false beside its pareto.
  const auto exact_cells = csv_column(scenarios_test::slurp(dir / "hedged.csv"), "front_exact");
  REQUIRE(exact_cells.size() > 1);
  for (const auto& cell : exact_cells) CHECK(cell == "false");

  const auto exact = run_commsim(
      with({"--pareto-exact", "--html", (dir / "exact.html").string(), "--csv", (dir / "exact.csv").string()}));
  REQUIRE(exact.exit_code == 0);
  const std::string exact_page = unescaped(scenarios_test::slurp(dir / "exact.html"));
  CHECK(exact_page.find("the line joins the Pareto front (time vs cost, no other layout both faster and cheaper).") !=
        std::string::npos);
  CHECK(exact_page.find("not searched") == std::string::npos);
  for (const auto& cell : csv_column(scenarios_test::slurp(dir / "exact.csv"), "front_exact")) CHECK(cell == "true");
  fs::remove_all(dir);
}

TEST_CASE("scenarios: plan's near-tie names the tied row that costs far less, in the text and on the page",
          "[scenarios]") {
  // The same GB200 rack rented two ways: on demand, or as a Capacity Block paid for a whole day.
  // The two fastest rows are the same layout, within the model's error, 31x apart in cost (Azure's
  // rack billed for the 16 VMs of 4 GPUs the 64 GPUs need).
  const auto dir = scenarios_test::fresh_temp_dir("plan-tie");
  const auto r = run_commsim({"plan", kPlan8b, "--gpus", "64..72", "--instances", "u-p6e-gb200x72,nd-gb200-v6-nvl72",
                              "--strategies", "megatron", "--micro-batches", "1", "--cp", "1", "--jobs", "2", "--top",
                              "3", "--html", (dir / "tie.html").string()});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const std::string tie = line_starting(r.out, "near-tie: ");
  CHECK(tie.find("the model does not order them; choose on cost first (#2 costs 31.0x less than #1: $589.02 "
                 "against $18,286), then on what else differs") != std::string::npos);
  CHECK(unescaped(scenarios_test::slurp(dir / "tie.html")).find(tie) != std::string::npos);
  // The price block says how each rack is sold and what the catalog knows of its figure.
  const std::string azure = line_starting(r.out, "nd-gb200-v6-nvl72      $");
  CHECK(azure.find("(sold per VM of 4 GPUs: a row on part of the node pays the VMs its GPUs need) [One source]") !=
        std::string::npos);
  CHECK(line_starting(r.out, "u-p6e-gb200x72        $").find("One source]") != std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("scenarios: a memory-tight row on the Pareto front carries the table's '!' and its footnote", "[scenarios]") {
  // At 2,304 tokens a sequence, ranked by cost, the 16-GPU p5 row #17 is on the front with 1.12 GB
  // left; the table's 10 rows have room, so the footnote that says what '!' means follows the front.
  const auto r =
      run_commsim({"plan", kPlan8b, "--gpus", "8..16", "--instances", "p5.48xlarge,p5e.48xlarge", "--strategies",
                   "megatron", "--objective", "cost", "--set", "model.seq=2304", "--jobs", "2"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const std::string front = r.out.substr(r.out.find("\nPareto front"));
  const std::string row = line_starting(front, "#17 ");
  CHECK(row.find("1.12 GB! headroom") != std::string::npos);
  CHECK(front.find("\n(! under 5 % of the GPU's memory left") != std::string::npos);
  // The table does not show it, so the footnote is printed once, under the front.
  CHECK(r.out.find("(! under 5 %") == r.out.rfind("(! under 5 %"));
  // Every front row states its headroom.
  CHECK(line_starting(front, "#1 ").find("18.22 GB headroom") != std::string::npos);
}

TEST_CASE("scenarios: plan --html prints goodput and MFU to the text's tenth of a percent", "[scenarios]") {
  const auto dir = scenarios_test::fresh_temp_dir("plan-tenths");
  const auto r = run_commsim({"plan", kPlan8b, "--gpus", "64..72", "--instances", "u-p6e-gb200x72", "--strategies",
                              "megatron", "--micro-batches", "1", "--cp", "1", "--jobs", "2", "--top", "3", "--html",
                              (dir / "tenths.html").string()});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  // Row 1 of the table: rank, time (two words), goodput, cost, pricing, tokens/s, MFU.
  std::istringstream row(line_starting(r.out, "1 "));
  std::string rank, time, unit, goodput, cost, pricing, tokens, mfu;
  row >> rank >> time >> unit >> goodput >> cost >> pricing >> tokens >> mfu;
  REQUIRE(goodput.find('.') != std::string::npos);
  REQUIRE(mfu.find('.') != std::string::npos);
  const std::string page = scenarios_test::slurp(dir / "tenths.html");
  CHECK(page.find("<td>" + goodput + "</td><td>") != std::string::npos);
  CHECK(page.find("</td><td>" + mfu + "</td><td>") != std::string::npos);
  fs::remove_all(dir);
}
