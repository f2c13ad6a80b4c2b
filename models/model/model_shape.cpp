// Model shapes and parameter counting (equations in model_shape.hpp; the presets and their sources
// in presets.cpp, their totals checked in tests/models/model/presets_test.cpp).
#include "models/model/model_shape.hpp"

#include "models/error.hpp"
#include "models/suggest.hpp"

namespace models::model {

namespace {
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
  if (spec.pad_expert_input_to_capacity) e.pad_to_capacity = *spec.pad_expert_input_to_capacity;
  if (spec.token_skew) e.token_skew = *spec.token_skew;
  if (e.experts == 0) {
    const std::pair<const char*, bool> moe_only[] = {
        {"model.top_k", spec.top_k.has_value()},
        {"model.moe_ffn", spec.moe_ffn.has_value()},
        {"model.shared_experts", spec.shared_experts.has_value()},
        {"model.moe_first_dense", spec.moe_first_dense.has_value()},
        {"model.moe_layers", spec.moe_stride.has_value()},
        {"model.capacity_factor", spec.capacity_factor.has_value()},
        {"model.pad_expert_input_to_capacity", spec.pad_expert_input_to_capacity.has_value()},
        {"model.token_skew", spec.token_skew.has_value()},
    };
    for (const auto& [key, set] : moe_only)
      if (set)
        throw SpecError(key, std::string(key).substr(6) + " needs a mixture-of-experts model (expected model.experts > 0)");
    e = MoeSpec{};
    return;
  }
  if (e.pad_to_capacity && e.capacity_factor <= 0)
    throw SpecError("model.pad_expert_input_to_capacity",
                    "pad_expert_input_to_capacity pads to a capacity, and none is set (expected model.capacity_factor, "
                    "as Megatron-Core requires --moe-expert-capacity-factor with it)");
  if (e.moe_ffn == 0) e.moe_ffn = m.ffn;
  if (e.top_k > e.experts)
    throw SpecError("model.top_k",
                    "top_k = " + std::to_string(e.top_k) + " exceeds the " + std::to_string(e.experts) + " experts");
  if (e.moe_ffn <= 0) throw SpecError("model.moe_ffn", "moe_ffn must be a positive integer (or give ffn)");
  if (e.first_dense >= m.layers && m.layers > 0)
    throw SpecError("model.moe_first_dense", "moe_first_dense = " + std::to_string(e.first_dense) +
                                                 " leaves no MoE layer of the " + std::to_string(m.layers));
}

// The MLA keys (attention.hpp) on top of the preset's: kv_lora_rank > 0 turns MLA on and then needs
// the head dimensions; kv_lora_rank = 0 turns it off (grouped-query attention).
void resolve_mla(const ModelSpec& spec, ModelShape& m) {
  MlaSpec& a = m.mla;
  if (spec.q_lora_rank) a.q_lora_rank = *spec.q_lora_rank;
  if (spec.kv_lora_rank) a.kv_lora_rank = *spec.kv_lora_rank;
  if (spec.qk_nope_head_dim) a.qk_nope_head_dim = *spec.qk_nope_head_dim;
  if (spec.qk_rope_head_dim) a.qk_rope_head_dim = *spec.qk_rope_head_dim;
  if (spec.v_head_dim) a.v_head_dim = *spec.v_head_dim;
  if (!a.enabled()) {
    const std::pair<const char*, bool> mla_only[] = {
        {"model.q_lora_rank", spec.q_lora_rank.has_value() && *spec.q_lora_rank > 0},
        {"model.qk_nope_head_dim", spec.qk_nope_head_dim.has_value()},
        {"model.qk_rope_head_dim", spec.qk_rope_head_dim.has_value()},
        {"model.v_head_dim", spec.v_head_dim.has_value()},
    };
    for (const auto& [key, set] : mla_only)
      if (set)
        throw SpecError(key, std::string(key).substr(6) +
                                 " is a multi-head latent attention key (expected model.kv_lora_rank > 0 beside it)");
    a = MlaSpec{};
    return;
  }
  const std::pair<const char*, int> need[] = {{"model.qk_nope_head_dim", a.qk_nope_head_dim},
                                              {"model.qk_rope_head_dim", a.qk_rope_head_dim},
                                              {"model.v_head_dim", a.v_head_dim}};
  for (const auto& [key, v] : need)
    if (v <= 0)
      throw SpecError(key, std::string(key).substr(6) +
                               " is missing or not positive (multi-head latent attention needs qk_nope_head_dim, "
                               "qk_rope_head_dim and v_head_dim)");
  if (m.biases) throw SpecError("model.biases", "biases are not modelled with multi-head latent attention");
}

ModelShape from_preset(const Preset& p, int seq) {
  ModelShape m;
  m.name = p.name;
  m.layers = p.layers, m.hidden = p.hidden, m.heads = p.heads, m.kv_heads = p.kv_heads;
  m.ffn = p.ffn, m.vocab = p.vocab, m.seq = seq;
  m.tied_embeddings = p.tied;
  m.gated_mlp = p.gated;
  m.moe = p.moe;
  m.head_dim_given = p.head_dim;
  m.mla = p.mla;
  m.local = p.local;
  m.norm = p.norm;
  m.biases = p.biases;
  m.positions = p.positions;
  m.max_positions = p.max_positions;
  return m;
}
}  // namespace

