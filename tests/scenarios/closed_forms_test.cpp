// Rank classes (models/workload/symmetry.hpp) and closed forms (sim::FlowNetwork::start_block, used
// by every collective and send/recv whose links are idle) change the cost of a run, never its
// result: every shipped and validation scenario's `run --json` is identical with and without
// --full (every rank and flow simulated), apart from the number of events simulated and the note
// saying which mode ran; compared as text, every digit. Covers ring, tree, PAT, broadcast/reduce chains, all-to-all and
// pipeline send/recv on NVLink, PCIe, EFA, IB and socket paths, with offload copies contending.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

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
// The JSON without the events count and the note on the mode (symmetry / --full).
std::string comparable(const std::string& out) {
  auto j = nlohmann::json::parse(out);
  j.erase("events");
  auto& notes = j["notes"];
  for (auto it = notes.begin(); it != notes.end();) {
    const auto text = it->get<std::string>();
    if (text.rfind("symmetry: ", 0) == 0 || text.rfind("full simulation (--full)", 0) == 0)
      it = notes.erase(it);
    else
      ++it;
  }
  return j.dump(1);
}
}  // namespace

TEST_CASE("scenarios: rank classes and closed forms give the full simulation's run --json, events and mode note apart",
          "[scenarios]") {
  const auto paths = runnable_scenarios();
  REQUIRE(paths.size() >= 30);
  int fewer_events = 0, symmetric = 0;
  for (const auto& p : paths) {
    INFO(p.string());
    const auto closed = run_commsim({"run", p.string(), "--json"});
    const auto full = run_commsim({"run", p.string(), "--json", "--full"});
    REQUIRE(closed.exit_code == full.exit_code);
    if (closed.exit_code != 0) continue;  // a scenario that is refused is refused both ways
    CHECK(comparable(closed.out) == comparable(full.out));
    const auto a = nlohmann::json::parse(closed.out), b = nlohmann::json::parse(full.out);
    if (a["events"] < b["events"]) ++fewer_events;
    for (const auto& note : a["notes"])
      if (note.get<std::string>().rfind("symmetry: ", 0) == 0) ++symmetric;
  }
  CHECK(fewer_events >= 15);  // the closed forms did run
  CHECK(symmetric >= 5);      // and rank classes
}
