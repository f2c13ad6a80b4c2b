#pragma once
// models::workload pipeline schedules: what one pipeline rank does, in order, in one step of
// Megatron-Core's 1F1B schedules (megatron/core/pipeline_parallel/schedules.py, NVIDIA/Megatron-LM):
// a list of forward and backward passes of (micro-batch, model chunk) and, between them, the
// point-to-point batches Megatron issues (one batch_isend_irecv each).
//
// Plain 1F1B (forward_backward_pipelining_without_interleaving; Narayanan et al. 2021): stage s
// runs W = min(p - s - 1, m) warm-up forwards, then m - W rounds of one forward and one
// backward, then W cool-down backwards. Bubble: (p - 1) / m of the ideal time.
//
// Interleaved 1F1B (forward_backward_pipelining_with_interleaving), v model chunks per rank:
// virtual micro-batch k runs (micro-batch, chunk) = get_schedule_table(m, v, p)[k] (groups of p
// micro-batches, each through chunk 0, then chunk 1, ...); backward k runs the same micro-batch
// through chunk v - 1 - chunk. W = min(2 (p - s - 1) + (v - 1) p, m v). Chunk j of stage s is
// virtual stage j p + s: the last stage's chunk j feeds the first stage's chunk j + 1.
// Bubble: (p - 1) / (v m).
//
// P2P: without overlap_p2p_comm every batch blocks the compute stream until its sends and
// receives are done (PyTorch's req.wait() puts the compute stream behind the NCCL stream). With
// overlap_p2p_comm (interleaved only; Megatron-Core's default there) the steady state's batches
// are asynchronous: a received tensor is waited for just before the pass that uses it.
//
// ZB-H1 (Qi et al. 2024, "Zero Bubble (Almost) Pipeline Parallelism", ICLR, section 3.1; the
// handcrafted schedule of sail-sg/zero-bubble-pipeline-parallelism's ZeroBubbleH1Pipeline with
// exact semantics): the backward splits into B (input gradient, on the critical path) and W
// (weight gradient). Stage s runs 1F1B's warm-up, then for the first s steady rounds F and B only,
// then F, B, W; the cool-down runs B, W; the s deferred W passes close the step. B's gradient is
// sent before W runs (asynchronously), so upstream stages get it one W earlier. Same peak number of
// micro-batches in flight as 1F1B; bubble (p - 1)(T_F + T_B - T_W) instead of (p - 1)(T_F + T_B + T_W).
#include <vector>

namespace models::workload {

struct ChunkRef {
  int micro_batch = 0;
  int chunk = 0;
};

struct PipeStep {
  // Backward: input and weight gradients together; BackwardInput / BackwardWeight: ZB-H1's B and W.
  enum class Kind : unsigned char { Forward, Backward, BackwardInput, BackwardWeight, Comm };
  Kind kind = Kind::Comm;
  ChunkRef at;  // Forward / Backward: the pass
  // Comm: one batch_isend_irecv. send_next: activation to the next stage; send_prev: gradient
  // to the previous stage; recv_prev: an activation from the previous stage; recv_next: a
  // gradient from the next stage (the first and last stages wrap around with interleaving).
  bool send_next = false, send_prev = false, recv_prev = false, recv_next = false;
  bool blocking = true;  // the compute stream waits for the whole batch
};

// One step of stage `stage` (0-based) of a p-stage pipeline with v chunks per rank and m
// micro-batches (v == 1: plain 1F1B; v > 1 needs m a multiple of p, as make_layout checks).
std::vector<PipeStep> megatron_pipeline_schedule(int p, int v, int m, int stage, bool overlap_p2p_comm);

// ZB-H1 for stage `stage` of a p-stage pipeline with m micro-batches (one model chunk per rank).
std::vector<PipeStep> zb_h1_pipeline_schedule(int p, int m, int stage);

// Megatron-Core's get_schedule_table(m, v, group): the (micro-batch, chunk) of each virtual
// micro-batch.
std::vector<ChunkRef> megatron_schedule_table(int m, int v, int group);

}  // namespace models::workload
