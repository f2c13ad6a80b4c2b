// Nodes simulated once (models/scale/step/replicas.hpp alike_nodes_fold, collectives/node_orbits.cpp):
// ZeRO-3 with CPU offload, whose copies share each node's host links, gives the full simulation's
// `run --json` (every digit printed, apart from the events count and the note on the mode) whether
// every node is alike (one simulated), some are not (a slow GPU, a slow node's NICs: mixed nodes;
// every rank simulated, the note saying why), the pods split nodes oddly, a shared fabric carries
// the rings (the engine's check abandons the fold) or the tuner picks a tree.
#include <catch2/catch.hpp>

#include <fstream>
#include <random>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/scenarios/scale/both_modes.hpp"
#include "tests/scenarios/command_runner.hpp"
#include "tests/scenarios/scale/mode_free_json.hpp"

using scenarios_test::run_commsim;

namespace {

struct Case {
  std::string instance = "p4d.24xlarge";
  int nodes = 3, pods_per_node = 1, grad_accum = 2;
  bool overlap_comm = true, offload_param = true, offload_optimizer = true;
  std::string fabric;      // "" (non-blocking) or a [cluster.fabric] body
  std::string stragglers;  // [[stragglers]] tables
};

std::string toml(const Case& c) {
  std::string s =
      "name = \"node orbits\"\n[cluster]\ninstance = \"" + c.instance + "\"\nnodes = " + std::to_string(c.nodes) + "\n";
  if (!c.fabric.empty()) s += "[cluster.fabric]\n" + c.fabric;
  s += "[placement]\npods_per_node = " + std::to_string(c.pods_per_node) +
       "\ngpus_per_pod = " + std::to_string(8 / c.pods_per_node) + "\n";
  s += c.stragglers;
  s += "[model]\npreset = \"sc21-1.7b\"\nseq = 512\n[training]\nmicro_batch = 1\ndtype = \"bf16\"\n";
  s += "grad_accum = " + std::to_string(c.grad_accum) + "\ngrad_checkpointing = true\n";
  s += "[parallel]\nstrategy = \"zero3\"\n[zero]\nstage = 3\noverlap_comm = " +
       std::string(c.overlap_comm ? "true" : "false") + "\noffload_param = \"" + (c.offload_param ? "cpu" : "none") +
       "\"\noffload_optimizer = \"" + (c.offload_optimizer ? "cpu" : "none") + "\"\n";
  return s;
}

enum class Mode { Nodes, Abandoned, Other };

// Runs the case both ways, checks the results agree, and says which mode the default run took.
Mode run_both(const Case& c, std::string* note = nullptr) {
  const auto [a, b] = run_default_and_full(toml(c), "node-orbits");
  Mode mode = Mode::Other;
  for (const auto& n : a["notes"]) {
    const auto text = n.get<std::string>();
    if (text.find("alike nodes simulated") != std::string::npos) mode = Mode::Nodes;
    if (text.find("nodes simulated once abandoned") != std::string::npos) mode = Mode::Abandoned;
    if (note && text.rfind("symmetry: ", 0) == 0) *note = text;
  }
  if (mode == Mode::Nodes) CHECK(a["events"] < b["events"]);
  return mode;
}

}  // namespace

TEST_CASE("scenarios: alike nodes of a ZeRO-3 offload step are simulated once, with the full simulation's result",
          "[scenarios]") {
  std::string note;
  Case c;  // 3 x p4d, 24 ranks
  CHECK(run_both(c, &note) == Mode::Nodes);
  CHECK(note.rfind("symmetry: 1 of 3 alike nodes simulated (8 of 24 ranks)", 0) == 0);
  c.instance = "p5.48xlarge";  // 4 pods of 2 GPUs per node
  c.pods_per_node = 4;
  c.nodes = 2;
  CHECK(run_both(c, &note) == Mode::Nodes);
  c = Case{};  // offload of the optimizer only: the updated parameters go back host -> GPU
  c.offload_param = false;
  c.overlap_comm = false;
  CHECK(run_both(c, &note) == Mode::Nodes);
}

