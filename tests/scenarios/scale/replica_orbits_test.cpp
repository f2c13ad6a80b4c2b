// Replica orbits (models/scale/step/replica_orbits.cpp): Megatron with overlap_grad_reduce /
// overlap_param_gather and the distributed optimizer, whose data-parallel flows meet the pipeline's
// and context-parallel flows on the NICs, simulate one replica for all with the data-parallel
// collectives' flows as orbits, and give the full simulation's `run --json` (every digit, apart
// from the events count and the mode note); where the move by one replica is no symmetry (a
// straggler, trees) every replica runs, the note saying why. On pods whose uplinks ECMP picks per
// flow, the one refusal that ECMP orbits lift, those run instead (approximate: ecmp_orbits_test.cpp).
#include <catch2/catch.hpp>

#include <random>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/scenarios/scale/both_modes.hpp"

namespace {

struct OrbitCase {
  int nodes = 8, pp = 2, cp = 2, vp = 1, micro_batches = 4;
  bool tp_pp_dp = true, grad = true, param = true, distributed_optimizer = true;
  std::string fabric;      // "" (non-blocking) or a [cluster.fabric] body
  std::string stragglers;  // [[stragglers]] tables
  std::string nccl_env;    // a [nccl.env] body
};

std::string orbit_toml(const OrbitCase& c) {
  std::string s =
      "name = \"replica orbits\"\n[cluster]\ninstance = \"dgx-h100-roce\"\nnodes = " + std::to_string(c.nodes) + "\n";
  if (!c.fabric.empty()) s += "[cluster.fabric]\n" + c.fabric;
  s += c.stragglers;
  s += "[model]\npreset = \"sc21-1.7b\"\nseq = 2048\n[training]\nmicro_batch = 1\ndtype = \"bf16\"\n";
  s += "[parallel]\nstrategy = \"megatron\"\ntp = 8\npp = " + std::to_string(c.pp) + "\ncp = " + std::to_string(c.cp) +
       "\nvp = " + std::to_string(c.vp) + "\nmicro_batches = " + std::to_string(c.micro_batches) +
       "\nsequence_parallel = true\ndistributed_optimizer = " + (c.distributed_optimizer ? "true" : "false") +
       "\noverlap_grad_reduce = " + (c.grad ? "true" : "false") +
       "\noverlap_param_gather = " + (c.param ? "true" : "false") +
       "\nuse_tp_pp_dp_mapping = " + (c.tp_pp_dp ? "true" : "false") + "\n";
  if (!c.nccl_env.empty()) s += "[nccl.env]\n" + c.nccl_env;
  return s;
}

enum class OrbitMode { Orbits, Replicas, Every };

// Runs the case both ways (results equal), and says which mode the default run took.
OrbitMode run_both_replica_orbits(const OrbitCase& c, std::string* note = nullptr) {
  const auto [a, b] = run_default_and_full(orbit_toml(c), "replica-orbits");
  OrbitMode mode = OrbitMode::Every;
  for (const auto& n : a["notes"]) {
    const auto text = n.get<std::string>();
    if (text.rfind("symmetry: ", 0) != 0) continue;
    if (note) *note = text;
    if (text.find("data-parallel collectives' flows leaving it") != std::string::npos)
      mode = OrbitMode::Orbits;
    else if (text.find("data-parallel replicas simulated (") != std::string::npos)
      mode = OrbitMode::Replicas;
  }
  if (mode != OrbitMode::Every) CHECK(a["events"] < b["events"]);
  return mode;
}

}  // namespace

TEST_CASE("scenarios: overlapped data-parallel traffic on alike replicas runs as replica orbits, exactly",
          "[scenarios]") {
  std::string note;
  OrbitCase c;  // TP 8 x CP 2 x PP 2 x DP 2, ranks [TP, CP, PP, DP]: each replica 4 nodes in a row
  CHECK(run_both_replica_orbits(c, &note) == OrbitMode::Orbits);
  CHECK(note.rfind("symmetry: 1 of 2 data-parallel replicas simulated (32 of 64 ranks)", 0) == 0);
  c.nodes = 12;  // DP 3, Megatron's default order [TP, CP, DP, PP]: a replica's nodes interleaved
  c.tp_pp_dp = false;
  c.vp = 2;
  CHECK(run_both_replica_orbits(c, &note) == OrbitMode::Orbits);
  CHECK(note.rfind("symmetry: 1 of 3 data-parallel replicas simulated (32 of 96 ranks)", 0) == 0);
  // Only the gradients' reduce-scatters overlapped (the parameters gathered after the step).
  c.param = false;
  CHECK(run_both_replica_orbits(c) == OrbitMode::Orbits);
}

