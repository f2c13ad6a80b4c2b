// Data-parallel replicas simulated once (models/scale/step/replicas.hpp) give the full simulation's
// `run --json` (every digit printed, apart from the events count and the note on the mode), whether
// the replicas are alike, some are apart (a slow GPU, a slow node's NICs: mixed nodes), an odd
// number, share nodes (folded as blocks of replicas), the fold does not apply (replicas sharing
// nodes with no block of whole nodes) or its guard abandons it (a
// replica's own traffic meeting data-parallel traffic: replica orbits, or on pods every replica);
// the run's notes say which mode ran.
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

struct ReplicasCase {
  std::string instance = "p4d.24xlarge";
  int nodes = 4, tp = 8, pp = 2, micro_batches = 4;
  bool overlap_grad_reduce = false, distributed_optimizer = false;
  std::string fabric;      // "" (non-blocking) or a [cluster.fabric] body
  std::string stragglers;  // [[stragglers]] tables
};

std::string toml_replicas(const ReplicasCase& c) {
  std::string s =
      "name = \"replicas\"\n[cluster]\ninstance = \"" + c.instance + "\"\nnodes = " + std::to_string(c.nodes) + "\n";
  if (!c.fabric.empty()) s += "[cluster.fabric]\n" + c.fabric;
  s += "[placement]\npods_per_node = 1\ngpus_per_pod = 8\n";
  s += c.stragglers;
  s += "[model]\npreset = \"sc21-1.7b\"\nseq = 512\n[training]\nmicro_batch = 1\ndtype = \"bf16\"\n";
  s += "[parallel]\nstrategy = \"megatron\"\ntp = " + std::to_string(c.tp) + "\npp = " + std::to_string(c.pp) +
       "\nmicro_batches = " + std::to_string(c.micro_batches) + "\nsequence_parallel = true\n" +
       "distributed_optimizer = " + (c.distributed_optimizer ? "true" : "false") +
       "\noverlap_grad_reduce = " + (c.overlap_grad_reduce ? "true" : "false") + "\n";
  return s;
}

enum class ReplicasMode { Replicas, Abandoned, Other };

// Runs the case both ways, checks the results agree, and says which mode the default run took.
ReplicasMode run_both_replicas(const ReplicasCase& c, std::string* note = nullptr) {
  const auto [a, b] = run_default_and_full(toml_replicas(c), "replicas");
  ReplicasMode mode = ReplicasMode::Other;
  for (const auto& n : a["notes"]) {
    const auto text = n.get<std::string>();
    if (text.find("data-parallel replicas simulated") != std::string::npos) mode = ReplicasMode::Replicas;
    if (text.find("replicas simulated once abandoned") != std::string::npos) mode = ReplicasMode::Abandoned;
    if (note && text.rfind("symmetry: ", 0) == 0) *note = text;
  }
  if (mode == ReplicasMode::Replicas) CHECK(a["events"] < b["events"]);
  return mode;
}

}  // namespace

TEST_CASE("scenarios: alike Megatron replicas are simulated once, with the full simulation's result", "[scenarios]") {
  std::string note;
  ReplicasCase c;  // TP 8 x PP 2 x DP 2 on 4 x p4d
  CHECK(run_both_replicas(c, &note) == ReplicasMode::Replicas);
  CHECK(note.rfind("symmetry: 1 of 2 data-parallel replicas simulated (16 of 32 ranks)", 0) == 0);
  c.nodes = 6;  // DP 3, a slow GPU in replica 1: two kinds of replicas
  c.stragglers = "[[stragglers]]\nranks = [12]\ncompute_slowdown = 1.2\n";
  CHECK(run_both_replicas(c, &note) == ReplicasMode::Replicas);
  CHECK(note.rfind("symmetry: 2 of 3 data-parallel replicas simulated (32 of 48 ranks)", 0) == 0);
  CHECK(note.find("replica 1 apart: rank 12 computes at 1.2 x, rank 4 of replica 0 at 1 x") != std::string::npos);
  // The slow GPU in replica 0: the note names it, not the healthy rank it is compared with.
  c.stragglers = "[[stragglers]]\nranks = [4]\ncompute_slowdown = 1.2\n";
  CHECK(run_both_replicas(c, &note) == ReplicasMode::Replicas);
  CHECK(note.find("replica 1 apart: rank 12 computes at 1 x, rank 4 of replica 0 at 1.2 x") != std::string::npos);
  // A slow node's NICs (node 5: stage 1 of replica 2) make another kind of node.
  c.stragglers = "[[stragglers]]\nnode = 5\nnic_bandwidth_factor = 0.5\n";
  CHECK(run_both_replicas(c, &note) == ReplicasMode::Replicas);
  CHECK(note.find("replica 2 apart: node5/") != std::string::npos);
  // A slow link (models/world/link_stragglers.hpp): node 3's GPU 2 NVLink port at 60 %, twice
  // the latency (node 3 holds stage 1 of replica 0): replicas 1 and 2 are another kind than 0.
  c.stragglers = "[[stragglers]]\nlink = \"node3/gpu2/nvlink.tx\"\nbandwidth_factor = 0.6\nlatency_factor = 2\n";
  CHECK(run_both_replicas(c, &note) == ReplicasMode::Replicas);
  CHECK(note.rfind("symmetry: 2 of 3 data-parallel replicas simulated", 0) == 0);
  CHECK(note.find("replica 1 apart: node4/gpu2/nvlink.tx differs from node3/gpu2/nvlink.tx") != std::string::npos);
  // The same slowdown on every node's GPU 2 port: replicas alike again, one simulated.
  c.stragglers = "[[stragglers]]\nlink = \"node*/gpu2/nvlink.tx\"\nbandwidth_factor = 0.6\n";
  CHECK(run_both_replicas(c, &note) == ReplicasMode::Replicas);
  CHECK(note.rfind("symmetry: 1 of 3 data-parallel replicas simulated", 0) == 0);
}

