#pragma once
// models::memory::estimate_rank: one rank's GPU memory at the three moments of a training step
// where it peaks, as named terms (bytes). Terms are closed forms (memory_terms.hpp); this file
// decides which a strategy holds, how they are sharded and when they are alive.
//
// Phases (the peak is the largest; the ANALYSIS of scenarios/validation/h200x1 section 6 measured
// each within 0.5 % on one H200):
//   forward_backward  start of the last micro-batch's backward: model states, the activations of
//                     every micro-batch in flight, the loss's logits and gradients, working
//                     copies (gathered parameters, gradient buckets);
//   backward_end      (sharded strategies) every gradient, plus one unit's gathered parameters
//                     and gradients and FSDP2's root (embedding, head) kept from forward to backward;
//   optimizer         model states plus the optimizer's temporaries.
// What each strategy holds (P = parameters this rank's TP/PP shard holds, S = ranks sharding
// the model states: dp, or the shard group of HSDP):
//   zero3     DeepSpeed: weights and gradients in training.dtype (bf16: 2 B, fp32: 4 B) and fp32 Adam
//             states, all / S (zero_state_bytes;
//             ZeRO-Offload moves states and gradients, offload_param the weights, to the host);
//             the persistent parameters (stage3_param_persistence_threshold,
//             zero3_persistent_params) whole on every rank as well, in the compute dtype;
//             gathered units in the compute dtype (their parameters above the threshold; prefetch
//             depth, zero3_prefetch_depth) and one unit's gradients; the reduce bucket, reduce_bucket_size
//             gradient elements (training.dtype; stage3.py's
//             __ipg_bucket_flat_buffer); at the step the fp32 gradients of one sub-group,
//             min(sub_group_size, P/S) x 4 B (stage3.py _prepare_fp32_grad_for_sub_group).
//   zero1/2   DeepSpeed stage_1_and_2.py: weights (all) and gradients (stage 1 all, stage 2 / S) in
//             training.dtype,
//             fp32 Adam states / S (zero_state_bytes); the fp32 gradient partition at the step
//             (4 B / S); the ipg bucket, reduce_bucket_size gradient elements (two under overlap_comm);
//             no gathered parameters.
//   fsdp      FSDP2 (hsdp: S = dp_shard): weights, gradients, m, v in the parameter dtype, / S; AdamW's
//             temporary by implementation (adamw_temp_params); gathered blocks in the compute dtype
//             (current and the prefetched one) and the root unit; gradients exist in the forward
//             only from the second micro-batch (zero_grad(set_to_none=True)).
//   ddp       PyTorch DDP: as fsdp unsharded, plus DDP's bucket copies of the gradients
//             (gradient_as_bucket_view=False, PyTorch's default: one more gradient-sized buffer).
//   megatron  Megatron-LM: megatron_state_bytes by training.dtype (bf16 18 B per parameter,
//             distributed optimizer 6 + 12/d with d = dp x cp; fp16 20, 4 + 16/d; fp32 16, 8 + 8/d);
//             fused Adam (no temporary). With training.param_dtype given (no fp32 master: the
//             optimizer updates the parameters themselves, as compute.hpp optimizer_plan runs it):
//             weights and gradients in that dtype, m and v in it (or optimizer_dtype), the
//             optimizer over d under the distributed optimizer, AdamW's temporary as fsdp's.
//             With tied embeddings and pp > 1 the last stage holds a copy of the word embeddings
//             (V h / vocab_shards), as Megatron's output layer shares them (workload/megatron.cpp).
// AdamW's temporary (torch/optim/adam.py, PyTorch's strategies and Megatron with param_dtype):
//   foreach   _foreach_sqrt(exp_avg_sqs) then in-place div, add: one copy of v, ob x P / S;
//   for_loop  per tensor, denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps): sqrt's
//             output and the quotient live together, 2 ob x the rank's largest tensor;
//   fused     one kernel, in place: none.
// Full recompute: the recomputed block's activations (recompute_working_bytes_per_token) exist only
// after the loss's backward has freed the logits, so forward_backward counts the larger of the two
// (term recompute_block: the excess over the logits). Measured on one H100
// (scenarios/validation/h100x1/measured/moe_memory.jsonl): the sum overestimated the three
// full-recompute peaks by 1.8-3.6 %, the larger of the two matches them within 0.01 %.
// Activations: micro_batch x seq / cp tokens per micro-batch, block bytes per token by recompute
// mode and sequence parallelism, times the blocks in flight (1 micro-batch's worth of all blocks
// for data parallelism; pipeline_blocks_in_flight for a pipeline stage); the last stage adds
// the final norm and the logits (per token and vocabulary entry: kLogitBytesPerEntry, PyTorch's
// cross entropy; megatron_loss_bytes_per_entry, Megatron-Core's).
#include <optional>
#include <vector>

#include "models/compute/optimizer.hpp"
#include "models/memory/memory_terms.hpp"
#include "models/model/model_shape.hpp"
#include "models/spec.hpp"
#include "models/workload/layout.hpp"

