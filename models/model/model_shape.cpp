// Model presets and parameter counting. Shapes are the published configs (config.json of each
// model on the Hugging Face hub); the parameter totals are checked in tests/models/workload_shape.
#include "models/model/model_shape.hpp"

#include <array>

#include "models/error.hpp"

namespace models::model {

namespace {
struct Preset {
  const char* name;
  int layers, hidden, heads, kv_heads, ffn, vocab;
  bool tied, gated;
};
// Llama (SwiGLU, untied): the config.json of each model on the Hugging Face hub:
// meta-llama/Meta-Llama-3-8B, Meta-Llama-3-70B, Llama-2-7b-hf, Llama-3.1-8B, Llama-3.1-70B,
// Llama-3.1-405B (num_hidden_layers, hidden_size, num_attention_heads, num_key_value_heads,
// intermediate_size, vocab_size). h200x4-decoder is the decoder of
// scenarios/validation/h200x4/measured/README.md (no GQA: 32 heads share nothing).
// GPT (GELU, ffn = 4h, embeddings tied as Megatron-LM's GPT does): GPT-3 175B, Brown et al. 2020
// Table 2.1 (96 layers, d_model 12288, 96 heads of 128; vocabulary: GPT-2's BPE, 50,257).
// Megatron's published runs (vocabulary 51,200 = GPT-2's padded as Megatron-LM pads it at tp 8):
// Korthikanti et al. 2022 Table 3 / calculon-ai/calculon models/*.json (22B, 530B = MT-NLG, 1T;
// their 175B is gpt3-175b with that vocabulary) and Narayanan et al. SC'21 Table 1 / NVIDIA/Megatron-LM examples/sc21/
// run_table_1.sh (NLS, HS, NAH of each row).
constexpr std::array<Preset, 19> kPresets{{
    {"llama-3-8b", 32, 4096, 32, 8, 14336, 128256, false, true},
    {"llama-3-70b", 80, 8192, 64, 8, 28672, 128256, false, true},
    {"llama-2-7b", 32, 4096, 32, 32, 11008, 32000, false, true},
    {"h200x4-decoder", 8, 4096, 32, 32, 14336, 32000, false, true},
    {"llama-3.1-8b", 32, 4096, 32, 8, 14336, 128256, false, true},
    {"llama-3.1-70b", 80, 8192, 64, 8, 28672, 128256, false, true},
    {"llama-3.1-405b", 126, 16384, 128, 8, 53248, 128256, false, true},
    {"gpt3-175b", 96, 12288, 96, 96, 49152, 50257, true, false},
    {"megatron-22b", 48, 6144, 64, 64, 24576, 51200, true, false},
    {"mt-nlg-530b", 105, 20480, 128, 128, 81920, 51200, true, false},
    {"megatron-1t", 128, 25600, 160, 160, 102400, 51200, true, false},
    {"sc21-1.7b", 24, 2304, 24, 24, 9216, 51200, true, false},
    {"sc21-3.6b", 30, 3072, 32, 32, 12288, 51200, true, false},
    {"sc21-7.5b", 36, 4096, 32, 32, 16384, 51200, true, false},
    {"sc21-18b", 40, 6144, 48, 48, 24576, 51200, true, false},
    {"sc21-39b", 48, 8192, 64, 64, 32768, 51200, true, false},
    {"sc21-76b", 60, 10240, 80, 80, 40960, 51200, true, false},
    {"sc21-145b", 80, 12288, 96, 96, 49152, 51200, true, false},
    {"sc21-310b", 96, 16384, 128, 128, 65536, 51200, true, false},
}};
// The MoE keys on top of the preset's; checked at the key at fault.
void resolve_moe(const ModelSpec& spec, ModelShape& m) {
  MoeSpec& e = m.moe;
  if (spec.experts) e.experts = *spec.experts;
  if (spec.top_k) e.top_k = *spec.top_k;
  if (spec.moe_ffn) e.moe_ffn = *spec.moe_ffn;
  if (spec.shared_experts) e.shared_experts = *spec.shared_experts;
  if (spec.moe_first_dense) e.first_dense = *spec.moe_first_dense;
  if (spec.moe_stride) e.stride = *spec.moe_stride;
  if (spec.capacity_factor) e.capacity_factor = *spec.capacity_factor;
  if (spec.token_skew) e.token_skew = *spec.token_skew;
  if (e.experts == 0) {
    const std::pair<const char*, bool> moe_only[] = {
        {"model.top_k", spec.top_k.has_value()},
        {"model.moe_ffn", spec.moe_ffn.has_value()},
        {"model.shared_experts", spec.shared_experts.has_value()},
        {"model.moe_first_dense", spec.moe_first_dense.has_value()},
        {"model.moe_layers", spec.moe_stride.has_value()},
        {"model.capacity_factor", spec.capacity_factor.has_value()},
        {"model.token_skew", spec.token_skew.has_value()},
    };
    for (const auto& [key, set] : moe_only)
      if (set)
        throw SpecError(key, std::string(key).substr(6) + " needs a mixture-of-experts model (expected model.experts > 0)");
    e = MoeSpec{};
    return;
  }
  if (e.moe_ffn == 0) e.moe_ffn = m.ffn;
  if (e.top_k > e.experts)
    throw SpecError("model.top_k",
                    "top_k = " + std::to_string(e.top_k) + " exceeds the " + std::to_string(e.experts) + " experts");
  if (e.moe_ffn <= 0) throw SpecError("model.moe_ffn", "moe_ffn must be a positive integer (or give ffn)");
  if (e.first_dense >= m.layers && m.layers > 0)
    throw SpecError("model.moe_first_dense", "moe_first_dense = " + std::to_string(e.first_dense) +
                                                 " leaves no MoE layer of the " + std::to_string(m.layers));
}
}  // namespace

int64_t ModelShape::block_matmul_params() const {
  const int64_t h = hidden;
  return 2 * h * h + 2 * h * kv_dim() + mlp_matrices() * h * int64_t(ffn);
}

int64_t ModelShape::moe_dense_params() const {
  return int64_t(moe.experts) * hidden + int64_t(moe.shared_experts) * 3 * hidden * moe.moe_ffn;
}

int64_t ModelShape::moe_expert_params() const { return int64_t(moe.experts) * 3 * hidden * moe.moe_ffn; }

int64_t ModelShape::total_params() const {
  const int moe_n = moe_layers();
  const int64_t moe_block = attention_matmul_params() + moe_dense_params() + moe_expert_params() + block_norm_params();
  return int64_t(layers - moe_n) * block_params() + moe_n * moe_block + embedding_params() + hidden + head_params();
}

const std::vector<std::string>& preset_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const auto& p : kPresets) v.emplace_back(p.name);
    for (const char* p : {"mixtral-8x7b", "deepseek-v3"}) v.emplace_back(p);
    return v;
  }();
  return names;
}

