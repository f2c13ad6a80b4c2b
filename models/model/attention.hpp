#pragma once
// models::model::AttentionShape: the attention half of a decoder block as the matrices it multiplies,
// for the two kinds of attention the presets use.
//
// Grouped-query attention (GQA; multi-head when kv_heads = heads; Ainslie et al. 2023), head_dim d
// (hidden / heads unless the config gives it, as Qwen3 and gpt-oss do):
//   q  [h x a d]   k, v  [h x g d]   o  [a d x h]          (a heads, g kv_heads)
//   with biases (GPT-2, gpt-oss): a d + 2 g d + h more.
// Multi-head latent attention (MLA; DeepSeek-V2, arXiv 2405.04434 section 2.1; DeepSeek-V3,
// arXiv 2412.19437 section 2.1.1; the config.json keys q_lora_rank r_q, kv_lora_rank r_kv,
// qk_nope_head_dim d_n, qk_rope_head_dim d_r, v_head_dim d_v):
//   q_a  [h x r_q]   (q_a_layernorm r_q)   q_b  [r_q x a (d_n + d_r)]     (r_q = 0: q [h x a (d_n + d_r)])
//   kv_a [h x (r_kv + d_r)]  (kv_a_layernorm r_kv)   kv_b [r_kv x a (d_n + d_v)]
//   o    [a d_v x h]
//   queries and keys have d_n + d_r per head (the rope part of k is one d_r vector shared by the
//   heads), values d_v. The down projections q_a and kv_a are replicated over tensor parallelism
//   (DeepSeek-V3 inference/model.py MLA: wq_a and wkv_a are plain Linear, wq_b and wkv_b
//   ColumnParallelLinear, wo RowParallelLinear); the up projections split by heads.
// The attention core on T query tokens of sequences of s: QK^T 2 T s a d_qk and PV 2 T s a d_v FLOPs,
// halved by causal masking (flash attention skips the masked tiles): T s a (d_qk + d_v), i.e.
// 2 T s W with the core width W = a (d_qk + d_v) / 2 (= a d = h for Llama's MHA).
// Saved for the backward per token (elements; models/memory/memory_terms.hpp times bytes): the core's
// inputs and output, q + k + v + o_in = a d_qk + k_dim + v_dim + a d_v, split over tensor parallelism;
// MLA adds its latents, replicated: q_a's output and its norm's (2 r_q), kv_a's output (r_kv + d_r)
// and its norm's (r_kv). (MLA's v is a view of kv_b's output, which keeps a d_n more alive in eager
// PyTorch; not counted.)
#include <cstdint>
#include <vector>

namespace models::model {

// Attention that reaches back a bounded number of tokens in some of the layers: `layers` of every
// `period`, each query seeing the last `window` keys (sliding: gpt-oss's sliding_window 128 in
// every second layer) or the keys of its own chunk of `window` tokens (chunked: Llama 4's
// attention_chunk_size 8192 in 3 of 4 layers). Flash attention skips the key blocks outside, so
// those layers' core costs what its queries see: on average, with s = seq,
//   full  s / 2      sliding  w - w^2 / (2 s)  (w < s)      chunked  w / 2  (w < s)
// (each s / 2 once the window covers the sequence).
struct LocalAttention {
  int window = 0;  // 0: every layer attends to the whole causal sequence
  bool chunked = false;
  int layers = 0, period = 1;
  double mean_keys(int seq) const;  // keys per query, averaged over the layers (above)
};

struct MlaSpec {
  int q_lora_rank = 0;   // 0: queries projected from h directly (DeepSeek-V2-Lite)
  int kv_lora_rank = 0;  // 0: not MLA
  int qk_nope_head_dim = 0, qk_rope_head_dim = 0, v_head_dim = 0;
  bool enabled() const { return kv_lora_rank > 0; }
};

// One linear layer of the attention: [in x out]; `split` over tensor parallelism by heads (column
// parallel, or row parallel for o), else replicated on every TP rank.
struct AttentionLinear {
  const char* name;
  int64_t in = 0, out = 0;
  bool split = true;
  int64_t params() const { return in * out; }
};

struct AttentionShape {
  int64_t hidden = 0, heads = 0, kv_heads = 0, head_dim = 0;
  MlaSpec mla;
  bool biases = false;

  bool is_mla() const { return mla.enabled(); }
  int64_t qk_head_dim() const { return is_mla() ? int64_t(mla.qk_nope_head_dim) + mla.qk_rope_head_dim : head_dim; }
  int64_t v_head_dim() const { return is_mla() ? int64_t(mla.v_head_dim) : head_dim; }
  int64_t q_dim() const { return heads * qk_head_dim(); }
  int64_t k_dim() const { return is_mla() ? heads * qk_head_dim() : kv_heads * head_dim; }
  int64_t v_dim() const { return is_mla() ? heads * v_head_dim() : kv_heads * head_dim; }
  int64_t o_in() const { return heads * v_head_dim(); }
  // The core's width W (see above): a (d_qk + d_v) / 2.
  int64_t core_width() const { return heads * (qk_head_dim() + v_head_dim()) / 2; }

  // The linear layers in forward order (q, k, v, o for GQA; q_a, q_b, kv_a, kv_b, o for MLA).
  std::vector<AttentionLinear> linears() const;
  int64_t matmul_params() const;      // all of them
  int64_t replicated_params() const;  // those not split over tensor parallelism (MLA's q_a, kv_a)
  int64_t bias_params() const { return biases ? q_dim() + k_dim() + v_dim() + hidden : 0; }
  int64_t norm_params() const { return is_mla() ? int64_t(mla.q_lora_rank) + mla.kv_lora_rank : 0; }
  // Elements per token saved for the backward: split over TP, and replicated (MLA's latents).
  int64_t saved_split_elements() const { return q_dim() + k_dim() + v_dim() + o_in(); }
  int64_t saved_latent_elements() const;
  // Elements per token of the latents the MLA norms read (r_q + r_kv; 0 without MLA).
  int64_t latent_norm_elements() const { return norm_params(); }
};

}  // namespace models::model
