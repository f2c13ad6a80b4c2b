// Every page's console examples (docs/*.md) are what the program prints: each ```console block starts with
// "$ build/scenarios/commsim ARGS"; every other line of the block (but "...", which skips) must be
// a line of that command's output, in the same order; a line ending in " ..." is the start of one. A model change that
// moves a number fails here until the page follows.
#include <catch2/catch.hpp>

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "tests/scenarios/command_runner.hpp"

namespace fs = std::filesystem;

namespace {
const fs::path kSourceOfConsoleDocs = COMMSIM_SOURCE_DIR;

struct Example {
  std::vector<std::string> args;
  std::vector<std::string> lines;
};

std::vector<Example> console_blocks(const std::string& doc) {
  std::vector<Example> out;
  for (std::size_t at = doc.find("```console\n"); at != std::string::npos; at = doc.find("```console\n", at)) {
    const std::size_t from = at + 11, close = doc.find("```", from);
    REQUIRE(close != std::string::npos);
    std::istringstream block(doc.substr(from, close - from));
    std::string first;
    std::getline(block, first);
    const std::string prompt = "$ build/scenarios/commsim ";
    REQUIRE(first.rfind(prompt, 0) == 0);
    Example e;
    std::istringstream words(first.substr(prompt.size()));
    for (std::string w; words >> w;)  // paths relative to the repository, made absolute
      e.args.push_back(w.size() > 5 && w.ends_with(".toml") ? (kSourceOfConsoleDocs / w).string() : w);
    for (std::string l; std::getline(block, l);) e.lines.push_back(l);
    out.push_back(std::move(e));
    at = close + 3;
  }
  return out;
}
}  // namespace

TEST_CASE("docs: every console example prints what the page shows", "[scenarios][goodput]") {
  std::vector<Example> examples;
  for (const auto& page : fs::directory_iterator(kSourceOfConsoleDocs / "docs")) {
    if (page.path().extension() != ".md") continue;
    auto found = console_blocks(scenarios_test::slurp(page.path()));
    examples.insert(examples.end(), found.begin(), found.end());
  }
  REQUIRE(examples.size() >= 4);  // goodput.md's two, scenario-format.md's two
  for (const auto& e : examples) {
    std::string shown;
    for (const auto& a : e.args) shown += a + " ";
    INFO("commsim " << shown);
    const auto r = scenarios_test::run_commsim(e.args);
    REQUIRE(r.exit_code == 0);
    std::istringstream out(r.out);
    std::vector<std::string> printed;
    for (std::string l; std::getline(out, l);) printed.push_back(l);
    std::size_t next = 0;
    for (const auto& want : e.lines) {
      if (want == "..." || want.empty()) continue;
      INFO("expected line: " << want);
      const bool prefix = want.size() > 4 && want.ends_with(" ...");
      const std::string head = prefix ? want.substr(0, want.size() - 3) : want;
      auto matches = [&](const std::string& line) { return prefix ? line.rfind(head, 0) == 0 : line == want; };
      while (next < printed.size() && !matches(printed[next])) ++next;
      CHECK(next < printed.size());
      if (next == printed.size()) break;
      ++next;
    }
  }
}
