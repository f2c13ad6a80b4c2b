// The attention's matrices (equations and sources in attention.hpp).
#include "models/model/attention.hpp"

#include <algorithm>

namespace models::model {

std::vector<AttentionLinear> AttentionShape::linears() const {
  const int64_t h = hidden;
  if (!is_mla()) return {{"q", h, q_dim(), true}, {"k", h, k_dim(), true}, {"v", h, v_dim(), true}, {"o", o_in(), h, true}};
  std::vector<AttentionLinear> l;
  if (mla.q_lora_rank > 0) {
    l.push_back({"q_a", h, mla.q_lora_rank, false});
    l.push_back({"q_b", mla.q_lora_rank, q_dim(), true});
  } else {
    l.push_back({"q", h, q_dim(), true});
  }
  l.push_back({"kv_a", h, int64_t(mla.kv_lora_rank) + mla.qk_rope_head_dim, false});
  l.push_back({"kv_b", mla.kv_lora_rank, heads * (int64_t(mla.qk_nope_head_dim) + mla.v_head_dim), true});
  l.push_back({"o", o_in(), h, true});
  return l;
}

int64_t AttentionShape::matmul_params() const {
  if (!is_mla()) return 2 * hidden * q_dim() + 2 * hidden * k_dim();  // q, o; k, v (GQA: k_dim = v_dim)
  int64_t p = 0;
  for (const AttentionLinear& l : linears()) p += l.params();
  return p;
}

int64_t AttentionShape::replicated_params() const {
  int64_t p = 0;
  for (const AttentionLinear& l : linears())
    if (!l.split) p += l.params();
  return p;
}

int64_t AttentionShape::saved_latent_elements() const {
  if (!is_mla()) return 0;
  return 2 * int64_t(mla.q_lora_rank) + 2 * int64_t(mla.kv_lora_rank) + mla.qk_rope_head_dim;
}

double LocalAttention::mean_keys(int seq) const {
  const double s = seq, full = s / 2;
  if (window <= 0 || layers <= 0 || window >= seq) return full;
  const double w = window, local = chunked ? w / 2 : w - w * w / (2 * s);
  const double f = double(layers) / std::max(1, period);
  return (1 - f) * full + f * local;
}

}  // namespace models::model