// Without offload, rank classes simulate one rank; the collectives' flows are still node orbits.
TEST_CASE("scenarios: without offload, rank classes and node orbits give the full simulation's result", "[scenarios]") {
  std::string note;
  Case c;
  c.offload_param = c.offload_optimizer = false;
  CHECK(run_both(c, &note) == Mode::Other);
  CHECK(note ==
        "symmetry: 1 of 24 ranks simulated, each for the ranks with its program and communicators; the collectives' "
        "flows of 1 of 3 alike nodes, each for its images on every node, checked at the collective's first launch "
        "(--full: all)");
  c.stragglers = "[[stragglers]]\nnode = 1\nnic_bandwidth_factor = 0.5\n";  // nodes unlike: rank classes alone
  CHECK(run_both(c, &note) == Mode::Other);
  CHECK(note.find("alike nodes") == std::string::npos);
}

TEST_CASE("scenarios: ZeRO-3 offload on unlike nodes or a shared fabric is simulated in full, the same",
          "[scenarios]") {
  std::string note;
  Case c;
  c.stragglers = "[[stragglers]]\nranks = [13]\ncompute_slowdown = 1.2\n";  // a slow GPU
  CHECK(run_both(c, &note) == Mode::Other);
  CHECK(note ==
        "symmetry: every rank simulated (nodes simulated once: rank 13 computes at 1.2 x, rank 5 (its place on node 0) "
        "at 1 x)");
  c.stragglers = "[[stragglers]]\nnode = 2\nnic_bandwidth_factor = 0.5\n";  // a slow node's NICs
  CHECK(run_both(c, &note) == Mode::Other);
  CHECK(note.find("nodes simulated once: node2/") != std::string::npos);
  c.stragglers.clear();  // rings across an oversubscribed fat tree: links of no node
  c.fabric = "topology = \"fat_tree\"\npod_nodes = 1\noversubscription = 2\n";
  CHECK(run_both(c, &note) == Mode::Abandoned);
  CHECK(note.find("a link of no node") != std::string::npos);
  c = Case{};
  c.nodes = 1;  // one node: nothing to fold
  CHECK(run_both(c, &note) == Mode::Other);
}

// Random instances, pod layouts, node counts, offload settings, fabrics and stragglers: whatever
// mode runs, the result is the full simulation's.
TEST_CASE("scenarios: random ZeRO-3 offload layouts and stragglers give the full simulation's result either way",
          "[scenarios]") {
  int nodes = 0;
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    INFO("seed " << seed);
    std::mt19937_64 rng(seed);
    auto pick = [&](int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng); };
    Case c;
    c.instance = pick(2) ? "p4d.24xlarge" : "p5.48xlarge";
    c.nodes = 2 + pick(4);
    const int pods[] = {1, 2, 4};
    c.pods_per_node = pods[pick(3)];
    c.grad_accum = 1 + pick(2);
    c.overlap_comm = pick(4) != 0;
    c.offload_param = pick(3) != 0;
    c.offload_optimizer = !c.offload_param || pick(3) != 0;
    if (pick(5) == 0)
      c.fabric =
          "topology = \"fat_tree\"\npod_nodes = " + std::to_string(1 + pick(c.nodes)) + "\noversubscription = 2\n";
    switch (pick(5)) {
      case 1:
        c.stragglers = "[[stragglers]]\nranks = [" + std::to_string(pick(8 * c.nodes)) + "]\ncompute_slowdown = 1.3\n";
        break;
      case 2:
        c.stragglers = "[[stragglers]]\nnode = " + std::to_string(pick(c.nodes)) + "\nnic_bandwidth_factor = 0.7\n";
        break;
      case 3:
        c.stragglers = "[[stragglers]]\nnode = " + std::to_string(pick(c.nodes)) + "\ncompute_slowdown = 1.1\n";
        break;
      default: break;
    }
    nodes += run_both(c) == Mode::Nodes;
  }
  CHECK(nodes >= 3);  // the fold did run on some of them
}
