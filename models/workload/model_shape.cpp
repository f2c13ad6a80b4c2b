// Model presets and parameter counting. Shapes are the published configs (config.json of each
// model on the Hugging Face hub); the parameter totals are checked in tests/models/workload_shape.
#include "models/workload/model_shape.hpp"

#include <array>

#include "models/error.hpp"

namespace models::workload {

namespace {
struct Preset {
  const char* name;
  int layers, hidden, heads, kv_heads, ffn, vocab;
  bool tied;
};
// meta-llama/Meta-Llama-3-8B, Meta-Llama-3-70B, Llama-2-7b-hf config.json; h200x4-decoder is the
// decoder of scenarios/validation/h200x4/measured/README.md (no GQA: 32 heads share nothing).
constexpr std::array<Preset, 4> kPresets{{
    {"llama-3-8b", 32, 4096, 32, 8, 14336, 128256, false},
    {"llama-3-70b", 80, 8192, 64, 8, 28672, 128256, false},
    {"llama-2-7b", 32, 4096, 32, 32, 11008, 32000, false},
    {"h200x4-decoder", 8, 4096, 32, 32, 14336, 32000, false},
}};
}  // namespace

int64_t ModelShape::block_matmul_params() const {
  const int64_t h = hidden;
  return 2 * h * h + 2 * h * kv_dim() + 3 * h * int64_t(ffn);
}

int64_t ModelShape::total_params() const {
  return int64_t(layers) * block_params() + embedding_params() + hidden + head_params();
}

const std::vector<std::string>& preset_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const auto& p : kPresets) v.emplace_back(p.name);
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
    if (!found) {
      std::string list;
      for (const auto& p : kPresets) list += std::string(list.empty() ? "" : ", ") + p.name;
      throw SpecError("model.preset", "unknown model preset '" + spec.preset + "' (expected one of " + list + ")");
    }
    m = ModelShape{found->name, found->layers, found->hidden, found->heads, found->kv_heads,
                   found->ffn,  found->vocab,  spec.seq,      found->tied};
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

}  // namespace models::workload
