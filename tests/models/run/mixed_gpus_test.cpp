// Mixed instance groups through run_scenario (models/run/mixed_gpus.hpp, models/world/node_kinds.hpp):
// scenarios/examples/mixed_p5_p4d.toml's cluster, 2 x p5.48xlarge (H100) then 2 x p4d.24xlarge
// (A100-40GB), training a ZeRO-3 step over all 32 GPUs. Each rank's compute is its own GPU's: the
// same program priced on an A100 takes what it takes on a p4d cluster, on an H100 what it takes on
// a p5 cluster (compute independent of overlap here: exact). The H100 ranks then wait for the
// A100 ranks at every collective (barrier wait), and the collectives cross the p4d nodes' EFA,
// so the step is paced by the slower group: slower than 4 x p5, close to 4 x p4d. Measured on the
// shipped example (commsim run): 3.372 s per step, against 0.632 s on 4 x p5 (5.3x) and 3.374 s
// on 4 x p4d. Why: the ZeRO-3 all-gathers and reduce-scatters are rings over 4 channels (NCCL's
// minimum over the ranks: p4d's 4 NIC groups), and on the p4d nodes each ring leaves through one
// 100 Gb/s EFA (12.5 GB/s) where a p5 node gives it a 400 Gb/s group: every ring runs at p4d's
// pace, ~3.09 s of communication per step as on 4 x p4d; the A100s' 2.00 s of compute (0.61 s on
// an H100) hides under it, and the H100 ranks wait for both.
#include <catch2/catch.hpp>

#include "models/run/run.hpp"
#include "models/spec.hpp"

using namespace models;

namespace {
ScenarioSpec zero3_on(std::vector<NodeGroupSpec> groups) {
  ScenarioSpec s;
  s.cluster.groups = std::move(groups);
  s.cluster.instance = s.cluster.groups.front().instance;  // as the loader sets them
  s.cluster.nodes = 0;
  for (const auto& g : s.cluster.groups) s.cluster.nodes += g.nodes;
  ModelSpec m;
  m.preset = "llama-3-8b";
  m.seq = 2048;
  s.model = m;
  s.training.micro_batch = 1;
  s.training.grad_accum = 2;
  s.training.grad_checkpointing = true;
  s.parallel.strategy = "zero3";
  s.cluster.params["compute.overlap_slowdown"] = 0;
  return s;
}
}  // namespace

TEST_CASE("mixed gpus: 2 x p5 + 2 x p4d is paced by the A100s, each rank computes on its own GPU", "[models]") {
  const RunResult mixed = run_scenario(zero3_on({{"p5.48xlarge", 2}, {"p4d.24xlarge", 2}}));
  const RunResult p5 = run_scenario(zero3_on({{"p5.48xlarge", 4}}));
  const RunResult p4d = run_scenario(zero3_on({{"p4d.24xlarge", 4}}));
  REQUIRE(mixed.ranks.size() == 32);
  INFO("step: mixed " << mixed.step_time_s << " s, 4 x p5 " << p5.step_time_s << " s, 4 x p4d " << p4d.step_time_s);
  // Rank 0 sits on an H100, rank 16 on an A100: each computes as on its own cluster.
  CHECK(mixed.ranks[0].compute_s == Approx(p5.ranks[0].compute_s).epsilon(1e-9));
  CHECK(mixed.ranks[16].compute_s == Approx(p4d.ranks[16].compute_s).epsilon(1e-9));
  CHECK(mixed.ranks[16].compute_s > 2 * mixed.ranks[0].compute_s);
  // The A100 ranks wait for nobody; the H100 ranks sit idle for them, at collectives (barrier
  // wait) and behind the transfers the A100s start late (exposed communication).
  CHECK(mixed.ranks[16].barrier_wait_s == 0);
  CHECK(mixed.ranks[0].barrier_wait_s > 0);
  CHECK(mixed.ranks[0].exposed_comm_s + mixed.ranks[0].barrier_wait_s >
        mixed.ranks[16].exposed_comm_s + 0.5 * (mixed.ranks[16].compute_s - mixed.ranks[0].compute_s));
  // Paced by the slower group: far slower than four p5, about four p4d (the p5 half's faster
  // NICs and NVLink shorten its part of each collective a little).
  CHECK(mixed.step_time_s > 1.5 * p5.step_time_s);
  CHECK(mixed.step_time_s <= p4d.step_time_s * 1.001);
  CHECK(mixed.step_time_s > 0.9 * p4d.step_time_s);
}

TEST_CASE("mixed gpus: MFU and the memory line do not depend on the order of the groups", "[models]") {
  // MFU is against the GPUs the ranks run on (16 H100 at 989 and 16 A100 at 312 TFLOP/s: their
  // mean), not the first group's; the memory line names the rank with the least room on its own GPU.
  const RunResult h_first = run_scenario(zero3_on({{"p5.48xlarge", 2}, {"p4d.24xlarge", 2}}), {});
  const RunResult a_first = run_scenario(zero3_on({{"p4d.24xlarge", 2}, {"p5.48xlarge", 2}}), {});
  REQUIRE(h_first.throughput.estimated);
  const double mean_peak = (989.4e12 + 312e12) / 2;
  CHECK(h_first.throughput.peak_tflops_per_gpu == Approx(mean_peak / 1e12).epsilon(0.01));
  CHECK(h_first.throughput.mfu == Approx(a_first.throughput.mfu).epsilon(0.02));
  CHECK(h_first.memory.gpu == a_first.memory.gpu);
  CHECK(h_first.memory.gpu.find("A100") != std::string::npos);
  CHECK(h_first.memory.capacity_bytes == a_first.memory.capacity_bytes);
  // The rank named is on an A100: ranks 16-31 when the p5s come first, 0-15 when they come last.
  CHECK(h_first.memory.peak_rank >= 16);
  CHECK(a_first.memory.peak_rank < 16);
}
