// Rank classes (models/scale/step/rank_classes.hpp), data-parallel replicas simulated once
// (models/scale/step/replicas.hpp) and closed forms (sim::FlowNetwork::start_block, used
// by every collective and send/recv whose links are idle) change the cost of a run, never its
// result: every shipped and validation scenario's `run --json` is identical with and without
// --full (every rank and flow simulated), apart from the number of events simulated and the note
// saying which mode ran; compared as text, every digit the JSON prints (9 significant;
// tests/models/scale/step/rank_classes_test.cpp compares the accounts as doubles). Covers ring, tree, PAT, broadcast/reduce
// chains, all-to-all and pipeline send/recv on NVLink, PCIe, EFA, IB and socket paths, with offload copies contending.
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
#include "tests/scenarios/scale/mode_free_json.hpp"

namespace fs = std::filesystem;
using scenarios_test::run_commsim;

namespace {
std::vector<fs::path> runnable_scenarios_fold_equals_full() {
  std::vector<fs::path> out;
  for (const auto& e : fs::recursive_directory_iterator(fs::path(COMMSIM_SOURCE_DIR) / "scenarios")) {
    if (e.path().extension() != ".toml") continue;
    std::ifstream in(e.path());
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    // Rows marked "# long:" take minutes to simulate (twice here, once with --full): they run in
    // the long test only (ctest -L long). Rows marked "# full: skip" run approximate folds (ECMP
    // orbits: tests/scenarios/scale/ecmp_orbits_test.cpp bounds them against --full on small pod
    // fabrics) and take minutes with --full.
    if (std::regex_search(text, std::regex(R"(^\[(model|collective)\])", std::regex::multiline)) &&
        !std::regex_search(text, std::regex(R"(^# (long:|full: skip))", std::regex::multiline)))
      out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}
}  // namespace

TEST_CASE("scenarios: rank classes and closed forms give the full simulation's run --json, events and mode note apart",
          "[scenarios]") {
  const auto paths = runnable_scenarios_fold_equals_full();
  REQUIRE(paths.size() >= 30);
  int fewer_events = 0, symmetric = 0, replicas = 0, nodes = 0;
  for (const auto& p : paths) {
    INFO(p.string());
    const auto closed = run_commsim({"run", p.string(), "--json"});
    const auto full = run_commsim({"run", p.string(), "--json", "--full"});
    REQUIRE(closed.exit_code == full.exit_code);
    if (closed.exit_code != 0) continue;  // a scenario that is refused is refused both ways
    CHECK(mode_free_json(nlohmann::json::parse(closed.out)) == mode_free_json(nlohmann::json::parse(full.out)));
    const auto a = nlohmann::json::parse(closed.out), b = nlohmann::json::parse(full.out);
    if (a["events"] < b["events"]) ++fewer_events;
    for (const auto& note : a["notes"]) {
      if (note.get<std::string>().rfind("symmetry: ", 0) == 0) ++symmetric;
      if (note.get<std::string>().find("data-parallel replicas simulated") != std::string::npos) ++replicas;
      if (note.get<std::string>().find(" alike nodes") != std::string::npos) ++nodes;
    }
  }
  CHECK(fewer_events >= 15);  // the closed forms did run
  CHECK(symmetric >= 5);      // and rank classes
  CHECK(replicas >= 3);       // and Megatron's replicas simulated once (sc21_39b, _76b, _145b, ...)
  CHECK(nodes >= 3);  // and node orbits: alike nodes simulated once (p4d_4node_zero3_offload), or the collectives'
                      // flows of one node beside rank classes (p4d_2node_nvlink_waits_efa, p4d_nodes_allreduce)
}

// [[stragglers]] make ranks unequal: a slow GPU (compute_slowdown on one rank and on a node) is a
// rank class of its own, and a slow node's NICs (nic_bandwidth_factor) change link capacities that
// every collective's flows see, remembered closed forms included; comm.overlap_slowdown scales the
// flows of a collective launched beside compute, which then neither uses nor names a remembered
// closed form. The result is still the full simulation's, every digit printed.
TEST_CASE("scenarios: stragglers, slow NICs and comm beside compute give the full simulation's run --json",
          "[scenarios]") {
  const auto dir = scenarios_test::fresh_temp_dir("stragglers-full");
  const auto path = dir / "s.toml";
  std::ofstream(path) << R"(name = "p4d x 2, fat-tree 2:1, stragglers"
[cluster]
instance = "p4d.24xlarge"
nodes = 2
[cluster.fabric]
topology = "fat_tree"
pod_nodes = 1
oversubscription = 2
[cluster.params]
"comm.overlap_slowdown" = 0.2
[placement]
pods_per_node = 1
gpus_per_pod = 8
nics_per_pod = 4
[[stragglers]]
ranks = [5]
compute_slowdown = 1.3
[[stragglers]]
node = 1
compute_slowdown = 1.1
nic_bandwidth_factor = 0.5
[model]
preset = "llama-3-8b"
seq = 2048
[training]
micro_batch = 1
grad_accum = 2
grad_checkpointing = true
[parallel]
strategy = "zero3"
[zero]
stage = 3
overlap_comm = true
)";
  const auto closed = run_commsim({"run", path.string(), "--json"});
  const auto full = run_commsim({"run", path.string(), "--json", "--full"});
  REQUIRE(closed.exit_code == 0);
  REQUIRE(full.exit_code == 0);
  CHECK(mode_free_json(nlohmann::json::parse(closed.out)) == mode_free_json(nlohmann::json::parse(full.out)));
  const auto a = nlohmann::json::parse(closed.out), b = nlohmann::json::parse(full.out);
  // Three classes: rank 5 (1.3), node 1's ranks 8-15 (1.1 and slow NICs), ranks 0-4, 6, 7.
  bool three = false;
  for (const auto& note : a["notes"])
    three |= note.get<std::string>().rfind("symmetry: 3 of 16 ranks simulated", 0) == 0;
  CHECK(three);
  CHECK(a["events"] < b["events"]);
  // The stragglers did act: rank 5 waits for nobody, rank 0 waits for it.
  CHECK(a["ranks"][0]["barrier_wait_s"].get<double>() > a["ranks"][5]["barrier_wait_s"].get<double>());
}