TEST_CASE("scenarios: replica orbits fall back to every replica where the move is no symmetry, the same",
          "[scenarios]") {
  std::string note;
  OrbitCase c;
  c.nodes = 12;
  // (Pods whose uplinks ECMP picks per flow: ecmp_orbits_test.cpp checks the refusal's words.)
  // A slow GPU in replica 1: two kinds of replicas.
  c.stragglers = "[[stragglers]]\nranks = [40]\ncompute_slowdown = 1.2\n";
  CHECK(run_both_replica_orbits(c, &note) == OrbitMode::Every);
  CHECK(note.find("replica orbits: replicas of several kinds") != std::string::npos);
  // Gradients all-reduced on NCCL's trees (no distributed optimizer): a tree's flows are not
  // moved with the replicas; the engine finds it at the first launch and every replica runs.
  c = OrbitCase{};
  c.nodes = 32;
  c.distributed_optimizer = false;
  c.param = false;
  c.nccl_env =
      "NCCL_ALGO = \"allreduce:tree\"\n";  // all-reduce only: NCCL 2.24+ stops where Tree leaves an all-gather nothing
  CHECK(run_both_replica_orbits(c, &note) == OrbitMode::Every);
  CHECK(note.find("replica orbits abandoned (at ") != std::string::npos);
  CHECK(note.find("the all_reduce (Tree, ") != std::string::npos);
}

TEST_CASE("scenarios: random overlapped Megatron layouts give the full simulation's result in any mode",
          "[scenarios]") {
  int orbits = 0;
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    INFO("seed " << seed);
    std::mt19937_64 rng(seed);
    auto pick = [&](int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng); };
    OrbitCase c;
    c.pp = 2 << pick(2);
    c.cp = 1 + pick(2);
    const int dp = 2 + pick(2);
    c.nodes = c.pp * c.cp * dp;
    c.vp = 1 + pick(2);
    c.micro_batches = c.pp * (1 + pick(2));
    c.tp_pp_dp = pick(2);
    c.grad = pick(4) != 0;
    c.param = c.grad && pick(2);  // (Megatron: overlap_param_gather needs overlap_grad_reduce)
    if (pick(4) == 0)
      c.fabric =
          "topology = \"fat_tree\"\npod_nodes = " + std::to_string(1 + pick(c.nodes)) + "\noversubscription = 2\n";
    if (pick(4) == 0)
      c.stragglers = "[[stragglers]]\nnode = " + std::to_string(pick(c.nodes)) + "\ncompute_slowdown = 1.1\n";
    orbits += run_both_replica_orbits(c) == OrbitMode::Orbits;
  }
  CHECK(orbits >= 2);
}

TEST_CASE("replica orbits: HSDP over a host's memory (SHM inside, EFA without GPUDirect between nodes) runs unfolded",
          "[scenarios][scale]") {
  // 2 x g6e.12xlarge: each shard group is one node's 4 L40S over SHM, the replicate all-reduce
  // {k, k + 4} reaches the NIC through host memory on both nodes, so each of its flows crosses the
  // class of host memory twice (node 0's and node 1's). Such a flow cannot stand for its images on
  // the folded links: the guard stops the folded attempt and every replica runs, as --full.
  const std::string toml =
      "name = \"hsdp on g6e\"\n[cluster]\ninstance = \"g6e.12xlarge\"\nnodes = 2\n[model]\npreset = "
      "\"llama-3-8b\"\nseq = 2048\n[training]\nmicro_batch = 1\nglobal_batch = 16\nsteps = 10\n[parallel]\nstrategy = "
      "\"hsdp\"\n";
  const auto [a, b] = run_default_and_full(toml, "hsdp-g6e");
  CHECK(a["step_time_s"].get<double>() > 0);
}
