// The attention's matrices (models/model/attention.hpp): multi-head latent attention by hand from
// DeepSeek-V3's config.json, and grouped-query attention as before.
#include <catch2/catch.hpp>

#include "models/error.hpp"
#include "models/model/attention.hpp"
#include "models/model/model_shape.hpp"

using namespace models::model;

namespace {
ModelShape attention_preset(const char* name) {
  models::ModelSpec s;
  s.preset = name;
  return resolve_model(s);
}
}  // namespace

TEST_CASE("attention: DeepSeek-V3's MLA matrices, by hand from its config.json", "[model]") {
  // hidden 7168, 128 heads, q_lora_rank 1536, kv_lora_rank 512, qk_nope 128, qk_rope 64, v 128:
  //   q_a  7168 x 1536          = 11,010,048   (replicated over TP)
  //   q_b  1536 x 128 (128+64)  = 37,748,736
  //   kv_a 7168 x (512 + 64)    =  4,128,768   (replicated over TP)
  //   kv_b 512 x 128 (128+128)  = 16,777,216
  //   o    128 x 128 x 7168     = 117,440,512
  const AttentionShape a = attention_preset("deepseek-v3").attention();
  REQUIRE(a.is_mla());
  CHECK(a.matmul_params() == 11010048LL + 37748736 + 4128768 + 16777216 + 117440512);
  CHECK(a.replicated_params() == 11010048LL + 4128768);
  CHECK(a.norm_params() == 1536 + 512);  // q_a_layernorm, kv_a_layernorm
  CHECK(a.q_dim() == 128 * 192);
  CHECK(a.k_dim() == 128 * 192);
  CHECK(a.v_dim() == 128 * 128);
  CHECK(a.o_in() == 128 * 128);
  // The core: QK^T at d_qk = 192, PV at d_v = 128: W = 128 (192 + 128) / 2 = 20480.
  CHECK(a.core_width() == 20480);
  // Saved per token: q, k (192 per head), v, output (128 per head) split over TP; the latents
  // 2 x 1536 + 2 x 512 + 64 replicated.
  CHECK(a.saved_split_elements() == 128 * (192 + 192 + 128 + 128));
  CHECK(a.saved_latent_elements() == 2 * 1536 + 2 * 512 + 64);
  // Stood in for by MHA (kv_heads = heads, head_dim 56) the attention had 4 h^2 = 205.5 M matrices
  // and a KV of 2 h = 14,336 per token; MLA's k and v are 40,960 wide in training (the latent cache
  // of inference, 576, is not what training keeps).
  CHECK(4.0 * 7168 * 7168 > double(a.matmul_params()));
}

TEST_CASE("attention: grouped-query attention with and without head_dim", "[model]") {
  // Llama-3-8B: q, o 4096 x 4096; k, v 4096 x 1024: 2 h^2 + 2 h kv, as before.
  const AttentionShape l = attention_preset("llama-3-8b").attention();
  CHECK(l.matmul_params() == 2LL * 4096 * 4096 + 2LL * 4096 * 1024);
  CHECK(l.core_width() == 4096);
  CHECK(l.replicated_params() == 0);
  // Qwen3-32B: 64 heads of 128 beside hidden 5120: q 5120 x 8192, o 8192 x 5120, k/v 5120 x 1024.
  const AttentionShape q = attention_preset("qwen3-32b").attention();
  CHECK(q.matmul_params() == 2LL * 5120 * 8192 + 2LL * 5120 * 1024);
  CHECK(q.core_width() == 8192);
  // Biases (gpt-oss): q, k, v, o outputs.
  const AttentionShape g = attention_preset("gpt-oss-120b").attention();
  CHECK(g.bias_params() == 64 * 64 + 2 * 8 * 64 + 2880);
}

