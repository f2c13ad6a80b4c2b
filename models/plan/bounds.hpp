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
//   dense model, flash attention: every kernel of the block as compute.hpp block_seconds prices it
//     at the step's rates (what the data-parallel units and Megatron's layer run; at cp > 1 the
//     attention of T queries against the whole sequence, which ring attention runs in cp steps of
//     1/cp each: the same sum);
//   MoE model under Megatron, flash attention: the same for the attention half and the dense
//     layers' MLPs; an MoE layer's MLP as the compute-stream kernels of megatron_layer.cpp
//     moe_forward / moe_backward (router, permute and unpermute, the E/ep local experts' grouped
//     GEMMs, SwiGLU, shared experts: compute.hpp moe_kernels at the step's rates), plus its
//     blocking all-to-alls (and the ETP group's all-gather and reduce-scatter) at their lower
//     bound (comm_bound.hpp moe_comm_bound: the bytes that enter a rank over its ports' bandwidth);
//   otherwise: the linear layers' GEMMs only (q/k/v, o, gate/up, down; an MoE layer's
//     attention half only), at the faster of the step's GEMM laws, times s;
//   g_f, g_b  the block's forward and backward compute;  c_f, c_b  the tensor-parallel collectives
//     its compute stream waits for, each at its lower bound (comm_bound.hpp; Megatron with tp > 1);
//   w = (g_f + c_f)(1 + r) + g_b + c_b (r = 1 under full recompute), less the MLP's down
//     projection and residual add (its GEMM alone where only GEMMs are counted) when a
//     non-reentrant checkpoint's recompute stops before them (compute.hpp BlockSeconds);
//   H  Megatron's output layer per micro-batch on the last stage: final norm, logits (V / tp
//      columns when vocab-parallel), loss, forward and backward, as megatron_layer.cpp prices them
//      (head_kernels), plus its input's blocking all-gather with sequence parallelism;
//   data parallel:  T_step >= m (L w + head)   (every rank runs every block; the head as priced)
//   Megatron, one stage: T_step >= m (L w + H)
//   pipeline (pp stages, m micro-batches, vp chunks per stage; W_s stage s's work per micro-batch,
//   the last stage's with H; P_s chunk 0 of stage s: its work, or its forward alone under zb_h1):
//     T_step >= max over s of  m W_s + sum over s' < s of P_s'
// Pipeline: stage s starts micro-batch 1 only after chunk 0 of stages 0 .. s-1 ran its forward,
// then runs m micro-batches of its own work; under 1F1B (interleaved or not) its last op is chunk
// 0's backward of micro-batch m, which must still come back through chunk 0 of stages s-1 .. 0
// (zb_h1 can defer the W passes to the end, so only the forward warm-up is counted there). Each
// hop is a data dependency the executor keeps (send/recv between stages). The last stage (s =
// pp - 1, with H) gives  m (W + H) + (pp - 1) C  on an even split (C a chunk's work).
//
// Data-parallel communication (dp_comm_bound.hpp): the gradients' reduce and the parameters'
// gather of every strategy (DDP, ZeRO, FSDP2, HSDP, Megatron over dp x cp and the experts' edp)
// must cross each rank's ports and, across nodes, each node's network links inside the step,
// whatever they overlap, so with D_port the busiest rank's bytes per direction over B_gpu and
// D_net the busiest node's over its network capacity:
//   T_step >= max(the compute stream's bound above, D_port, D_net).
//
// moe_comm off (bench_plan's comparison, the bound before the MoE collectives were counted): the
// MoE layer's all-to-alls left out (>= 0).
// tight off (bench_plan's comparison, the first version's bound): compute alone at unstretched
// rates, at cp > 1 the GEMMs only, no collectives, H the logits' GEMMs, and the pipeline as
//   m min_s W_s + (pp - 1) C_min   (zb_h1: (pp - 1) F_min).
#include "models/spec.hpp"
#include "models/model/model_shape.hpp"

namespace models::plan {

// The largest over pipeline stages of memory::estimate_rank's peak with no NCCL buffers, bytes.
double memory_lower_bound(const ScenarioSpec& spec, const model::ModelShape& model, int gpus_per_node);

// The lower bound of the step above, seconds (its terms for tests).
struct StepBound {
  double block_fwd_s = 0, block_bwd_s = 0;            // g_f, g_b: compute
  double block_comm_fwd_s = 0, block_comm_bwd_s = 0;  // c_f, c_b: blocking TP collectives (dense block)
  double head_s = 0;                                  // H: Megatron's output layer per micro-batch
  double moe_comm_fwd_s = 0;                          // an MoE layer's blocking collectives, forward (= backward)
  double compute_stream_s = 0;                        // the compute stream's bound (the formulas above)
  double dp_port_s = 0, dp_network_s = 0;             // the data-parallel communication's (dp_comm_bound.hpp)
  double step_s = 0;                                  // the largest of the three
};
// tight off: the first version's weaker bound above, which bench_plan compares the planner's against;
// moe_comm off: without the MoE layer's collectives; dp_comm off: without the data-parallel
// communication's bound (bench_plan's before and after).
StepBound step_lower_bound(const ScenarioSpec& spec, const model::ModelShape& model, int gpus_per_node,
                           bool tight = true, bool moe_comm = true, bool dp_comm = true);

}  // namespace models::plan
