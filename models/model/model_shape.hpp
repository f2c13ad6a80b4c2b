#pragma once
// models::model::ModelShape: a decoder-only transformer resolved to numbers (preset, then the
// scenario's explicit fields on top), with its parameter counts. Per block q/o (h x h), k/v
// (h x kv_heads*head_dim), the MLP (SwiGLU, Llama: gate/up/down, 3 x h x ffn; GELU, GPT: fc1/fc2,
// 2 x h x ffn), two norms (2h); then embedding (V x h), final norm (h), head (V x h, none when
// tied). Biases and GPT's learned position embeddings (< 0.1 % of GPT-3's parameters) are not
// counted.
#include <cstdint>
#include <string>
#include <vector>

#include "models/spec.hpp"
#include "models/model/moe.hpp"

namespace models::model {

struct ModelShape {
  std::string name;
  int layers = 0, hidden = 0, heads = 0, kv_heads = 0, ffn = 0, vocab = 0, seq = 2048;
  bool tied_embeddings = false;
  bool gated_mlp = true;  // SwiGLU (3 matrices); false: GELU (2 matrices)
  MoeSpec moe;            // experts 0: dense. An MoE layer's MLP is a router (E x h) and E routed
                          // plus shared_experts SwiGLU experts of moe_ffn (moe.hpp); the others dense.

  int64_t head_dim() const { return hidden / heads; }
  int64_t kv_dim() const { return head_dim() * kv_heads; }
  int mlp_matrices() const { return gated_mlp ? 3 : 2; }
  // Parameters of the matrix products of one block (q, k, v, o, and the MLP's).
  int64_t block_matmul_params() const;
  int64_t block_norm_params() const { return 2LL * hidden; }
  int64_t block_params() const { return block_matmul_params() + block_norm_params(); }
  int64_t embedding_params() const { return int64_t(vocab) * hidden; }
  int64_t head_params() const { return tied_embeddings ? 0 : int64_t(vocab) * hidden; }
  int64_t total_params() const;  // every layer's own (MoE layers with all their experts)
  bool is_moe() const { return moe.experts > 0; }
  bool moe_layer(int layer) const { return is_moe_layer(moe, layer); }
  int moe_layers() const { return moe_layer_count(moe, layers); }
  // An MoE layer's MLP: router E h + shared experts 3 h f_e (dense, replicated over ep) and the
  // routed experts E 3 h f_e (split over ep).
  int64_t moe_dense_params() const;
  int64_t moe_expert_params() const;
  int64_t attention_matmul_params() const { return 2LL * hidden * hidden + 2LL * hidden * kv_dim(); }
};

// Names of the presets, for messages.
const std::vector<std::string>& preset_names();
// Resolves a ModelSpec: its preset (if any), then every non-zero explicit field. Throws
// SpecError("model.preset" / "model.<field>") for an unknown preset or an incomplete shape.
ModelShape resolve_model(const ModelSpec& spec);

}  // namespace models::model
