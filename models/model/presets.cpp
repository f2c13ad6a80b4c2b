// The preset catalog. Every shape is the published config.json of the model (Hugging Face hub;
// the file named in `source`, keys num_hidden_layers, hidden_size, num_attention_heads,
// num_key_value_heads, head_dim, intermediate_size, vocab_size, tie_word_embeddings; MoE:
// num_local_experts / num_experts / n_routed_experts, num_experts_per_tok, moe_intermediate_size,
// n_shared_experts, first_k_dense_replace, interleave_moe_layer_step; MLA: q_lora_rank,
// kv_lora_rank, qk_nope_head_dim, qk_rope_head_dim, v_head_dim) or the paper's table. The
// parameter totals are checked against the published ones in tests/models/model/presets_test.cpp.
#include "models/model/presets.hpp"

namespace models::model {

namespace {

// The Llama-3 family and the calibration decoder (SwiGLU, RMSNorm, rotary, untied).
Preset llama(const char* name, int layers, int hidden, int heads, int kv_heads, int ffn, int vocab, const char* source) {
  return {.name = name, .layers = layers, .hidden = hidden, .heads = heads, .kv_heads = kv_heads, .ffn = ffn,
          .vocab = vocab, .source = source};
}
// The decoder every compute law was measured with (bench/device/common/decoder.py): Llama-shaped,
// multi-head, with no position encoding at all.
Preset calibration_decoder() {
  Preset p = llama("h200x4-decoder", 8, 4096, 32, 32, 14336, 32000,
                   "the calibration decoder, scenarios/validation/h200x4/measured/README.md");
  p.positions = Positions::None;
  return p;
}
// Megatron-LM's GPT runs as the papers give them (GELU MLP of 4h, tied embeddings). Kept Llama-shaped in
// the rest (RMSNorm's h per norm, no biases, no position table: < 0.1 % of their parameters) so that
// the validated Megatron numbers stay as they were measured against. Their positions were a learned
// table (Megatron-LM's learned_absolute then), so no rotary embedding is priced either.
Preset gpt(const char* name, int layers, int hidden, int heads, int vocab, const char* source) {
  return {.name = name,
          .layers = layers,
          .hidden = hidden,
          .heads = heads,
          .kv_heads = heads,
          .ffn = 4 * hidden,
          .vocab = vocab,
          .tied = true,
          .gated = false,
          .positions = Positions::None,
          .source = source};
}
// GPT-2 (Radford et al. 2019) as released: LayerNorm, biases on every linear layer, learned positions
// (n_positions 1024), GELU MLP of 4h, embeddings tied, vocabulary 50,257.
Preset gpt2(const char* name, int layers, int hidden, int heads, const char* source) {
  return {.name = name, .layers = layers, .hidden = hidden, .heads = heads, .kv_heads = heads, .ffn = 4 * hidden,
          .vocab = 50257, .tied = true, .gated = false, .norm = Norm::LayerNorm, .biases = true,
          .positions = Positions::Learned, .max_positions = 1024, .source = source};
}

constexpr const char* kSc21 = "Narayanan et al. SC'21 Table 1; NVIDIA/Megatron-LM examples/sc21/run_table_1.sh";

// DeepSeek-V3 and -R1 (one architecture): deepseek-ai/DeepSeek-V3 config.json: 61 layers, hidden
// 7168, 128 heads, dense intermediate 18432, MLA q_lora_rank 1536, kv_lora_rank 512,
// qk_nope_head_dim 128, qk_rope_head_dim 64, v_head_dim 128; moe_intermediate_size 2048,
// n_routed_experts 256, num_experts_per_tok 8, n_shared_experts 1, first_k_dense_replace 3,
// moe_layer_freq 1; vocab 129280, untied. Its multi-token-prediction module (num_nextn_predict_layers
// 1) is not part of the 671B and not modelled.
Preset deepseek(const char* name, const char* source) {
  return {.name = name,
          .layers = 61,
          .hidden = 7168,
          .heads = 128,
          .kv_heads = 128,
          .ffn = 18432,
          .vocab = 129280,
          .moe = MoeSpec{256, 8, 2048, 1, 3, 1},
          .mla = MlaSpec{1536, 512, 128, 64, 128},
          .source = source};
}

// Built on first use (a function-local static: no order-of-initialisation question between files).
std::vector<Preset> make_presets() {
  return {
      // Llama (config.json of each model on the Hugging Face hub). h200x4-decoder is the decoder of
      // scenarios/validation/h200x4/measured/README.md (no GQA: 32 heads share nothing).
      llama("llama-3-8b", 32, 4096, 32, 8, 14336, 128256, "meta-llama/Meta-Llama-3-8B config.json (Hugging Face hub)"),
      llama("llama-3-70b", 80, 8192, 64, 8, 28672, 128256,
            "meta-llama/Meta-Llama-3-70B config.json (Hugging Face hub)"),
      llama("llama-2-7b", 32, 4096, 32, 32, 11008, 32000, "meta-llama/Llama-2-7b-hf config.json (Hugging Face hub)"),
      calibration_decoder(),
      llama("llama-3.1-8b", 32, 4096, 32, 8, 14336, 128256, "meta-llama/Llama-3.1-8B config.json (Hugging Face hub)"),
      llama("llama-3.1-70b", 80, 8192, 64, 8, 28672, 128256, "meta-llama/Llama-3.1-70B config.json (Hugging Face hub)"),
      llama("llama-3.1-405b", 126, 16384, 128, 8, 53248, 128256,
            "meta-llama/Llama-3.1-405B config.json (Hugging Face hub)"),
      // GPT-3 175B: Brown et al. 2020 Table 2.1 (96 layers, d_model 12288, 96 heads of 128; GPT-2's BPE,
      // 50,257). Megatron's runs (vocabulary 51,200 = GPT-2's padded as Megatron-LM pads it at tp 8):
      // Korthikanti et al. 2022 Table 3 / calculon-ai/calculon models/*.json; Narayanan et al. SC'21
      // Table 1 / NVIDIA/Megatron-LM examples/sc21/run_table_1.sh (NLS, HS, NAH of each row).
      gpt("gpt3-175b", 96, 12288, 96, 50257, "Brown et al. 2020 (GPT-3) Table 2.1; GPT-2 BPE vocabulary"),
      gpt("megatron-22b", 48, 6144, 64, 51200,
          "Korthikanti et al. 2022 Table 3; calculon-ai/calculon models/megatron-22B.json"),
      gpt("mt-nlg-530b", 105, 20480, 128, 51200,
          "Korthikanti et al. 2022 Table 3; calculon-ai/calculon models/turing-530B.json"),
      gpt("megatron-1t", 128, 25600, 160, 51200,
          "Korthikanti et al. 2022 Table 3; calculon-ai/calculon models/megatron-1T.json"),
      gpt("sc21-1.7b", 24, 2304, 24, 51200, kSc21),
      gpt("sc21-3.6b", 30, 3072, 32, 51200, kSc21),
      gpt("sc21-7.5b", 36, 4096, 32, 51200, kSc21),
      gpt("sc21-18b", 40, 6144, 48, 51200, kSc21),
      gpt("sc21-39b", 48, 8192, 64, 51200, kSc21),
      gpt("sc21-76b", 60, 10240, 80, 51200, kSc21),
      gpt("sc21-145b", 80, 12288, 96, 51200, kSc21),
      gpt("sc21-310b", 96, 16384, 128, 51200, kSc21),
      // Mixture of experts.
      {.name = "mixtral-8x7b",
       .layers = 32,
       .hidden = 4096,
       .heads = 32,
       .kv_heads = 8,
       .ffn = 14336,
       .vocab = 32000,
       .moe = MoeSpec{8, 2, 14336, 0, 0, 1},
       .source = "mistralai/Mixtral-8x7B-v0.1 config.json (Hugging Face hub); 8 experts, top 2"},
      deepseek(
          "deepseek-v3",
          "deepseek-ai/DeepSeek-V3 config.json (Hugging Face hub); MLA, 256 experts top 8 + 1 shared, 3 dense layers"),
      // GPT-2: openai-community/gpt2, gpt2-medium, gpt2-large, gpt2-xl config.json (n_layer, n_embd,
      // n_head; n_positions 1024, vocab_size 50257, activation gelu_new, layer_norm_epsilon).
      gpt2("gpt2", 12, 768, 12, "openai-community/gpt2 config.json (Hugging Face hub)"),
      gpt2("gpt2-medium", 24, 1024, 16, "openai-community/gpt2-medium config.json (Hugging Face hub)"),
      gpt2("gpt2-large", 36, 1280, 20, "openai-community/gpt2-large config.json (Hugging Face hub)"),
      gpt2("gpt2-xl", 48, 1600, 25, "openai-community/gpt2-xl config.json (Hugging Face hub)"),
      // Qwen3 (Qwen/Qwen3-* config.json): head_dim 128 beside the hidden size (64 x 128 = 8192 > 5120
      // for the 32B), GQA, untied, vocabulary 151936; the MoE models route 8 of 128 experts in every
      // layer, no shared expert. Their q/k RMSNorms (2 x 128 per layer) are not counted.
      {.name = "qwen3-8b",
       .layers = 36,
       .hidden = 4096,
       .heads = 32,
       .kv_heads = 8,
       .ffn = 12288,
       .vocab = 151936,
       .head_dim = 128,
       .source = "Qwen/Qwen3-8B config.json (Hugging Face hub)"},
      {.name = "qwen3-32b",
       .layers = 64,
       .hidden = 5120,
       .heads = 64,
       .kv_heads = 8,
       .ffn = 25600,
       .vocab = 151936,
       .head_dim = 128,
       .source = "Qwen/Qwen3-32B config.json (Hugging Face hub)"},
      {.name = "qwen3-30b-a3b",
       .layers = 48,
       .hidden = 2048,
       .heads = 32,
       .kv_heads = 4,
       .ffn = 6144,
       .vocab = 151936,
       .head_dim = 128,
       .moe = MoeSpec{128, 8, 768, 0, 0, 1},
       .source = "Qwen/Qwen3-30B-A3B config.json (Hugging Face hub); 128 experts, top 8"},
      {.name = "qwen3-235b-a22b",
       .layers = 94,
       .hidden = 4096,
       .heads = 64,
       .kv_heads = 4,
       .ffn = 12288,
       .vocab = 151936,
       .head_dim = 128,
       .moe = MoeSpec{128, 8, 1536, 0, 0, 1},
       .source = "Qwen/Qwen3-235B-A22B config.json (Hugging Face hub); 128 experts, top 8"},
      // Llama 4 (meta-llama/Llama-4-*-17B-*E config.json, text_config): 48 layers, hidden 5120, 40 heads,
      // 8 kv heads of 128, vocabulary 202048, untied; an MoE layer routes each token to 1 expert
      // (intermediate_size 8192) beside 1 shared expert of the same width; dense layers have
      // intermediate_size_mlp 16384. Scout: 16 experts in every layer (interleave_moe_layer_step 1).
      // Maverick: 128 experts in every second layer (interleave_moe_layer_step 2: layers 1, 3, ..., 47).
      // The vision encoder is not modelled (the published 109B / 400B include it). Chunked local
      // attention in 3 of every 4 layers (attention_chunk_size 8192; every fourth layer global, NoPE).
      {.name = "llama-4-scout",
       .layers = 48,
       .hidden = 5120,
       .heads = 40,
       .kv_heads = 8,
       .ffn = 16384,
       .vocab = 202048,
       .head_dim = 128,
       .moe = MoeSpec{16, 1, 8192, 1, 0, 1},
       .local = LocalAttention{8192, true, 3, 4},
       .source = "meta-llama/Llama-4-Scout-17B-16E config.json text_config (Hugging Face hub)"},
      {.name = "llama-4-maverick",
       .layers = 48,
       .hidden = 5120,
       .heads = 40,
       .kv_heads = 8,
       .ffn = 16384,
       .vocab = 202048,
       .head_dim = 128,
       .moe = MoeSpec{128, 1, 8192, 1, 1, 2},
       .local = LocalAttention{8192, true, 3, 4},
       .source = "meta-llama/Llama-4-Maverick-17B-128E config.json text_config (Hugging Face hub)"},
      // gpt-oss (openai/gpt-oss-* config.json): hidden 2880, 64 heads, 8 kv heads of 64, experts of
      // 2880 (SwiGLU, clamped), top 4, biases on the attention, router and experts, vocabulary 201088,
      // untied; sliding_window 128 in every second layer (layer_types: sliding, full, ...). Not
      // modelled: the attention sinks (64 per layer).
      {.name = "gpt-oss-120b",
       .layers = 36,
       .hidden = 2880,
       .heads = 64,
       .kv_heads = 8,
       .ffn = 2880,
       .vocab = 201088,
       .head_dim = 64,
       .biases = true,
       .moe = MoeSpec{128, 4, 2880, 0, 0, 1},
       .local = LocalAttention{128, false, 1, 2},
       .source = "openai/gpt-oss-120b config.json (Hugging Face hub); 128 experts, top 4"},
      {.name = "gpt-oss-20b",
       .layers = 24,
       .hidden = 2880,
       .heads = 64,
       .kv_heads = 8,
       .ffn = 2880,
       .vocab = 201088,
       .head_dim = 64,
       .biases = true,
       .moe = MoeSpec{32, 4, 2880, 0, 0, 1},
       .local = LocalAttention{128, false, 1, 2},
       .source = "openai/gpt-oss-20b config.json (Hugging Face hub); 32 experts, top 4"},
      // DeepSeek (MLA, see deepseek() above); Mixtral 8x22B (mistral-community/Mixtral-8x22B-v0.1
      // config.json: 56 layers, hidden 6144, 48 heads, 8 kv heads, intermediate 16384, vocab 32000).
      deepseek("deepseek-r1", "deepseek-ai/DeepSeek-R1 config.json (Hugging Face hub); the DeepSeek-V3 architecture"),
      {.name = "mixtral-8x22b",
       .layers = 56,
       .hidden = 6144,
       .heads = 48,
       .kv_heads = 8,
       .ffn = 16384,
       .vocab = 32000,
       .moe = MoeSpec{8, 2, 16384, 0, 0, 1},
       .source = "mistral-community/Mixtral-8x22B-v0.1 config.json (Hugging Face hub); 8 experts, top 2"},
      // Kimi K2 (Moonshot AI): the DeepSeek-V3 architecture with 384 experts, 64 heads and one dense
      // layer. Model card (MoonshotAI/Kimi-K2 README.md, section 2, the same table as the Hugging Face
      // model card of moonshotai/Kimi-K2-Instruct): 61 layers (1 dense), attention hidden 7168, 64
      // heads, MLA, expert hidden 2048, 384 experts, 8 selected, 1 shared, SwiGLU, vocabulary "160K".
      // The numbers the card rounds or leaves out are config.json's (model_type kimi_k2). The hub file
      // itself was not read here: they are as THUDM/slime scripts/models/kimi-k2.sh gives them to
      // Megatron-LM (vocab-size 163840, ffn-hidden-size 18432, q-lora-rank 1536, kv-lora-rank 512,
      // qk-head-dim 128, qk-pos-emb-head-dim 64, v-head-dim 128, the first layer dense, untied
      // embeddings, a shared expert of 2048), and NVIDIA Megatron Bridge's KimiK2Provider agrees on
      // every one it names (61 layers, 7168, 18432, 64 heads, 384 x 2048, top 8, shared 2048). Not
      // modelled: the MLA q/k layernorms.
      {.name = "kimi-k2",
       .layers = 61,
       .hidden = 7168,
       .heads = 64,
       .kv_heads = 64,
       .ffn = 18432,
       .vocab = 163840,
       .moe = MoeSpec{.experts = 384, .top_k = 8, .moe_ffn = 2048, .shared_experts = 1, .first_dense = 1, .stride = 1},
       .mla = MlaSpec{.q_lora_rank = 1536,
                      .kv_lora_rank = 512,
                      .qk_nope_head_dim = 128,
                      .qk_rope_head_dim = 64,
                      .v_head_dim = 128},
       .source = "moonshotai/Kimi-K2-Instruct model card and config.json (Hugging Face hub; the config's values "
                 "as THUDM/slime scripts/models/kimi-k2.sh gives them); MLA, 384 experts top 8 + 1 shared, "
                 "1 dense layer"},
      // GLM-4.5 (Zhipu AI / Z.ai): GQA with head_dim 128 beside hidden 5120, 160 experts, top 8, one
      // shared expert, the first 3 layers dense. THUDM/slime scripts/models/glm4.5-355B-A32B.sh (the
      // GLM team's own RL framework, its Megatron-LM arguments for this model): 3 dense + 89 MoE
      // layers, hidden 5120, ffn 12288, 96 heads, 8 query groups, kv-channels 128, moe-ffn 1536, a
      // shared expert of 1536, 160 experts, top 8, vocab 151552, untied, SwiGLU, RMSNorm. The same
      // shape as zai-org/GLM-4.7's config.json on the hub (glm4_moe: num_hidden_layers 92,
      // first_k_dense_replace 3, n_routed_experts 160, moe_intermediate_size 1536) and as the GLM-5
      // report's table for GLM-4.5; zai-org/GLM-4.5's own config.json was not read here. Not
      // modelled: the q, k, v biases (attention_bias: 14,336 per layer, 1.3 M in all), the q/k norms,
      // the multi-token-prediction layer (num_nextn_predict_layers 1, not part of the published 355B).
      {.name = "glm-4.5",
       .layers = 92,
       .hidden = 5120,
       .heads = 96,
       .kv_heads = 8,
       .ffn = 12288,
       .vocab = 151552,
       .head_dim = 128,
       .moe = MoeSpec{.experts = 160, .top_k = 8, .moe_ffn = 1536, .shared_experts = 1, .first_dense = 3, .stride = 1},
       .source = "zai-org/GLM-4.5 (Hugging Face hub), shape as THUDM/slime scripts/models/glm4.5-355B-A32B.sh "
                 "gives it; 160 experts top 8 + 1 shared, 3 dense layers"},
  };
}

}  // namespace

const std::vector<Preset>& presets() {
  static const std::vector<Preset> catalog = make_presets();
  return catalog;
}

const Preset* find_preset(const std::string& name) {
  for (const Preset& p : presets())
    if (name == p.name) return &p;
  return nullptr;
}

}  // namespace models::model
