#pragma once
// models::model::ModelShape: a decoder-only transformer resolved to numbers (preset, then the
// scenario's explicit fields on top), with its parameter counts. Per block the attention's matrices
// (attention.hpp: GQA q/k/v/o, or MLA's down and up projections), the MLP (SwiGLU, Llama:
// gate/up/down, 3 x h x ffn; GELU, GPT: fc1/fc2, 2 x h x ffn), two norms (RMSNorm h each, LayerNorm
// 2h); with biases (GPT-2, gpt-oss) every linear layer's output width more; then the embedding
// (V x h, plus a learned max_positions x h position table), the final norm, the head (V x h, none
// when tied).
#include <cstdint>
#include <string>
#include <vector>

#include "models/model/attention.hpp"
#include "models/model/moe.hpp"
#include "models/model/presets.hpp"
#include "models/spec.hpp"

namespace models::model {

struct ModelShape {
  std::string name;
  int layers = 0, hidden = 0, heads = 0, kv_heads = 0, ffn = 0, vocab = 0, seq = 2048;
  bool tied_embeddings = false;
  bool gated_mlp = true;  // SwiGLU (3 matrices); false: GELU (2 matrices)
  MoeSpec moe;            // experts 0: dense. An MoE layer's MLP is a router (E x h) and E routed
                          // plus shared_experts SwiGLU experts of moe_ffn (moe.hpp); the others dense.
  int head_dim_given = 0;  // model.head_dim; 0: hidden / heads
  MlaSpec mla;             // multi-head latent attention (attention.hpp); kv_lora_rank 0: GQA
  LocalAttention local;    // layers whose attention reaches back a window (attention.hpp); presets only
  Norm norm = Norm::RmsNorm;
  bool biases = false;  // every linear layer carries a bias
  Positions positions = Positions::Rotary;
  int max_positions = 0;  // rows of the learned position table (0: seq)

  int64_t head_dim() const { return head_dim_given > 0 ? head_dim_given : hidden / heads; }
  int64_t kv_dim() const { return head_dim() * kv_heads; }
  int mlp_matrices() const { return gated_mlp ? 3 : 2; }
  AttentionShape attention() const { return {hidden, heads, kv_heads, head_dim(), mla, biases}; }
  int norm_params_per_hidden() const { return norm == Norm::LayerNorm ? 2 : 1; }
  // Parameters of the matrix products of one dense block (the attention's and the MLP's).
  int64_t block_matmul_params() const;
  int64_t mlp_matmul_params() const { return int64_t(mlp_matrices()) * hidden * int64_t(ffn); }
  int64_t mlp_bias_params() const { return biases ? int64_t(ffn) * (gated_mlp ? 2 : 1) + hidden : 0; }
  // Norms (two per block, and MLA's latent norms) and biases of one dense block.
  int64_t block_norm_params() const { return 2LL * norm_params_per_hidden() * hidden + attention().norm_params(); }
  int64_t block_bias_params() const { return attention().bias_params() + mlp_bias_params(); }
  int64_t block_params() const { return block_matmul_params() + block_norm_params() + block_bias_params(); }
  int64_t position_params() const {
    return positions == Positions::Learned ? int64_t(max_positions > 0 ? max_positions : seq) * hidden : 0;
  }
  int64_t embedding_params() const { return int64_t(vocab) * hidden + position_params(); }
  int64_t final_norm_params() const { return int64_t(norm_params_per_hidden()) * hidden; }
  int64_t head_params() const { return tied_embeddings ? 0 : int64_t(vocab) * hidden; }
  int64_t total_params() const;  // every layer's own (MoE layers with all their experts)
  // Parameters a token passes through: the total less, per MoE layer, the routed experts it does
  // not visit ((E - top_k) experts); embedding and head included.
  int64_t active_params() const;
  bool is_moe() const { return moe.experts > 0; }
  bool moe_layer(int layer) const { return is_moe_layer(moe, layer); }
  int moe_layers() const { return moe_layer_count(moe, layers); }
  // An MoE layer's MLP: router E h (+ E biases) and shared experts 3 h f_e (dense, replicated over
  // ep), and the routed experts E (3 h f_e + biases 2 f_e + h) (split over ep).
  int64_t moe_dense_params() const;
  // The router of one MoE layer (E x h, and its bias): in moe_dense_params, but whole on every
  // tensor-parallel rank (Megatron-Core's TopKRouter is not split over tp).
  int64_t moe_router_params() const;
  int64_t moe_expert_params() const;
  int64_t one_expert_params() const;
  // The attention of one block: its matrices (attention.hpp), GQA's 2h q_dim + 2h kv_dim.
  int64_t attention_matmul_params() const { return attention().matmul_params(); }
  // Of a block's parameters, those every tensor-parallel rank holds whole (MLA's down projections;
  // norms are counted apart).
  int64_t block_replicated_params() const { return attention().replicated_params(); }
  // One dense block's parameter tensors in forward order: norm 1 (weight, and bias for LayerNorm),
  // the attention's matrices each followed by its bias, MLA's latent norms, norm 2, the MLP's
  // matrices (gate, up, down; or fc1, fc2) each followed by its bias. Their sum is block_params().
  std::vector<int64_t> block_tensors() const;
  // The matrices alone, in forward order (attention, then the MLP).
  std::vector<int64_t> block_matrices() const;
};

// Names of the presets (presets.hpp), for messages.
const std::vector<std::string>& preset_names();
// "unknown model preset 'llama3-70b' (did you mean llama-3-70b, ...?)".
std::string unknown_preset_message(const std::string& name);
// Resolves a ModelSpec: its preset (if any), then every explicit field. Throws
// SpecError("model.preset" / "model.<field>") for an unknown preset or an incomplete shape.
ModelShape resolve_model(const ModelSpec& spec);

}  // namespace models::model
