// Mixture-of-experts closed forms (equations and sources in moe.hpp).
#include "models/model/moe.hpp"

#include <algorithm>
#include <array>
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

double moe_alltoall_bytes(const MoeSpec& m, int64_t tokens, int hidden, int act_bytes) {
  return m.token_skew * m.capacity_factor * double(tokens) * m.top_k * hidden * act_bytes;
}

double moe_alltoall_remote_bytes(const MoeSpec& m, int64_t tokens, int hidden, int act_bytes, int ep) {
  const int e = std::max(1, ep);
  return moe_alltoall_bytes(m, tokens, hidden, act_bytes) * (e - 1) / e;
}

ExpertGemms expert_gemms(const MoeSpec& m, int64_t tokens, int hidden, int ep, int etp) {
  ExpertGemms g;
  const int e = std::max(1, ep), t = std::max(1, etp);
  g.local_experts = m.experts / e;
  g.tokens_per_expert = m.token_skew * m.capacity_factor * e * double(tokens) * m.top_k / m.experts;
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

namespace {
// mistralai/Mixtral-8x7B-v0.1 config.json: 32 layers, hidden 4096, 32 heads, 8 kv heads,
// intermediate 14336, vocab 32000, num_local_experts 8, num_experts_per_tok 2, every layer MoE.
// deepseek-ai/DeepSeek-V3 config.json: 61 layers, hidden 7168, 128 heads, dense intermediate
// 18432, moe_intermediate_size 2048, n_routed_experts 256, num_experts_per_tok 8,
// n_shared_experts 1, first_k_dense_replace 3, moe_layer_freq 1, vocab 129280. Its multi-head
// latent attention is not modelled: kv_heads = heads stands in for it.
constexpr std::array<MoePreset, 2> kMoePresets{{
    {"mixtral-8x7b", 32, 4096, 32, 8, 14336, 32000, MoeSpec{8, 2, 14336, 0, 0, 1, 1.0, 1.0},
     "mistralai/Mixtral-8x7B-v0.1 config.json"},
    {"deepseek-v3", 61, 7168, 128, 128, 18432, 129280, MoeSpec{256, 8, 2048, 1, 3, 1, 1.0, 1.0},
     "deepseek-ai/DeepSeek-V3 config.json"},
}};
}  // namespace

const MoePreset* find_moe_preset(const std::string& name) {
  for (const auto& p : kMoePresets)
    if (name == p.name) return &p;
  return nullptr;
}

}  // namespace models::model