namespace models::memory {

// What the estimate reads. Fields a ParallelLayout does not carry yet (cp, vp, sequence
// parallelism, distributed optimizer, recompute mode, HSDP's shard group) have neutral defaults;
// memory_fill.cpp sets them from the layout when it has them.
struct MemoryInputs {
  model::ModelShape model;
  workload::Strategy strategy = workload::Strategy::Zero3;
  int tp = 1, pp = 1, dp = 1, cp = 1, vp = 1;
  int ep = 1;            // expert parallelism (MoE): routed experts split over ep x etp,
  int etp = 0;           // their optimizer over edp = tp cp dp / (etp ep); etp 0: = tp
  int shard_group = 0;   // ranks sharding model states (0: dp x cp)
  int vocab_shards = 1;  // embedding / head split (1: replicated across TP, as workload/megatron.cpp runs them)
  bool sequence_parallel = false;
  bool distributed_optimizer = false;
  Recompute recompute = Recompute::None;
  int micro_batch = 1;
  int micro_batches = 1;     // per step: grad_accum (data parallel) or the pipeline's micro-batches
  int stage = 0;             // pipeline stage of the rank
  bool zero_bubble = false;  // ZB-H1's schedule (pipeline_blocks_in_flight)
  // Layers per stage (megatron: layout.split); unset: layers / pp consecutive layers per stage.
  std::optional<workload::PipelineSplit> split;
  int compute_bytes = 2;          // training.dtype
  bool fp16 = false;              // training.dtype is fp16 (2 bytes as bf16, but Megatron keeps fp16 gradients)
  int param_bytes = 2;            // training.param_dtype for the PyTorch strategies (fsdp, ddp)
  int reduce_bytes = 0;           // fsdp, hsdp: training.reduce_dtype (FSDP2's reduce-scatter input); 0: compute_bytes
  // Megatron: training.param_dtype given, no fp32 master copy (param_bytes for weights, gradients
  // and, unless optimizer_bytes, m and v).
  bool megatron_without_master = false;
  // AdamW's implementation (training.optimizer_impl; torch.optim.AdamW's default on CUDA: foreach).
  compute::OptimizerImpl adamw = compute::OptimizerImpl::Foreach;
  // training.attention_backend = "unfused", any strategy: the scores are kept for the backward
  // unless recomputed (unfused_score_bytes_per_token, every block a rank holds activations of).
  bool unfused_attention = false;
  // training.repeat_kv: attention keeps the key/value heads' copies (repeated_kv_bytes_per_token).
  bool repeat_kv = false;
  // training.keep_logits: the loop holds the model's output through the backward (memory_terms.hpp
  // kLogitBytesPerEntry), compute_bytes more per logit.
  bool keep_logits = false;
  // The loss is Megatron-Core's vocab-parallel cross entropy (layout.hpp megatron_loss), which holds
  // megatron_loss_bytes_per_entry per logit, not kLogitBytesPerEntry (memory_terms.hpp).
  bool megatron_loss = false;
  // Full recompute on every N-th block only (data parallel; layout.hpp checkpoint_every): layers / N
  // blocks keep their input alone, the others every activation.
  int checkpoint_every = 1;
  // Bytes of each of Adam's moments m and v (training.optimizer_dtype); 0: as the framework keeps
  // them: torch.optim.AdamW in the parameters' dtype (fsdp, ddp: bf16 parameters keep bf16 moments),
  // DeepSpeed and Megatron-LM in fp32 beside their fp32 master weights.
  int optimizer_bytes = 0;
  bool ddp_bucket_copies = true;  // DDP's gradient_as_bucket_view=False default
  ZeroSpec zero;
  double nccl_bytes = 0;                // memory_fill.cpp: nccl_buffer_bytes over the rank's communicators
  double framework_overhead_bytes = 0;  // memory.framework_overhead (CUDA context and libraries)
};

struct Term {
  const char* name;  // "weights", "gradients", "optimizer_states", ...
  double bytes = 0;
};
struct Phase {
  const char* name;  // "forward_backward", "backward_end", "optimizer"
  std::vector<Term> terms;
  double total() const;
};
struct RankEstimate {
  std::vector<Phase> phases;
  int peak = 0;  // index of the largest phase
  double peak_bytes() const { return phases[peak].total(); }
  const Phase& peak_phase() const { return phases[peak]; }
};

// Parameters the rank holds before data-parallel sharding: its stage's blocks (matrices / tp),
// the embedding on stage 0 (word embeddings / vocab_shards, a learned position table whole), final
// norm and head (/ vocab_shards) on the last stage.
// MoE layers count their attention, norms, router and shared experts as a block does and their
// routed experts / (ep etp) (rank_expert_params, included in rank_params). With tied embeddings
// and pp > 1 the last stage's copy of the word embeddings is counted too.
// adamw_temp_params: the elements of AdamW's temporary (above), before its dtype's bytes.
double rank_params(const MemoryInputs& in);
double rank_expert_params(const MemoryInputs& in);
double adamw_temp_params(const MemoryInputs& in, double p, double shard);
// Bytes of each of Adam's moments m and v: training.optimizer_dtype where given, else as the
// framework keeps them: torch.optim.AdamW in the parameters' dtype (fsdp, hsdp, ddp, Megatron with
// training.param_dtype), DeepSpeed and Megatron-LM in fp32 beside their fp32 master. The model
// states here and what a checkpoint saves (checkpoint_state.hpp) both take it from this.
int adam_moment_bytes(const MemoryInputs& in);
RankEstimate estimate_rank(const MemoryInputs& in);

}  // namespace models::memory