TEST_CASE("attention: the MLA keys on a custom model, and their errors", "[model]") {
  models::ModelSpec s;
  s.layers = 2, s.hidden = 1024, s.heads = 8, s.ffn = 4096, s.vocab = 1000;
  s.kv_lora_rank = 256, s.qk_nope_head_dim = 64, s.qk_rope_head_dim = 32, s.v_head_dim = 64;
  const ModelShape m = resolve_model(s);
  // q_lora_rank 0 (DeepSeek-V2-Lite's form): q [1024 x 8 x 96] straight from the hidden state.
  CHECK(m.attention_matmul_params() ==
        1024LL * 8 * 96 + 1024LL * (256 + 32) + 256LL * 8 * (64 + 64) + 8LL * 64 * 1024);
  CHECK(m.attention().replicated_params() == 1024LL * (256 + 32));
  models::ModelSpec missing = s;
  missing.v_head_dim.reset();
  CHECK_THROWS_AS(resolve_model(missing), models::SpecError);
  models::ModelSpec stray;
  stray.layers = 2, stray.hidden = 1024, stray.heads = 8, stray.ffn = 4096, stray.vocab = 1000;
  stray.qk_rope_head_dim = 32;  // without kv_lora_rank: a key of MLA on a GQA model
  try {
    resolve_model(stray);
    FAIL("expected a SpecError");
  } catch (const models::SpecError& e) {
    CHECK(e.key() == "model.qk_rope_head_dim");
  }
  // A preset's MLA is turned off by kv_lora_rank = 0: DeepSeek-V3 stood in for by MHA.
  models::ModelSpec off;
  off.preset = "deepseek-v3";
  off.kv_lora_rank = 0;
  CHECK_FALSE(resolve_model(off).attention().is_mla());
}

TEST_CASE("model: block tensors sum to the block's parameters, norms and biases included", "[model]") {
  for (const char* name : {"llama-3-8b", "gpt2", "deepseek-v3", "qwen3-8b", "gpt3-175b"}) {
    models::ModelSpec s;
    s.preset = name;
    s.seq = 1024;
    const ModelShape m = resolve_model(s);
    int64_t sum = 0;
    for (int64_t t : m.block_tensors()) sum += t;
    INFO(name);
    CHECK(sum == m.block_params());
    int64_t matrices = 0;
    for (int64_t t : m.block_matrices()) matrices += t;
    CHECK(matrices == m.block_matmul_params());
  }
}

TEST_CASE("model: preset typos get a did-you-mean", "[model]") {
  models::ModelSpec s;
  s.preset = "llama3-70b";
  try {
    resolve_model(s);
    FAIL("expected a SpecError");
  } catch (const models::SpecError& e) {
    CHECK(e.key() == "model.preset");
    CHECK(std::string(e.what()).find("did you mean llama-3-70b") != std::string::npos);
  }
}

TEST_CASE("attention: windowed layers' mean keys per query, by hand, and the presets that have them", "[model]") {
  using models::model::LocalAttention;
  // Full causal attention: s / 2 keys per query on average, the figure the FLOPs always took.
  CHECK(LocalAttention{}.mean_keys(4096) == 2048);
  // gpt-oss: every second layer slides over 128 keys: (2048 + (128 - 128^2 / 8192)) / 2.
  const LocalAttention oss{128, false, 1, 2};
  CHECK(oss.mean_keys(4096) == Approx((2048 + (128 - 128.0 * 128 / 8192)) / 2));
  // Llama 4: 3 of 4 layers attend within chunks of 8192: at 32k, (16384 + 3 x 4096) / 4; up to 8192
  // the chunk holds the whole sequence and nothing changes.
  const LocalAttention l4{8192, true, 3, 4};
  CHECK(l4.mean_keys(32768) == Approx((16384 + 3 * 4096.0) / 4));
  CHECK(l4.mean_keys(8192) == 4096);
  CHECK(l4.mean_keys(4096) == 2048);
  // A sliding window as wide as the sequence is full attention, continuously.
  CHECK(LocalAttention{4096, false, 1, 1}.mean_keys(4096) == Approx(2048));
  CHECK(LocalAttention{4095, false, 1, 1}.mean_keys(4096) == Approx(2048).epsilon(1e-3));
  for (const char* name : {"gpt-oss-120b", "gpt-oss-20b"}) CHECK(models::model::find_preset(name)->local.window == 128);
  for (const char* name : {"llama-4-scout", "llama-4-maverick"}) {
    CHECK(models::model::find_preset(name)->local.window == 8192);
    CHECK(models::model::find_preset(name)->local.chunked);
  }
  CHECK(models::model::find_preset("llama-3-8b")->local.window == 0);
}