TEST_CASE("scenarios: Megatron replicas that share nodes or whose traffic meets are simulated in full, the same",
          "[scenarios]") {
  std::string note;
  ReplicasCase c;
  c.nodes = 2;  // TP 4 x PP 2 x DP 2: both replicas on both nodes
  c.tp = 4;
  CHECK(run_both_replicas(c, &note) == ReplicasMode::Other);
  // Gradient buckets reduced during the last backward, beside the pipeline's gradient sends on
  // the same NICs: the guard abandons the fold, and the replicas run again with their
  // data-parallel collectives as orbits (tests/scenarios/scale/replica_orbits_test.cpp).
  c = ReplicasCase{};
  c.nodes = 6;
  c.overlap_grad_reduce = true;
  c.distributed_optimizer = true;
  CHECK(run_both_replicas(c, &note) == ReplicasMode::Replicas);
  CHECK(note.find("and the data-parallel collectives' flows leaving it") != std::string::npos);
}

// Replicas that share nodes (TP 4 or 2 below a node's 8 GPUs: Megatron's rank order puts 8 / tp
// consecutive replicas on one node) fold as blocks of 8 / tp replicas (replicas.hpp,
// node_whole_replicas), each block holding whole nodes: TP 4 x PP 2 x DP 4 on 4 nodes is 2 blocks
// of 2 replicas (16 ranks each), TP 2 x PP 2 x DP 8 on 4 nodes 2 blocks of 4; with the gradient
// buckets reduced during the backward, the guard gives up and replica orbits run the blocks.
TEST_CASE("scenarios: Megatron replicas that share nodes fold as blocks of whole nodes, the full simulation's result",
          "[scenarios]") {
  std::string note;
  ReplicasCase c;
  c.nodes = 4;
  c.tp = 4;
  CHECK(run_both_replicas(c, &note) == ReplicasMode::Replicas);
  CHECK(note.rfind("symmetry: 1 of 2 blocks of 2 data-parallel replicas simulated (16 of 32 ranks)", 0) == 0);
  c.tp = 2;
  CHECK(run_both_replicas(c, &note) == ReplicasMode::Replicas);
  CHECK(note.rfind("symmetry: 1 of 2 blocks of 4 data-parallel replicas simulated (16 of 32 ranks)", 0) == 0);
  c.tp = 4;
  c.overlap_grad_reduce = true;
  c.distributed_optimizer = true;
  CHECK(run_both_replicas(c, &note) == ReplicasMode::Replicas);
  CHECK(note.find("and the data-parallel collectives' flows leaving it") != std::string::npos);
}

// Random layouts, placements, fabrics and stragglers: whatever mode runs, the result is the full
// simulation's.
TEST_CASE("scenarios: random Megatron layouts and stragglers give the full simulation's result either way",
          "[scenarios]") {
  int replicas = 0;
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    INFO("seed " << seed);
    std::mt19937_64 rng(seed);
    auto pick = [&](int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng); };
    ReplicasCase c;
    c.instance = pick(2) ? "p4d.24xlarge" : "p5.48xlarge";
    // TP 8 gives each replica whole nodes; TP 4 makes replicas share nodes (not applicable).
    const int layouts[][2] = {{8, 1}, {8, 2}, {8, 4}, {8, 2}, {4, 2}};
    const int l = pick(5);
    c.tp = layouts[l][0];
    c.pp = layouts[l][1];
    const int dps[] = {3, 5, 2};
    const int dp = dps[pick(c.pp == 4 ? 2 : 3)];
    c.nodes = c.tp * c.pp * dp / 8;
    c.micro_batches = c.pp * (1 + pick(2));
    c.overlap_grad_reduce = pick(4) == 0;
    c.distributed_optimizer = pick(2);
    if (pick(4) == 0)
      c.fabric =
          "topology = \"fat_tree\"\npod_nodes = " + std::to_string(1 + pick(c.nodes)) + "\noversubscription = 2\n";
    switch (pick(4)) {
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
    replicas += run_both_replicas(c) == ReplicasMode::Replicas;
  }
  // These seeds: 5 simulate replicas once (3 with one apart), 1 is abandoned by the guard, 4 do not apply.
  CHECK(replicas >= 4);
}
