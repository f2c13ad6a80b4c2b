// Closed forms (sim::FlowNetwork::start_block, used by every collective and send/recv whose links
// are idle) change the cost of a run, never its result: every shipped and validation scenario's
// `run --json` is byte-identical with and without --full (which starts every flow), apart from
// the number of events simulated. Covers ring, tree, PAT, broadcast/reduce chains, all-to-all and
// pipeline send/recv on NVLink, PCIe, EFA, IB and socket paths, with offload copies contending.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <string>
#include <vector>

#include "tests/scenarios/command_runner.hpp"

namespace fs = std::filesystem;
using scenarios_test::run_commsim;

namespace {
std::vector<fs::path> runnable_scenarios() {
  std::vector<fs::path> out;
  for (const auto& e : fs::recursive_directory_iterator(fs::path(COMMSIM_SOURCE_DIR) / "scenarios")) {
    if (e.path().extension() != ".toml") continue;
    std::ifstream in(e.path());
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (std::regex_search(text, std::regex(R"(^\[(model|collective)\])", std::regex::multiline)))
      out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}
std::string without_events(const std::string& json) {
  return std::regex_replace(json, std::regex(R"("events": [0-9]+)"), R"("events": _)");
}
}  // namespace

TEST_CASE("scenarios: closed forms give the full simulation's run --json byte for byte, events apart", "[scenarios]") {
  const auto paths = runnable_scenarios();
  REQUIRE(paths.size() >= 30);
  int fewer_events = 0;
  for (const auto& p : paths) {
    INFO(p.string());
    const auto closed = run_commsim({"run", p.string(), "--json"});
    const auto full = run_commsim({"run", p.string(), "--json", "--full"});
    REQUIRE(closed.exit_code == full.exit_code);
    if (closed.exit_code != 0) continue;  // a scenario that is refused is refused both ways
    CHECK(without_events(closed.out) == without_events(full.out));
    if (closed.out != full.out) ++fewer_events;
  }
  CHECK(fewer_events >= 15);  // the closed forms did run
}
