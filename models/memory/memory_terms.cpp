// Closed forms of training memory (equations and sources in memory_terms.hpp).
#include "models/memory/memory_terms.hpp"

#include <algorithm>

namespace models::memory {

const char* recompute_name(Recompute r) {
  switch (r) {
    case Recompute::None: return "none";
    case Recompute::Selective: return "selective";
    case Recompute::Full: return "full";
    case Recompute::SelectiveOp: return "selective_op";
  }
  return "?";
}

double block_activation_bytes_per_token(const model::ModelShape& m, int tp, bool sequence_parallel, Recompute r,
                                        int act_bytes) {
  const double h = m.hidden, f = m.ffn, t = std::max(1, tp), e = act_bytes;
  if (r == Recompute::Full) return e * h / (sequence_parallel ? t : 1);
  const model::AttentionShape a = m.attention();
  if (r == Recompute::SelectiveOp) return e * (2 * h + double(a.q_dim() + a.v_dim() + a.o_in()) / t + f / t);
  const double mlp = m.gated_mlp ? 4 : 2;  // SwiGLU: gate, SiLU, up, product; GELU: fc1's output, GELU's
  const double replicated = 4 * e * h / (sequence_parallel ? t : 1) + e * double(a.saved_latent_elements());
  const double split = (e * double(a.saved_split_elements()) + mlp * e * f) / t;
  return replicated + split;
}

double unfused_score_bytes_per_token(const model::ModelShape& m, int tp, int act_bytes) {
  return (2.0 * act_bytes + 1) * double(m.heads) * double(m.seq) / std::max(1, tp);
}

double repeated_kv_bytes_per_token(const model::ModelShape& m, int tp, int act_bytes) {
  const model::AttentionShape a = m.attention();
  if (a.is_mla() || a.kv_heads >= a.heads) return 0;
  return 2.0 * act_bytes * double(a.heads - a.kv_heads) * double(a.head_dim) / std::max(1, tp);
}

double moe_block_activation_bytes_per_token(const model::ModelShape& m, int tp, bool sequence_parallel, Recompute r,
                                            int act_bytes, int etp) {
  if (r == Recompute::Full) return block_activation_bytes_per_token(m, tp, sequence_parallel, r, act_bytes);
  const model::MoeSpec& moe = m.moe;
  const double h = m.hidden, t = std::max(1, tp), e = act_bytes;
  const model::AttentionShape a = m.attention();
  const double copies = model::expert_load(moe) * moe.top_k;  // routed copies the busiest rank receives
  const double f_e = moe.moe_ffn;
  const double sp = sequence_parallel ? t : 1;
  const double replicated = 4 * e * h / sp + e * double(a.saved_latent_elements());
  const double attention = e * double(a.saved_split_elements()) / t;
  const double gathered = etp > 0 ? double(etp) / t : 1.0;  // the ETP group's copies per routed token
  // The combine keeps the rank's own T / tp tokens' routed copies, back from the all-to-all: not
  // skewed (token_skew is what the busiest expert rank receives).
  const double combined = model::routed_copies(moe) * moe.top_k / t;
  const double routed = e * h * (copies * gathered + combined) + 4 * e * f_e * copies / t;
  const double shared = 4 * e * moe.shared_experts * f_e / t;
  const double router = 8.0 * moe.experts / sp;  // fp32 logits and probabilities
  return replicated + attention + routed + shared + router;
}

double recompute_working_bytes_per_token(const model::ModelShape& m, int tp, bool sequence_parallel, int act_bytes,
                                         int etp) {
  const double dense = block_activation_bytes_per_token(m, tp, sequence_parallel, Recompute::None, act_bytes);
  if (!m.is_moe()) return dense;
  return std::max(dense,
                  moe_block_activation_bytes_per_token(m, tp, sequence_parallel, Recompute::None, act_bytes, etp));
}

double korthikanti_layer_bytes(double s, double b, double h, double a, int tp, bool sequence_parallel, Recompute r) {
  const double t = std::max(1, tp), sbh = s * b * h, scores = 5 * a * s / (h * t);
  switch (r) {
    case Recompute::Full: return 2 * sbh;
    case Recompute::Selective: return sequence_parallel ? 34 * sbh / t : sbh * (10 + 24 / t);
    case Recompute::None:
    case Recompute::SelectiveOp:  // not in the paper: its none, an upper bound
      return sequence_parallel ? sbh * (34 / t + scores) : sbh * (10 + 24 / t + scores);
  }
  return 0;
}

double pipeline_blocks_in_flight(int stage_layers, int pp, int vp, int stage, int micro_batches, bool zero_bubble) {
  const int p = std::max(1, pp), v = std::max(1, vp), m = std::max(1, micro_batches);
  if (v == 1 && zero_bubble) {
    // ZB-H1: 1F1B's p - s, plus the deferred W's (s of them, pipeline_schedule.hpp), each holding its
    // linear layers' inputs and output gradients: about a whole micro-batch's activations
    // (Korthikanti et al. 2022's 34 sbh / t per layer with SP: inputs 14 sbh, output gradients
    // 18 sbh). So every stage holds about p micro-batches, stage 0's 1F1B peak (Qi et al. 2024:
    // ZB-H1's peak memory is 1F1B's).
    const int warmup = std::min(p - stage - 1, m), deferred = std::min(stage, m - warmup);
    return double(stage_layers) * std::min(p - stage + deferred, m);
  }
  if (v == 1) return double(stage_layers) * std::min(p - stage, m);
  const int chunks = std::min((p - stage - 1) * 2 + (v - 1) * p + 1, m * v);
  return double(stage_layers) / v * chunks;
}

StateBytesPerParam zero_state_bytes(int stage, int n, bool offload_optimizer, bool offload_param, int moment_bytes,
                                    int weight_bytes) {
  const double kAdam = 4 + 2.0 * moment_bytes;  // fp32 master, m, v (12 with fp32 moments)
  const double d = std::max(1, n), w = weight_bytes;
  StateBytesPerParam s;
  s.weights = stage >= 3 ? w / d : w;
  s.gradients = stage >= 2 ? w / d : w;
  s.optimizer = stage >= 1 ? kAdam / d : kAdam;
  if (offload_optimizer) s.optimizer = s.gradients = 0;  // fp32 master, m, v and the gradients on the host
  if (offload_param && stage >= 3) s.weights = 0;        // the parameter partition on the host too
  return s;
}

StateBytesPerParam megatron_state_bytes(bool distributed_optimizer, int d, MegatronDtype dtype, int moment_bytes) {
  const double n = distributed_optimizer ? std::max(1, d) : 1;
  const double moments = 2.0 * moment_bytes;  // m and v
  StateBytesPerParam s;
  switch (dtype) {
    case MegatronDtype::Bf16:  // fp32 master, m, v: 12 with fp32 moments
      s.weights = 2, s.gradients = 4, s.optimizer = (4 + moments) / n;
      break;
    case MegatronDtype::Fp16:  // fp32 master, fp32 main gradient, m, v: 16
      s.weights = 2, s.gradients = 2, s.optimizer = (4 + 4 + moments) / n;
      break;
    case MegatronDtype::Fp32:  // m, v: 8
      s.weights = 4, s.gradients = 4, s.optimizer = moments / n;
      break;
  }
  return s;
}

double nccl_buffer_bytes(int channels, int peers, double buffsize) {
  return double(channels) * peers * (buffsize + kNcclLl128Bytes + kNcclLlBytes);
}

}  // namespace models::memory
