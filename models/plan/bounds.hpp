#pragma once
// Bounds that let the planner skip a candidate without ever skipping the best one.
//
// Memory (a candidate is dropped only when even this lower bound does not fit): the run's own
// estimate (models/memory/memory_fill.cpp) is, for every rank, memory::estimate_rank of the same
// inputs plus that rank's NCCL buffers (>= 0), and every phase's total grows with those bytes.
// So  peak_run >= max over pipeline stages of estimate_rank(inputs, nccl_bytes = 0) = memory_lower_bound,
// and memory_lower_bound > capacity means the run would say "does not fit" too.
//
// Time (step_lower_bound <= the simulated step, for every candidate): the step of every rank is
// a partition of [start, end) (RankBreakdown) whose compute term is the sum of its compute ops
// at their own rate, and no op runs faster than the compute model prices it alone: the GEMM law
// (t0 + 2mnk/R + 2mn/BWc, models/compute/gemm.hpp) times the step's power-limit stretch s >= 1
// (one factor for every rank, workload::power_capped_rates, as plan_step prices the programs),
// only slowed further (communication in flight), other kernels only slowed. The compute stream runs its
// kernels and the collectives it waits for one after another, so its busy time is at least the
// kernels' sum plus those collectives' lower bounds (comm_bound.hpp). Per block and micro-batch of
// T = micro_batch x seq / cp tokens:
//   dense model, cp = 1, flash attention: every kernel of the block as compute.hpp block_seconds
//     prices it at the step's rates (what the data-parallel units and Megatron's layer run);
//   otherwise: the linear layers' GEMMs only (q/k/v, o, gate/up, down; an MoE layer's
//     attention half only), at the faster of the step's GEMM laws, times s;
//   g_f, g_b  the block's forward and backward compute;  c_f, c_b  the tensor-parallel collectives
//     its compute stream waits for, each at its lower bound (comm_bound.hpp; Megatron with tp > 1);
//   w = (g_f + c_f)(1 + r) + g_b + c_b (r = 1 under full recompute);
//   data parallel:  T_step >= m (L w + head)   (every rank runs every block; the head as priced)
//   pipeline (pp stages, m micro-batches, vp chunks per stage; W_s a stage's work per micro-batch,
//   C_min the lightest chunk's, F_min the lightest chunk's forward alone):
//     1F1B / interleaved: T_step >= m min_s W_s + (pp - 1) C_min
//     zb_h1 (weight gradients deferred): T_step >= m min_s W_s + (pp - 1) F_min
// Pipeline: the last stage starts micro-batch 1 only after chunks 0 of stages 0 .. pp-2 ran its
// forward, runs m micro-batches of its own work, and its last backward (chunk 0 of micro-batch
// m) must still come back through chunks 0 of stages pp-2 .. 0: pp - 1 forwards and pp - 1
// backwards of chunks outside the last stage's own work (zb_h1 can defer the W passes, so only
// the forward warm-up is counted there). Each hop is a data dependency the
// executor keeps (send/recv between stages).
#include "models/spec.hpp"
#include "models/model/model_shape.hpp"

namespace models::plan {

// The largest over pipeline stages of memory::estimate_rank's peak with no NCCL buffers, bytes.
double memory_lower_bound(const ScenarioSpec& spec, const model::ModelShape& model, int gpus_per_node);

// The lower bound of the step above, seconds (its terms for tests).
struct StepBound {
  double block_fwd_s = 0, block_bwd_s = 0;            // g_f, g_b: compute
  double block_comm_fwd_s = 0, block_comm_bwd_s = 0;  // c_f, c_b: blocking TP collectives (dense block)
  double step_s = 0;
};
// tight off: compute alone at unstretched rates (stretch 1, c_f = c_b = 0), the weaker bound
// bench_plan compares the planner's against.
StepBound step_lower_bound(const ScenarioSpec& spec, const model::ModelShape& model, int gpus_per_node,
                           bool tight = true);

}  // namespace models::plan