ModelShape resolve_model(const ModelSpec& spec) {
  ModelShape m;
  if (!spec.preset.empty()) {
    const Preset* found = nullptr;
    for (const auto& p : kPresets)
      if (spec.preset == p.name) found = &p;
    if (!found && !find_moe_preset(spec.preset)) {
      std::string list;
      for (const std::string& p : preset_names()) list += std::string(list.empty() ? "" : ", ") + p;
      throw SpecError("model.preset", "unknown model preset '" + spec.preset + "' (expected one of " + list + ")");
    }
    if (found) {
      m = ModelShape{found->name,  found->layers, found->hidden, found->heads, found->kv_heads, found->ffn,
                     found->vocab, spec.seq,      found->tied,   found->gated, MoeSpec{}};
    } else {  // a mixture-of-experts preset (sources in moe.cpp)
      const MoePreset* moe = find_moe_preset(spec.preset);
      m = ModelShape{moe->name,  moe->layers, moe->hidden, moe->heads, moe->kv_heads, moe->ffn,
                     moe->vocab, spec.seq,    false,       true,       moe->moe};
    }
  } else {
    m.name = "custom";
  }
  if (spec.layers) m.layers = spec.layers;
  if (spec.hidden) m.hidden = spec.hidden;
  if (spec.heads) m.heads = spec.heads;
  if (spec.kv_heads) m.kv_heads = spec.kv_heads;
  if (spec.ffn) m.ffn = spec.ffn;
  if (spec.vocab) m.vocab = spec.vocab;
  m.seq = spec.seq;
  if (spec.tied_embeddings) m.tied_embeddings = true;
  if (spec.mlp == "gelu")
    m.gated_mlp = false;
  else if (spec.mlp == "swiglu")
    m.gated_mlp = true;
  else if (!spec.mlp.empty())
    throw SpecError("model.mlp", "unknown MLP '" + spec.mlp + "' (expected swiglu or gelu)");
  resolve_moe(spec, m);
  if (m.kv_heads == 0) m.kv_heads = m.heads;  // no GQA given: multi-head attention
  const std::pair<const char*, int> need[] = {{"layers", m.layers}, {"hidden", m.hidden}, {"heads", m.heads},
                                              {"ffn", m.ffn},       {"vocab", m.vocab},   {"seq", m.seq}};
  for (const auto& [key, v] : need)
    if (v <= 0)
      throw SpecError(
          std::string("model.") + key,
          std::string("model ") + key + " is missing or not positive (expected a positive integer, or model.preset)");
  if (m.hidden % m.heads != 0)
    throw SpecError("model.heads", "hidden size " + std::to_string(m.hidden) + " is not divisible by " +
                                       std::to_string(m.heads) + " heads (expected heads dividing hidden)");
  if (m.heads % m.kv_heads != 0)
    throw SpecError("model.kv_heads", std::to_string(m.heads) + " heads are not a multiple of " +
                                          std::to_string(m.kv_heads) +
                                          " kv_heads (expected kv_heads dividing heads: grouped-query attention)");
  return m;
}

}  // namespace models::model
