// One Megatron transformer layer's compute and TP/SP/CP communication on one rank (equations and
// sources in megatron_layer.hpp).
#include "models/workload/steps/megatron_layer.hpp"

#include "sim/check.hpp"

namespace models::workload {

using nccl::CollOp;
using namespace megatron_slots;

LayerWork megatron_layer_work(const model::ModelShape& m, const ParallelLayout& l, const TrainingSpec& t) {
  LayerWork w;
  const double e = dtype_bytes(t.dtype);
  const double b = l.micro_batch, s = m.seq, h = m.hidden, tp = l.tp, cp = l.cp;
  const double tokens = b * s / cp;
  const double norm_tokens = l.sequence_parallel ? tokens / tp : tokens;
  const model::AttentionShape a = m.attention();
  if (a.is_mla()) {  // the down projections whole on every TP rank, the up projections by heads
    const double replicated = double(a.replicated_params());
    const double split = double(a.matmul_params() - a.replicated_params()) - double(a.o_in()) * h;
    w.qkv_flops = 2 * tokens * (split / tp + replicated);
  } else {
    w.qkv_flops = 2 * tokens * h * (double(a.q_dim()) + 2.0 * double(m.kv_dim())) / tp;
  }
  w.proj_flops = 2 * tokens * double(a.o_in()) * h / tp;
  w.fc1_flops = 2 * tokens * h * double(m.ffn) * (m.gated_mlp ? 2 : 1) / tp;
  w.fc2_flops = 2 * tokens * double(m.ffn) * h / tp;
  const bool flash = t.attention_backend != "unfused";
  w.core_flops = 4 * b * (s / cp) * s * double(a.core_width()) / tp * (flash ? 0.5 : 1.0);
  w.norm_bytes = 2 * e * h * norm_tokens;
  w.resid_bytes = 3 * e * h * norm_tokens;
  w.act_bytes = (m.gated_mlp ? 3 : 2) * e * tokens * double(m.ffn) / tp;
  if (!flash) {
    const double scores = b * (double(m.heads) / tp) * (s / cp) * s;
    w.score_bytes_fwd = scores * (6 * e + 1);
    w.score_bytes_bwd = scores * (9 * e + 1);
  }
  w.tp_bytes = int64_t(tokens * h * e);
  w.cp_kv_bytes = a.is_mla() ? int64_t(b * (s / cp) * double(a.k_dim() + a.v_dim()) / tp * e)
                             : int64_t(2 * b * (s / cp) * (double(m.kv_heads) / tp) * double(m.head_dim()) * e);
  if (m.is_moe()) {
    const auto router_tokens = int64_t(tokens / tp);  // sequence parallel (required with tp > 1)
    w.moe_a2a_bytes = int64_t(model::moe_alltoall_bytes(m.moe, router_tokens, m.hidden, int(e)));
    // The ETP group gathers its etp ranks' received tokens: etp Tn = T etp / tp (T with etp = tp).
    w.moe_tp_bytes = int64_t(model::moe_alltoall_bytes(m.moe, int64_t(tokens * l.etp / tp), m.hidden, int(e)));
  }
  return w;
}

MegatronLayer::MegatronLayer(const model::ModelShape& m, const ParallelLayout& l, const TrainingSpec& t,
                             const ComputeRates& rates, Program& p)
    : m_(m), l_(l), p_(p), w_(megatron_layer_work(m, l, t)) {
  e_ = dtype_bytes(t.dtype);
  tokens_ = int64_t(l.micro_batch) * m.seq / l.cp;
  norm_tokens_ = l.sequence_parallel ? tokens_ / l.tp : tokens_;
  // Every piece priced once by the compute model's laws (compute.hpp block_kernels, head_kernels).
  k_ = block_kernels(m, tokens_, l.tp, rates, l.sequence_parallel, t.attention_backend != "unfused");
  head_ = head_kernels(m, tokens_, norm_tokens_, l.vocab_parallel ? l.tp : 1, rates, output_layer_rows(m, l),
                       l.megatron_loss);
  if (m.is_moe()) moe_k_ = workload::moe_kernels(m, tokens_, l.tp, l.ep, l.etp, rates);
}

void MegatronLayer::compute(double seconds, const std::string& name) {
  if (pending_s_ == 0) pending_name_ = name;
  pending_s_ += seconds;
}

void MegatronLayer::flush() {
  if (pending_s_ > 0) p_.compute(kCompute, sim::Time::from_seconds(pending_s_), Work::Math, pending_name_);
  pending_s_ = 0;
}

void MegatronLayer::tp(CollOp op, const std::string& name) {
  if (l_.tp == 1) return;
  flush();
  p_.collective(kCompute, kGroupTp, op, w_.tp_bytes, name);
}

void MegatronLayer::tp_async_begin(CollOp op, const std::string& name) {
  flush();
  p_.join(kCompute, kTpAsync);
  p_.collective(kTpAsync, kGroupTp, op, w_.tp_bytes, name);
}

void MegatronLayer::tp_async_end() {
  flush();
  p_.join(kTpAsync, kCompute);
}

void MegatronLayer::tp_beside(CollOp op, double seconds, const std::string& name) {
  tp_async_begin(op, name);
  compute(seconds, name);
  tp_async_end();
}

void MegatronLayer::tp_entry(double gemm_s, const std::string& name) {
  if (l_.sequence_parallel && l_.tp_comm_overlap) return tp_beside(CollOp::AllGather, gemm_s, name + " ag+gemm");
  if (l_.sequence_parallel) tp(CollOp::AllGather, name + " sp all_gather");
  compute(gemm_s, name);
}

void MegatronLayer::tp_exit(double gemm_s, const std::string& name) {
  if (l_.sequence_parallel && l_.tp_comm_overlap) return tp_beside(CollOp::ReduceScatter, gemm_s, name + " gemm+rs");
  compute(gemm_s, name);
  tp(l_.sequence_parallel ? CollOp::ReduceScatter : CollOp::AllReduce,
     name + (l_.sequence_parallel ? " sp reduce_scatter" : " tp all_reduce"));
}

// Row-parallel linear backward (proj, fc2): with SP the output gradient is all-gathered first
// (the backward of the forward's reduce-scatter); then dgrad and wgrad.
void MegatronLayer::row_backward(const compute::LinearSeconds& g, const std::string& name) {
  if (!l_.sequence_parallel || l_.tp == 1) return compute(g.dgrad + wgrad(g), name + " dgrad+wgrad");
  if (l_.tp_comm_overlap) {
    tp_beside(CollOp::AllGather, g.dgrad, name + " ag+dgrad");
  } else {
    tp(CollOp::AllGather, name + " sp all_gather grad");
    compute(g.dgrad, name + " dgrad");
  }
  compute(wgrad(g), name + " wgrad");
}

// Column-parallel linear backward (qkv, fc1, logits): Megatron's
// LinearWithGradAccumulationAndAsyncCommunication: without SP the input gradient's all-reduce
// runs beside the wgrad GEMM; with SP the input is all-gathered again beside the dgrad GEMM and
// the input gradient reduce-scattered beside the wgrad GEMM.
void MegatronLayer::column_backward(const compute::LinearSeconds& g, const std::string& name) {
  if (l_.tp == 1) return compute(g.dgrad + wgrad(g), name + " dgrad+wgrad");
  const bool beside = part_ != BackwardPart::Input;  // ZB-H1's B has no wgrad to hide the reduction
  if (l_.sequence_parallel) {
    tp_beside(CollOp::AllGather, g.dgrad, name + " ag input+dgrad");
    if (beside) return tp_beside(CollOp::ReduceScatter, g.wgrad, name + " rs grad+wgrad");
    return tp(CollOp::ReduceScatter, name + " sp reduce_scatter grad");
  }
  compute(g.dgrad, name + " dgrad");
  if (l_.async_tp_allreduce && beside) return tp_beside(CollOp::AllReduce, g.wgrad, name + " ar grad+wgrad");
  compute(wgrad(g), name + " wgrad");
  tp(CollOp::AllReduce, name + " tp all_reduce grad");
}

void MegatronLayer::attention_core(bool backward, const std::string& name) {
  const double factor = backward ? 2 : 1;
  const double core_s = backward ? k_.attn_bwd : k_.attn_fwd;
  if (l_.cp == 1) return compute(core_s, name);
  // Ring attention: cp steps of 1/cp of the work; the first cp - 1 exchange K/V (and dK/dV).
  const double step_s = core_s / l_.cp;
  const int64_t step_bytes = int64_t(factor) * w_.cp_kv_bytes;
  for (int i = 0; i < l_.cp; ++i) {
    if (i + 1 == l_.cp) {
      compute(step_s, name + " cp step " + std::to_string(i));
      break;
    }
    flush();
    p_.join(kCompute, kCpSend);
    p_.send(kCpSend, kPeerCpNext, step_bytes, name + " cp send kv");
    p_.join(kCompute, kCpRecv);
    p_.recv(kCpRecv, kPeerCpPrev, step_bytes, name + " cp recv kv");
    compute(step_s, name + " cp step " + std::to_string(i));
    flush();
    p_.join(kCpSend, kCompute);
    p_.join(kCpRecv, kCompute);
  }
}

void MegatronLayer::forward(const std::string& tag, bool recompute, bool first_micro_batch) {
  const std::string n = tag + (recompute ? "recompute" : "fwd");
  compute(k_.norm_fwd, n + " norm");
  // fp8 quantizations (0 otherwise); an MoE layer's experts are not counted (not measured).
  compute(k_.fp8_attn_fwd + (moe_ ? 0 : k_.fp8_mlp_fwd), n + " fp8 casts");
  if (first_micro_batch && !recompute)
    compute(k_.fp8_attn_weights + (moe_ ? 0 : k_.fp8_mlp_weights), n + " fp8 weight casts");
  tp_entry(k_.qkv.fwd + k_.latent_norm_fwd, n + " qkv");  // MLA's latent norms between its projections
  compute(k_.rope_fwd + k_.kv_copy_fwd, n + " rope+attn");  // one op with the core's (0 without rotary)
  attention_core(false, n + " attn");
  tp_exit(k_.o.fwd, n + " proj");
  compute(k_.add + k_.norm_fwd, n + " add+norm");
  if (moe_)
    moe_forward(n);
  else
    mlp_forward(n);
  compute(k_.add, n + " add");
}

void MegatronLayer::mlp_forward(const std::string& n) {
  tp_entry(k_.up.fwd, n + " fc1");
  compute(k_.act_fwd, n + " act");
  tp_exit(k_.down.fwd, n + " fc2");
}

void MegatronLayer::mlp_backward(const std::string& n) {
  row_backward(k_.down, n + " fc2");
  compute(k_.act_bwd + k_.bias_mlp_bwd, n + " act");  // the MLP's bias gradients: 0 without biases
  column_backward(k_.up, n + " fc1");
}

void MegatronLayer::moe_collective(int group, CollOp op, int64_t bytes, const std::string& name) {
  if ((group == kGroupEp ? l_.ep : l_.etp) == 1) return;
  flush();
  p_.collective(kCompute, group, op, bytes, name);
}

void MegatronLayer::moe_forward(const std::string& n) {
  const MoeKernels& k = moe_k_;
  compute(k.router.fwd + k.permute, n + " router+permute");
  moe_collective(kGroupEp, CollOp::AllToAll, w_.moe_a2a_bytes, n + " moe dispatch all_to_all");
  moe_collective(kGroupEtp, CollOp::AllGather, w_.moe_tp_bytes, n + " moe tp all_gather");
  compute(k.experts_up.fwd + k.act_fwd + k.experts_down.fwd, n + " experts");
  moe_collective(kGroupEtp, CollOp::ReduceScatter, w_.moe_tp_bytes, n + " moe tp reduce_scatter");
  moe_collective(kGroupEp, CollOp::AllToAll, w_.moe_a2a_bytes, n + " moe combine all_to_all");
  compute(k.permute, n + " unpermute");
  if (m_.moe.shared_experts > 0) {
    tp_entry(k.shared_up.fwd, n + " shared fc1");
    compute(k.shared_act_fwd, n + " shared act");
    tp_exit(k.shared_down.fwd, n + " shared fc2");
  }
}

void MegatronLayer::moe_backward(const std::string& n) {
  const MoeKernels& k = moe_k_;
  if (m_.moe.shared_experts > 0) {
    row_backward(k.shared_down, n + " shared fc2");
    compute(k.shared_act_bwd, n + " shared act");
    column_backward(k.shared_up, n + " shared fc1");
  }
  compute(k.permute, n + " unpermute");
  moe_collective(kGroupEp, CollOp::AllToAll, w_.moe_a2a_bytes, n + " moe combine all_to_all");
  moe_collective(kGroupEtp, CollOp::AllGather, w_.moe_tp_bytes, n + " moe tp all_gather");
  // Grouped as dgrad + wgrad per GEMM, the sums 1F1B's passes have always had (same rounding).
  compute((k.experts_down.dgrad + wgrad(k.experts_down)) + k.act_bwd + (k.experts_up.dgrad + wgrad(k.experts_up)),
          n + " experts");
  moe_collective(kGroupEtp, CollOp::ReduceScatter, w_.moe_tp_bytes, n + " moe tp reduce_scatter");
  moe_collective(kGroupEp, CollOp::AllToAll, w_.moe_a2a_bytes, n + " moe dispatch all_to_all");
  compute(k.permute + (k.router.dgrad + wgrad(k.router)), n + " permute+router");
}

double MegatronLayer::layer_wgrad_seconds() const {
  double s = k_.qkv.wgrad + k_.o.wgrad;
  if (!moe_) return s + k_.up.wgrad + k_.down.wgrad;
  const MoeKernels& k = moe_k_;
  s += k.router.wgrad + k.experts_up.wgrad + k.experts_down.wgrad;
  if (m_.moe.shared_experts > 0) s += k.shared_up.wgrad + k.shared_down.wgrad;
  return s;
}

void MegatronLayer::backward(const std::string& tag, BackwardPart part) {
  if (part == BackwardPart::Weight) return compute(layer_wgrad_seconds(), tag + "bwd wgrads");
  part_ = part;
  if (l_.recompute == Recompute::Full) forward(tag, true);
  const std::string n = tag + "bwd";
  compute(k_.fp8_attn_bwd + (moe_ ? 0 : k_.fp8_mlp_bwd), n + " fp8 grad casts");  // 0 unless fp8
  compute(k_.add, n + " add");
  if (moe_)
    moe_backward(n);
  else
    mlp_backward(n);
  compute(k_.norm_bwd + k_.add, n + " norm+add");
  row_backward(k_.o, n + " proj");
  if (l_.recompute == Recompute::Selective) attention_core(false, tag + "recompute attn");
  attention_core(true, n + " attn");
  compute(k_.rope_bwd + k_.kv_copy_bwd + k_.qkv_copies_bwd + k_.latent_norm_bwd + k_.bias_attn_bwd,
          n + " rope, qkv grad copies");
  column_backward(k_.qkv, n + " qkv");
  compute(k_.norm_bwd + k_.add, n + " norm+add");
  part_ = BackwardPart::Both;
}

// Vocab-parallel embedding: each TP rank looks up its vocabulary shard, then the partial
// embeddings are summed (all-reduce; reduce-scatter to the sequence shards with SP). A replicated
// embedding (vocab_parallel false) needs no communication (with SP each rank keeps its shard). The
// lookup's own kernels are not counted, as in the data-parallel programs (a gather of T h
// elements: under 0.1 % of a layer's time).
void MegatronLayer::embedding_forward(const std::string& tag) {
  if (!l_.vocab_parallel) return;
  tp(l_.sequence_parallel ? CollOp::ReduceScatter : CollOp::AllReduce, tag + "embedding tp reduce");
}

void MegatronLayer::embedding_backward(const std::string& tag) {
  if (l_.vocab_parallel && l_.sequence_parallel) tp(CollOp::AllGather, tag + "embedding sp all_gather grad");
}

// Output layer: final norm, logits (column-parallel over the vocabulary, the input gathered with
// SP), vocab-parallel cross entropy (three all-reduces of one fp32 value per token: max, sum of
// exponentials, target logit) and its memory-bound work (compute.hpp loss_bytes, half forward).
void MegatronLayer::head_forward(const std::string& tag) {
  compute(head_.norm_fwd, tag + "final norm");
  if (l_.vocab_parallel) {
    tp_entry(head_.logits.fwd, tag + "logits");
  } else {  // replicated: the whole sequence's logits on every rank (gathered first with SP)
    if (l_.sequence_parallel) tp(CollOp::AllGather, tag + "logits sp all_gather");
    compute(head_.logits.fwd, tag + "logits");
  }
  compute(head_.loss_fwd, tag + "cross entropy");
  if (l_.vocab_parallel && l_.tp > 1) {
    flush();
    for (const char* what : {"max", "sum exp", "target"})
      p_.collective(kCompute, kGroupTp, CollOp::AllReduce, tokens_ * 4, tag + "loss all_reduce " + what);
  }
}

void MegatronLayer::head_backward(const std::string& tag, BackwardPart part) {
  if (part == BackwardPart::Weight) return compute(head_.logits.wgrad, tag + "logits wgrad");
  part_ = part;
  compute(head_.loss_bwd, tag + "cross entropy bwd");
  if (l_.vocab_parallel)
    column_backward(head_.logits, tag + "logits");
  else  // every rank holds the same input gradient: no reduction (with SP each keeps its shard)
    compute(head_.logits.dgrad + wgrad(head_.logits), tag + "logits dgrad+wgrad");
  compute(head_.norm_bwd, tag + "final norm bwd");
  part_ = BackwardPart::Both;
}

}  // namespace models::workload
