// One rank's memory by phase of the step (what each strategy holds: memory_peak.hpp).
#include "models/memory/memory_peak.hpp"

#include <algorithm>

#include "models/workload/steps/data_parallel.hpp"

namespace models::memory {

using workload::Strategy;

namespace {
int expert_tp(const MemoryInputs& in) { return in.etp > 0 ? in.etp : std::max(1, in.tp); }  // etp 0: = tp
}  // namespace

double Phase::total() const {
  double s = 0;
  for (const Term& t : terms) s += t.bytes;
  return s;
}

namespace {
// The layers stage `in.stage` holds: its model chunks' (in.split), or layers / pp consecutive ones.
std::vector<int> stage_layer_ids(const MemoryInputs& in) {
  if (in.split) return in.split->stage_layer_ids(in.stage);
  const int pp = std::max(1, in.pp), per_stage = in.model.layers / pp;
  std::vector<int> ids;
  for (int i = in.stage * per_stage; i < (in.stage + 1) * per_stage; ++i) ids.push_back(i);
  return ids;
}
}  // namespace

// The routed experts a rank of stage `in.stage` holds (MoE): E 3 h f_e / (ep etp) per MoE layer.
double rank_expert_params(const MemoryInputs& in) {
  const model::ModelShape& m = in.model;
  if (!m.is_moe()) return 0;
  double p = 0;
  for (int i : stage_layer_ids(in))
    if (m.moe_layer(i)) p += double(m.moe_expert_params()) / (double(std::max(1, in.ep)) * expert_tp(in));
  return p;
}

double rank_params(const MemoryInputs& in) {
  const model::ModelShape& m = in.model;
  const int pp = std::max(1, in.pp), tp = std::max(1, in.tp), v = std::max(1, in.vocab_shards);
  // The attention's down projections (MLA) are whole on every TP rank; the rest of the matrices and
  // the biases split (row-parallel biases are replicated in Megatron: < 0.01 % of a block).
  const double replicated = double(m.block_replicated_params());
  const double block = (double(m.block_matmul_params()) - replicated) / tp + replicated +
                       double(m.block_norm_params()) + double(m.block_bias_params()) / tp;
  const std::vector<int> layers = stage_layer_ids(in);
  double p = double(layers.size()) * block;
  if (m.is_moe()) {  // MoE layers: attention, norms, router and shared experts, then the routed experts
    const double router = double(m.moe_router_params());  // whole on every tp rank
    const double moe_block = (double(m.attention_matmul_params() + m.moe_dense_params()) - replicated - router) / tp +
                             replicated + router + double(m.block_norm_params()) +
                             double(m.attention().bias_params()) / tp;
    p = rank_expert_params(in);
    for (int i : layers) p += m.moe_layer(i) ? moe_block : block;
  }
  // The word embeddings split over vocab_shards (Megatron's VocabParallelEmbedding); a learned
  // position table (a plain torch.nn.Embedding) is whole on every TP rank.
  if (in.stage == 0) p += double(m.vocab) * m.hidden / v + double(m.position_params());
  if (in.stage == pp - 1) p += double(m.head_params()) / v + double(m.final_norm_params());
  // Megatron's output layer on the last stage shares the word embeddings (not the position table)
  // through a copy of its own, kept in sync by the embedding group's all-reduce.
  if (m.tied_embeddings && pp > 1 && in.stage == pp - 1) p += double(m.vocab) * m.hidden / v;
  return p;
}

double adamw_temp_params(const MemoryInputs& in, double p, double shard) {
  switch (in.adamw) {
    case compute::OptimizerImpl::Fused: return 0;
    case compute::OptimizerImpl::Foreach: return p / shard;
    case compute::OptimizerImpl::ForLoop: break;
  }
  // The rank's largest tensor (its TP shard; a data-parallel shard of it under FSDP).
  const model::ModelShape& m = in.model;
  const double t = std::max(1, in.tp);
  double largest = double(m.hidden) * m.ffn / t;
  for (const model::AttentionLinear& l : m.attention().linears())
    largest = std::max(largest, double(l.params()) / (l.split ? t : 1));
  if (m.is_moe()) largest = std::max(largest, double(m.hidden) * m.moe.moe_ffn / expert_tp(in));
  const bool last = in.stage == std::max(1, in.pp) - 1;
  if (in.stage == 0 || (last && (!m.tied_embeddings || in.pp > 1)))
    largest = std::max(largest, double(m.vocab) * m.hidden / std::max(1, in.vocab_shards));
  return 2 * largest / shard;
}

int adam_moment_bytes(const MemoryInputs& in) {
  if (in.optimizer_bytes > 0) return in.optimizer_bytes;
  const bool torch_adamw = in.strategy == Strategy::Fsdp || in.strategy == Strategy::Hsdp ||
                           in.strategy == Strategy::Ddp ||
                           (in.strategy == Strategy::Megatron && in.megatron_without_master);
  return torch_adamw ? in.param_bytes : 4;
}

namespace {

// Bytes per token of one block of stage `in.stage`, averaged over its layers (an MoE model mixes
// dense and MoE blocks; the stage's blocks in flight are taken in that proportion).
double stage_block_activation_bytes_per_token(const MemoryInputs& in) {
  const model::ModelShape& m = in.model;
  // What the code keeps beyond a flash-attention block's: unfused attention's scores, kept unless
  // recomputed (selective) or the whole block is (full); the key/value copies attention saves.
  double extra = in.unfused_attention && in.recompute == Recompute::None
                     ? unfused_score_bytes_per_token(m, in.tp, in.compute_bytes)
                     : 0;
  // The copies are kept where attention's inputs are (none, selective); recomputed under selective_op.
  if (in.repeat_kv && (in.recompute == Recompute::None || in.recompute == Recompute::Selective))
    extra += repeated_kv_bytes_per_token(m, in.tp, in.compute_bytes);
  const double dense =
      block_activation_bytes_per_token(m, in.tp, in.sequence_parallel, in.recompute, in.compute_bytes) + extra;
  if (!m.is_moe()) return dense;
  const double moe = moe_block_activation_bytes_per_token(m, in.tp, in.sequence_parallel, in.recompute,
                                                          in.compute_bytes, expert_tp(in)) +
                     extra;
  const std::vector<int> layers = stage_layer_ids(in);
  int moe_layers = 0;
  for (int i : layers) moe_layers += m.moe_layer(i) ? 1 : 0;
  const double f = layers.empty() ? 0 : double(moe_layers) / double(layers.size());
  return f * moe + (1 - f) * dense;
}

// Model states and working copies of one strategy, bytes.
struct Held {
  double weights = 0, gradients = 0, optimizer = 0, optimizer_temp = 0;
  double gathered_fb = 0, gathered_end = 0;  // gathered parameters: forward/backward, backward end
  double unit_grads = 0;                     // one unit's unsharded gradients (sharded strategies)
  double buckets = 0;                        // gradient buckets held the whole step
  bool grads_in_forward = true;              // gradients allocated before the backward
  bool sharded = false;
};

Held held(const MemoryInputs& in, double p) {
  const model::ModelShape& m = in.model;
  const double shard = in.shard_group > 0 ? in.shard_group : double(std::max(1, in.dp) * std::max(1, in.cp));
  const double block = double(m.block_params());
  const double root = double(m.embedding_params() + m.head_params() + m.final_norm_params());
  const double largest_unit =
      std::max({block, double(m.embedding_params()), double(m.head_params() + m.final_norm_params())});
  const double cb = in.compute_bytes;  // gathered copies and their gradients: the compute dtype
  const int moments = adam_moment_bytes(in);
  Held h;
  switch (in.strategy) {
    case Strategy::Zero3: {
      const StateBytesPerParam s =
          zero_state_bytes(std::max(1, in.zero.stage), int(shard), in.zero.offload_optimizer == "cpu",
                           in.zero.offload_param == "cpu", moments, in.compute_bytes);
      const double threshold = in.zero.stage3_param_persistence_threshold;
      const double persistent = double(workload::zero3_persistent_params(m, threshold));
      h.weights = s.weights * p + cb * persistent;  // the partition, and the persistent tensors whole
      h.gradients = s.gradients * p;
      h.optimizer = s.optimizer * p;
      if (in.zero.offload_optimizer != "cpu") h.optimizer_temp = 4 * std::min(in.zero.sub_group_size, p / shard);
      // A unit's gathered copy holds its tensors above the threshold (decoder_units.cpp).
      auto gathered = [&](int64_t numel) { return workload::zero3_persists(numel, threshold) ? 0.0 : double(numel); };
      double gathered_block = 0;
      for (int64_t t : m.block_tensors()) gathered_block += gathered(t);
      const double gathered_embedding =
          gathered(int64_t(m.vocab) * m.hidden) + (m.position_params() > 0 ? gathered(m.position_params()) : 0);
      const double gathered_head = (m.head_params() > 0 ? gathered(m.head_params()) : 0) +
                                   (gathered(m.hidden) > 0 ? double(m.final_norm_params()) : 0);
      const int depth = workload::zero3_prefetch_depth(in.zero, int64_t(gathered_block));
      h.gathered_fb = cb * std::max({depth * gathered_block, gathered_embedding, gathered_head});
      h.gathered_end = cb * std::max({gathered_block, gathered_embedding, gathered_head});
      h.unit_grads = cb * largest_unit;
      if (in.zero.contiguous_gradients) h.buckets = cb * in.zero.reduce_bucket_size;  // the gradients' dtype
      h.sharded = true;
      break;
    }
    case Strategy::Zero1:
    case Strategy::Zero2: {
      // DeepSpeed stage_1_and_2.py: the model's weights (training.dtype) replicated, gradients
      // full (stage 1) or the rank's partition (stage 2), fp32 Adam states / S (zero_state_bytes);
      // at the step the partition's fp32 gradients (single_grad_partition, 4 B); one ipg bucket of
      // reduce_bucket_size elements, two under overlap_comm (setup_buckets).
      const bool offload = in.zero.offload_optimizer == "cpu";
      const StateBytesPerParam s = zero_state_bytes(in.strategy == Strategy::Zero1 ? 1 : 2, int(shard), offload,
                                                    /*offload_param=*/false, moments, in.compute_bytes);
      h.weights = s.weights * p;
      // Stage 1 accumulates every gradient on the GPU until the boundary, offloaded or not.
      h.gradients = in.strategy == Strategy::Zero1 ? cb * p : s.gradients * p;
      h.optimizer = s.optimizer * p;
      if (!offload) h.optimizer_temp = 4 * p / shard;
      if (in.zero.contiguous_gradients) h.buckets = cb * in.zero.reduce_bucket_size * (in.zero.overlap_comm ? 2 : 1);
      h.grads_in_forward = in.micro_batches > 1;
      break;
    }
    case Strategy::Fsdp:
    case Strategy::Hsdp: {
      // torch.optim.AdamW keeps m and v in the parameters' dtype (training.optimizer_dtype overrides).
      const double pb = in.param_bytes, ob = moments;
      h.weights = h.gradients = pb * p / shard;
      h.optimizer = 2 * ob * p / shard;
      h.optimizer_temp = ob * adamw_temp_params(in, p, shard);
      h.gathered_fb = cb * root + 2 * cb * block;  // root kept, current and prefetched block
      h.gathered_end = cb * root + cb * block;
      // The unit's reduce-scatter input, in the reduce dtype (FSDP2 casts the gradients into it).
      h.unit_grads = (in.reduce_bytes > 0 ? in.reduce_bytes : cb) * block;
      h.grads_in_forward = in.micro_batches > 1;
      h.sharded = true;
      break;
    }
    case Strategy::Ddp: {
      const double pb = in.param_bytes, ob = moments;
      h.weights = h.gradients = pb * p;
      h.optimizer = 2 * ob * p;
      h.optimizer_temp = ob * adamw_temp_params(in, p, 1);
      if (in.ddp_bucket_copies) h.buckets = pb * p;
      h.grads_in_forward = in.micro_batches > 1;
      break;
    }
    case Strategy::Megatron: {
      const MegatronDtype dtype = in.compute_bytes >= 4 ? MegatronDtype::Fp32
                                  : in.fp16             ? MegatronDtype::Fp16
                                                        : MegatronDtype::Bf16;
      StateBytesPerParam s = megatron_state_bytes(in.distributed_optimizer, int(shard), dtype, moments);
      const double experts = rank_expert_params(in);
      // The routed experts' optimizer is sharded over edp = tp dp cp / (etp ep).
      const int edp = std::max(1, int(shard) * std::max(1, in.tp) / (expert_tp(in) * std::max(1, in.ep)));
      StateBytesPerParam se = megatron_state_bytes(in.distributed_optimizer, edp, dtype, moments);
      if (in.megatron_without_master) {  // the optimizer updates the param_dtype parameters: no master
        const double pb = in.param_bytes, ob = moments;
        const double d = in.distributed_optimizer ? shard : 1, de = in.distributed_optimizer ? edp : 1;
        s = {pb, pb, 2 * ob / d};
        se = {pb, pb, 2 * ob / de};
        h.optimizer_temp = ob * adamw_temp_params(in, p, 1);
      }
      h.weights = s.weights * p;
      h.gradients = s.gradients * p;
      h.optimizer = s.optimizer * (p - experts) + se.optimizer * experts;
      break;
    }
  }
  return h;
}

void add(std::vector<Term>& terms, const char* name, double bytes) {
  if (bytes > 0) terms.push_back({name, bytes});
}

}  // namespace

RankEstimate estimate_rank(const MemoryInputs& in) {
  const model::ModelShape& m = in.model;
  const double p = rank_params(in);
  const Held h = held(in, p);
  const bool last = in.stage == std::max(1, in.pp) - 1;
  const double tokens = double(in.micro_batch) * m.seq / std::max(1, in.cp);
  const double blocks = in.strategy == Strategy::Megatron
                            ? pipeline_blocks_in_flight(int(stage_layer_ids(in).size()), in.pp, in.vp, in.stage,
                                                        in.micro_batches, in.zero_bubble)
                            : double(m.layers);
  double activations = tokens * blocks * stage_block_activation_bytes_per_token(in);
  if (in.recompute == Recompute::Full && in.checkpoint_every > 1 && in.strategy != Strategy::Megatron) {
    MemoryInputs kept = in;  // the blocks not checkpointed
    kept.recompute = Recompute::None;
    const double checkpointed = double(m.layers / in.checkpoint_every);
    activations = tokens * (checkpointed * stage_block_activation_bytes_per_token(in) +
                            (m.layers - checkpointed) * stage_block_activation_bytes_per_token(kept));
  }
  if (last) activations += tokens * kFinalNormBytesPerHidden * m.hidden * in.compute_bytes / 2;
  const double recompute_block =
      in.recompute == Recompute::Full
          ? tokens *
                (recompute_working_bytes_per_token(m, in.tp, in.sequence_parallel, in.compute_bytes, expert_tp(in)) +
                 (in.unfused_attention ? unfused_score_bytes_per_token(m, in.tp, in.compute_bytes) : 0))
          : 0;
  const double loss_bytes = in.megatron_loss ? megatron_loss_bytes_per_entry(in.compute_bytes) : kLogitBytesPerEntry;
  const double logit_bytes = loss_bytes + (in.keep_logits ? in.compute_bytes : 0);
  const double logits = last ? tokens * logit_bytes * m.vocab / std::max(1, in.vocab_shards) : 0;

  auto common = [&](std::vector<Term>& t) {
    add(t, "nccl_buffers", in.nccl_bytes);
    add(t, "framework_overhead", in.framework_overhead_bytes);
  };
  RankEstimate e;
  Phase fb{"forward_backward", {}};
  add(fb.terms, "weights", h.weights);
  if (h.grads_in_forward) add(fb.terms, "gradients", h.gradients);
  add(fb.terms, "optimizer_states", h.optimizer);
  add(fb.terms, "gathered_params", h.gathered_fb);
  if (in.strategy == Strategy::Zero3) add(fb.terms, "unit_gradients", h.unit_grads);
  add(fb.terms, "grad_buckets", h.buckets);
  add(fb.terms, "activations", activations);
  // The last block is recomputed after the loss's backward has freed the logits and their
  // gradients: the moment holds the larger of the two, so recompute_block is what the recomputed
  // block adds beyond the logits (all of it on a stage without the output layer).
  add(fb.terms, "recompute_block", std::max(0.0, recompute_block - logits));
  add(fb.terms, "logits", logits);
  common(fb.terms);
  e.phases.push_back(std::move(fb));
  if (h.sharded) {
    Phase end{"backward_end", {}};
    add(end.terms, "weights", h.weights);
    add(end.terms, "gradients", h.gradients);
    add(end.terms, "optimizer_states", h.optimizer);
    add(end.terms, "gathered_params", h.gathered_end);
    add(end.terms, "unit_gradients", h.unit_grads);
    add(end.terms, "grad_buckets", h.buckets);
    common(end.terms);
    e.phases.push_back(std::move(end));
  }
  Phase opt{"optimizer", {}};
  add(opt.terms, "weights", h.weights);
  add(opt.terms, "gradients", h.gradients);
  add(opt.terms, "optimizer_states", h.optimizer);
  add(opt.terms, "optimizer_temp", h.optimizer_temp);
  add(opt.terms, "grad_buckets", h.buckets);
  common(opt.terms);
  e.phases.push_back(std::move(opt));
  for (std::size_t i = 1; i < e.phases.size(); ++i)
    if (e.phases[i].total() > e.phases[e.peak].total()) e.peak = int(i);
  return e;
}

}  // namespace models::memory