int64_t ModelShape::block_matmul_params() const { return attention_matmul_params() + mlp_matmul_params(); }

std::vector<int64_t> ModelShape::block_tensors() const {
  const int64_t h = hidden, f = ffn;
  const AttentionShape a = attention();
  std::vector<int64_t> t;
  auto norm = [&] {
    t.push_back(h);
    if (norm_params_per_hidden() == 2) t.push_back(h);
  };
  norm();
  const int64_t attention_bias[] = {a.q_dim(), a.k_dim(), a.v_dim(), h};  // GQA's q, k, v, o (no biases with MLA)
  int i = 0;
  for (const AttentionLinear& l : a.linears()) {
    t.push_back(l.params());
    if (biases) t.push_back(attention_bias[i++]);
  }
  if (a.is_mla()) {
    if (mla.q_lora_rank > 0) t.push_back(mla.q_lora_rank);
    t.push_back(mla.kv_lora_rank);
  }
  norm();
  for (int m = 0; m < mlp_matrices(); ++m) {
    t.push_back(h * f);
    if (biases) t.push_back(m + 1 < mlp_matrices() ? f : h);  // gate/up (fc1) biases f, down (fc2) h
  }
  return t;
}

std::vector<int64_t> ModelShape::block_matrices() const {
  std::vector<int64_t> t;
  for (const AttentionLinear& l : attention().linears()) t.push_back(l.params());
  for (int m = 0; m < mlp_matrices(); ++m) t.push_back(int64_t(hidden) * ffn);
  return t;
}

int64_t ModelShape::one_expert_params() const {
  const int64_t h = hidden, f = moe.moe_ffn;
  return 3 * h * f + (biases ? 2 * f + h : 0);
}

int64_t ModelShape::moe_dense_params() const {
  return int64_t(moe.experts) * hidden + (biases ? moe.experts : 0) +
         int64_t(moe.shared_experts) * 3 * hidden * moe.moe_ffn;
}

int64_t ModelShape::moe_router_params() const { return int64_t(moe.experts) * hidden + (biases ? moe.experts : 0); }

int64_t ModelShape::moe_expert_params() const { return int64_t(moe.experts) * one_expert_params(); }

int64_t ModelShape::total_params() const {
  const int moe_n = moe_layers();
  const int64_t moe_block = attention_matmul_params() + attention().bias_params() + moe_dense_params() +
                            moe_expert_params() + block_norm_params();
  return int64_t(layers - moe_n) * block_params() + moe_n * moe_block + embedding_params() + final_norm_params() +
         head_params();
}

int64_t ModelShape::active_params() const {
  return total_params() - int64_t(moe_layers()) * (moe.experts - moe.top_k) * one_expert_params();
}

const std::vector<std::string>& preset_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const Preset& p : presets()) v.emplace_back(p.name);
    return v;
  }();
  return names;
}

std::string unknown_preset_message(const std::string& name) {
  // The hint goes inside the closing parenthesis, so the message still ends with what was expected.
  std::string message = unknown_name_message("model preset", name, preset_names());
  const std::string hint = "; `commsim presets` lists them with sources";
  if (!message.empty() && message.back() == ')') return message.insert(message.size() - 1, hint);
  return message + hint;
}

