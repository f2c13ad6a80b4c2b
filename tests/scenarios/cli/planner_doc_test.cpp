// docs/planner.md's examples run: every `build/scenarios/commsim ...` line of its "Examples"
// section (before the README question, which takes minutes) exits 0 and prints something.
#include <catch2/catch.hpp>

#include <sstream>
#include <string>
#include <vector>

#include "tests/scenarios/command_runner.hpp"

TEST_CASE("scenarios: docs/planner.md's examples run", "[scenarios]") {
  const std::string src = COMMSIM_SOURCE_DIR;
  const std::string doc = scenarios_test::slurp(src + "/docs/planner.md");
  const auto from = doc.find("## Examples");
  const auto to = doc.find("The question of the README", from);
  REQUIRE(from != std::string::npos);
  REQUIRE(to != std::string::npos);
  std::istringstream lines(doc.substr(from, to - from));
  int ran = 0;
  const std::string binary = "build/scenarios/commsim ";
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(binary, 0) != 0) continue;
    std::istringstream words(line.substr(binary.size()));
    std::vector<std::string> args;
    for (std::string w; words >> w;)
      args.push_back(w.find('/') != std::string::npos && w.front() != '-' ? src + "/" + w : w);
    const auto r = scenarios_test::run_commsim(args);
    INFO(line << "\n" << r.err);
    CHECK(r.exit_code == 0);
    CHECK(!r.out.empty());
    ++ran;
  }
  CHECK(ran == 5);
}