// [[stragglers]] link = "..." (models/world/link_stragglers.hpp): one GPU's NVLink port and one
// pod's fabric uplink slowed change capacities and latencies that rank classes do not look at
// (ranks of one communicator still finish each collective together) but every flow, closed form
// and remembered block sees; send/recv-free ZeRO-3 then runs in classes, the result the full
// simulation's, every digit printed.
TEST_CASE("scenarios: slow links (an NVLink port, a fabric uplink) give the full simulation's run --json",
          "[scenarios]") {
  const auto dir = scenarios_test::fresh_temp_dir("link-stragglers-full");
  const auto path = dir / "s.toml";
  std::ofstream(path) << R"(name = "p4d x 4, fat-tree 2:1, slow links"
[cluster]
instance = "p4d.24xlarge"
nodes = 4
[cluster.fabric]
topology = "fat_tree"
pod_nodes = 2
oversubscription = 2
[[stragglers]]
link = "node1/gpu5/nvlink.tx"
bandwidth_factor = 0.5
latency_factor = 2
[[stragglers]]
link = "fabric/pod1/up"
bandwidth_factor = 0.5
[model]
preset = "llama-3-8b"
seq = 2048
layers = 4
[training]
micro_batch = 1
grad_accum = 2
grad_checkpointing = true
[parallel]
strategy = "zero3"
)";
  const auto closed = run_commsim({"run", path.string(), "--json"});
  const auto full = run_commsim({"run", path.string(), "--json", "--full"});
  REQUIRE(closed.exit_code == 0);
  REQUIRE(full.exit_code == 0);
  const auto a = nlohmann::json::parse(closed.out), b = nlohmann::json::parse(full.out);
  CHECK(mode_free_json(a) == mode_free_json(b));
  CHECK(a["events"] < b["events"]);
  // The slow links did act: the step costs more than without them (run/stragglers.hpp).
  REQUIRE(a.contains("straggler_free_step_s"));
  CHECK(a["step_time_s"].get<double>() > a["straggler_free_step_s"].get<double>());
  fs::remove_all(dir);
}