ModelShape resolve_model(const ModelSpec& spec) {
  ModelShape m;
  if (!spec.preset.empty()) {
    const Preset* found = find_preset(spec.preset);
    if (!found) throw SpecError("model.preset", unknown_preset_message(spec.preset));
    m = from_preset(*found, spec.seq);
  } else {
    m.name = "custom";
  }
  if (spec.layers) m.layers = spec.layers;
  if (spec.hidden) m.hidden = spec.hidden;
  if (spec.heads) m.heads = spec.heads;
  if (spec.kv_heads) m.kv_heads = spec.kv_heads;
  if (spec.ffn) m.ffn = spec.ffn;
  if (spec.vocab) m.vocab = spec.vocab;
  if (spec.head_dim) m.head_dim_given = spec.head_dim;
  m.seq = spec.seq;
  if (spec.tied_embeddings) m.tied_embeddings = *spec.tied_embeddings;
  if (spec.mlp == "gelu")
    m.gated_mlp = false;
  else if (spec.mlp == "swiglu")
    m.gated_mlp = true;
  else if (!spec.mlp.empty())
    throw SpecError("model.mlp", "unknown MLP '" + spec.mlp + "' (expected swiglu or gelu)");
  if (spec.norm == "layernorm")
    m.norm = Norm::LayerNorm;
  else if (spec.norm == "rmsnorm")
    m.norm = Norm::RmsNorm;
  else if (!spec.norm.empty())
    throw SpecError("model.norm", "unknown norm '" + spec.norm + "' (expected rmsnorm or layernorm)");
  if (spec.biases) m.biases = *spec.biases;
  if (spec.positions == "learned")
    m.positions = Positions::Learned;
  else if (spec.positions == "rotary")
    m.positions = Positions::Rotary;
  else if (spec.positions == "none")
    m.positions = Positions::None;
  else if (!spec.positions.empty())
    throw SpecError("model.positions", "unknown positions '" + spec.positions + "' (expected rotary, learned or none)");
  if (spec.max_positions) {
    if (m.positions != Positions::Learned)
      throw SpecError("model.max_positions", "max_positions sizes a learned position table (expected positions = \"learned\")");
    m.max_positions = spec.max_positions;
  }
  if (m.positions == Positions::Learned && m.max_positions > 0 && m.seq > m.max_positions)
    throw SpecError("model.seq", "seq = " + std::to_string(m.seq) + " exceeds the learned position table's " +
                                     std::to_string(m.max_positions) + " rows (expected seq <= max_positions)");
  resolve_moe(spec, m);
  // An MoE layer's experts are SwiGLU (gate, up, down: moe.hpp): their parameters, GEMMs and
  // activations are modelled for that MLP only; a GELU model's experts would be counted at 3 h f_e.
  if (m.is_moe() && !m.gated_mlp)
    throw SpecError(spec.mlp.empty() ? "model.experts" : "model.mlp",
                    "GELU experts are not modelled: an MoE layer's experts are SwiGLU (gate, up, down) "
                    "(expected mlp = \"swiglu\" for a model with experts, or experts = 0)",
                    {spec.mlp.empty() ? "model.mlp" : "model.experts"});
  resolve_mla(spec, m);
  if (m.kv_heads == 0) m.kv_heads = m.heads;  // no GQA given: multi-head attention
  const std::pair<const char*, int> need[] = {{"layers", m.layers}, {"hidden", m.hidden}, {"heads", m.heads},
                                              {"ffn", m.ffn},       {"vocab", m.vocab},   {"seq", m.seq}};
  for (const auto& [key, v] : need)
    if (v <= 0)
      throw SpecError(
          std::string("model.") + key,
          std::string("model ") + key + " is missing or not positive (expected a positive integer, or model.preset)");
  if (m.head_dim_given == 0 && m.hidden % m.heads != 0)
    throw SpecError("model.heads",
                    "hidden size " + std::to_string(m.hidden) + " is not divisible by " + std::to_string(m.heads) +
                        " heads (expected heads dividing hidden)",
                    {"model.hidden"});  // a --set of either broke the pair: the error points there
  if (m.heads % m.kv_heads != 0)
    throw SpecError("model.kv_heads",
                    std::to_string(m.heads) + " heads are not a multiple of " + std::to_string(m.kv_heads) +
                        " kv_heads (expected kv_heads dividing heads: grouped-query attention)",
                    {"model.heads"});
  return m;
}

}  // namespace models::model
