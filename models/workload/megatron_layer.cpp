// One Megatron transformer layer's compute and TP/SP/CP communication on one rank (equations and
// sources in megatron_layer.hpp).
#include "models/workload/megatron_layer.hpp"

#include "sim/check.hpp"

namespace models::workload {

using nccl::CollOp;
using namespace megatron_slots;

LayerWork megatron_layer_work(const ModelShape& m, const ParallelLayout& l, const TrainingSpec& t) {
  LayerWork w;
  const double e = dtype_bytes(t.dtype);
  const double b = l.micro_batch, s = m.seq, h = m.hidden, tp = l.tp, cp = l.cp;
  const double tokens = b * s / cp;
  const double norm_tokens = l.sequence_parallel ? tokens / tp : tokens;
  w.qkv_flops = 2 * tokens * h * (h + 2.0 * double(m.kv_dim())) / tp;
  w.proj_flops = 2 * tokens * h * h / tp;
  w.fc1_flops = 2 * tokens * h * double(m.ffn) * (m.gated_mlp ? 2 : 1) / tp;
  w.fc2_flops = 2 * tokens * double(m.ffn) * h / tp;
  const bool flash = t.attention_backend != "unfused";
  w.core_flops = 4 * b * (s / cp) * s * h / tp * (flash ? 0.5 : 1.0);
  w.norm_bytes = 2 * e * h * norm_tokens;
  w.resid_bytes = 3 * e * h * norm_tokens;
  w.act_bytes = (m.gated_mlp ? 3 : 2) * e * tokens * double(m.ffn) / tp;
  if (!flash) {
    const double scores = b * (double(m.heads) / tp) * (s / cp) * s;
    w.score_bytes_fwd = scores * (6 * e + 1);
    w.score_bytes_bwd = scores * (9 * e + 1);
  }
  w.tp_bytes = int64_t(tokens * h * e);
  w.cp_kv_bytes = int64_t(2 * b * (s / cp) * (double(m.kv_heads) / tp) * double(m.head_dim()) * e);
  return w;
}

namespace {
// Cross-entropy over the logits: 16 B per logit (16-bit in, fp32 softmax, 16-bit gradient out), the
// layer model's count (the two-rate compute model's, kept with its rates: compute.hpp's ComputeRates).
constexpr double kLossBytesPerLogit = 16;
double loss_bytes(const ModelShape& m, int64_t tokens, int tp) {
  return kLossBytesPerLogit * double(tokens) * double(m.vocab) / tp;
}
}  // namespace

MegatronLayer::MegatronLayer(const ModelShape& m, const ParallelLayout& l, const TrainingSpec& t,
                             const ComputeRates& rates, Program& p)
    : m_(m), l_(l), rates_(rates), p_(p), w_(megatron_layer_work(m, l, t)) {
  e_ = dtype_bytes(t.dtype);
  tokens_ = int64_t(l.micro_batch) * m.seq / l.cp;
  norm_tokens_ = l.sequence_parallel ? tokens_ / l.tp : tokens_;
  flash_ = t.attention_backend != "unfused";
}

double MegatronLayer::price(double flops, double bytes) const {
  // The layer model's two rates (ComputeRates::layer_*, models/workload/compute.hpp); the GEMM law
  // of models/compute/ (and its power-limit stretch) replaces them once refitted on these rows.
  return flops / rates_.layer_flops_per_s + bytes / rates_.layer_bytes_per_s;
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
void MegatronLayer::row_backward(double gemm_fwd_s, const std::string& name) {
  if (!l_.sequence_parallel || l_.tp == 1) return compute(2 * gemm_fwd_s, name + " dgrad+wgrad");
  if (l_.tp_comm_overlap) {
    tp_beside(CollOp::AllGather, gemm_fwd_s, name + " ag+dgrad");
  } else {
    tp(CollOp::AllGather, name + " sp all_gather grad");
    compute(gemm_fwd_s, name + " dgrad");
  }
  compute(gemm_fwd_s, name + " wgrad");
}

// Column-parallel linear backward (qkv, fc1, logits): Megatron's
// LinearWithGradAccumulationAndAsyncCommunication: without SP the input gradient's all-reduce
// runs beside the wgrad GEMM; with SP the input is all-gathered again beside the dgrad GEMM and
// the input gradient reduce-scattered beside the wgrad GEMM.
void MegatronLayer::column_backward(double gemm_fwd_s, const std::string& name) {
  if (l_.tp == 1) return compute(2 * gemm_fwd_s, name + " dgrad+wgrad");
  if (l_.sequence_parallel) {
    tp_beside(CollOp::AllGather, gemm_fwd_s, name + " ag input+dgrad");
    tp_beside(CollOp::ReduceScatter, gemm_fwd_s, name + " rs grad+wgrad");
    return;
  }
  compute(gemm_fwd_s, name + " dgrad");
  tp_beside(CollOp::AllReduce, gemm_fwd_s, name + " ar grad+wgrad");
}

void MegatronLayer::attention_core(bool backward, const std::string& name) {
  const double factor = backward ? 2 : 1;
  const double bytes = backward ? w_.score_bytes_bwd : w_.score_bytes_fwd;
  if (l_.cp == 1) return compute(price(factor * w_.core_flops, bytes), name);
  // Ring attention: cp steps of 1/cp of the work; the first cp - 1 exchange K/V (and dK/dV).
  const double step_s = price(factor * w_.core_flops / l_.cp, bytes / l_.cp);
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

void MegatronLayer::forward(const std::string& tag, bool recompute) {
  const std::string n = tag + (recompute ? "recompute" : "fwd");
  compute(price(0, w_.norm_bytes), n + " norm");
  tp_entry(price(w_.qkv_flops, 0), n + " qkv");
  attention_core(false, n + " attn");
  tp_exit(price(w_.proj_flops, 0), n + " proj");
  compute(price(0, w_.resid_bytes + w_.norm_bytes), n + " add+norm");
  tp_entry(price(w_.fc1_flops, 0), n + " fc1");
  compute(price(0, w_.act_bytes), n + " act");
  tp_exit(price(w_.fc2_flops, 0), n + " fc2");
  compute(price(0, w_.resid_bytes), n + " add");
}

void MegatronLayer::backward(const std::string& tag) {
  if (l_.recompute == Recompute::Full) forward(tag, true);
  const std::string n = tag + "bwd";
  compute(price(0, 2 * w_.resid_bytes), n + " add");
  row_backward(price(w_.fc2_flops, 0), n + " fc2");
  compute(price(0, 2 * w_.act_bytes), n + " act");
  column_backward(price(w_.fc1_flops, 0), n + " fc1");
  compute(price(0, 2 * (w_.norm_bytes + w_.resid_bytes)), n + " norm+add");
  row_backward(price(w_.proj_flops, 0), n + " proj");
  if (l_.recompute == Recompute::Selective) attention_core(false, tag + "recompute attn");
  attention_core(true, n + " attn");
  column_backward(price(w_.qkv_flops, 0), n + " qkv");
  compute(price(0, 2 * w_.norm_bytes), n + " norm");
}

// Vocab-parallel embedding: each TP rank looks up its vocabulary shard, then the partial
// embeddings are summed (all-reduce; reduce-scatter to the sequence shards with SP); GPT adds
// the position embedding and dropout: ~3 passes over T h.
void MegatronLayer::embedding_forward(const std::string& tag) {
  compute(price(0, 3.0 * e_ * double(tokens_) * m_.hidden), tag + "embedding");
  tp(l_.sequence_parallel ? CollOp::ReduceScatter : CollOp::AllReduce, tag + "embedding tp reduce");
}

void MegatronLayer::embedding_backward(const std::string& tag) {
  if (l_.sequence_parallel) tp(CollOp::AllGather, tag + "embedding sp all_gather grad");
  compute(price(0, 3.0 * e_ * double(tokens_) * m_.hidden), tag + "embedding bwd");
}

// Output layer: final norm, logits (column-parallel over the vocabulary, the input gathered with
// SP), vocab-parallel cross entropy (three all-reduces of one fp32 value per token: max, sum of
// exponentials, target logit) and its memory-bound work (compute.hpp loss_bytes, half forward).
void MegatronLayer::head_forward(const std::string& tag) {
  const double logits = 2.0 * double(tokens_) * m_.hidden * double(m_.vocab) / l_.tp;
  compute(price(0, w_.norm_bytes), tag + "final norm");
  tp_entry(price(logits, 0), tag + "logits");
  compute(price(0, 0.5 * loss_bytes(m_, tokens_, l_.tp)), tag + "cross entropy");
  if (l_.tp > 1) {
    flush();
    for (const char* what : {"max", "sum exp", "target"})
      p_.collective(kCompute, kGroupTp, CollOp::AllReduce, tokens_ * 4, tag + "loss all_reduce " + what);
  }
}

void MegatronLayer::head_backward(const std::string& tag) {
  const double logits = 2.0 * double(tokens_) * m_.hidden * double(m_.vocab) / l_.tp;
  compute(price(0, 0.5 * loss_bytes(m_, tokens_, l_.tp)), tag + "cross entropy bwd");
  column_backward(price(logits, 0), tag + "logits");
  compute(price(0, 2 * w_.norm_bytes), tag + "final norm bwd");
}

}  // namespace models::workload
