// Mixture-of-experts closed forms (equations and sources in moe.hpp).
#include "models/model/moe.hpp"

#include <algorithm>
#include <cmath>

namespace models::model {

bool is_moe_layer(const MoeSpec& m, int layer) {
  if (m.experts <= 0 || layer < m.first_dense) return false;
  return (layer - m.first_dense) % std::max(1, m.stride) == 0;
}

int moe_layer_count(const MoeSpec& m, int layers) {
  int n = 0;
  for (int l = 0; l < layers; ++l) n += is_moe_layer(m, l) ? 1 : 0;
  return n;
}

double expert_load(const MoeSpec& m) {
  if (m.capacity_factor <= 0) return m.token_skew;
  return m.pad_to_capacity ? m.capacity_factor : std::min(m.token_skew, m.capacity_factor);
}

double routed_copies(const MoeSpec& m) { return m.capacity_factor > 0 && m.pad_to_capacity ? m.capacity_factor : 1.0; }

double moe_alltoall_bytes(const MoeSpec& m, int64_t tokens, int hidden, int act_bytes) {
  return expert_load(m) * double(tokens) * m.top_k * hidden * act_bytes;
}

double moe_alltoall_remote_bytes(const MoeSpec& m, int64_t tokens, int hidden, int act_bytes, int ep) {
  const int e = std::max(1, ep);
  return moe_alltoall_bytes(m, tokens, hidden, act_bytes) * (e - 1) / e;
}

ExpertGemms expert_gemms(const MoeSpec& m, int64_t tokens, int hidden, int ep, int etp) {
  ExpertGemms g;
  const int e = std::max(1, ep), t = std::max(1, etp);
  g.local_experts = m.experts / e;
  g.tokens_per_expert = expert_load(m) * e * double(tokens) * m.top_k / m.experts;
  const auto n_e = int64_t(std::ceil(g.tokens_per_expert));
  const int64_t f = m.moe_ffn / t;
  g.gate_up = {n_e, f, hidden};
  g.down = {n_e, hidden, f};
  g.forward_flops = g.local_experts * 3 * 2.0 * g.tokens_per_expert * hidden * double(f);
  return g;
}

double expert_params_per_rank(const MoeSpec& m, int hidden, int ep, int etp) {
  return double(m.experts) * 3 * hidden * double(m.moe_ffn) / (std::max(1, ep) * std::max(1, etp));
}

}  // namespace models::model
