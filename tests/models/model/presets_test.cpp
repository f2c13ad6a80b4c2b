// The presets' parameter counts: each computed by hand from its config.json (the closed form in the
// comment), then against the total (and active) count its publisher gives.
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "models/error.hpp"
#include "models/model/model_shape.hpp"
#include "models/model/presets.hpp"

using namespace models::model;

namespace {
ModelShape preset_shape(const char* name) {
  models::ModelSpec s;
  s.preset = name;
  if (const Preset* p = find_preset(name); p && p->max_positions > 0) s.seq = p->max_positions;  // GPT-2: 1024
  return resolve_model(s);
}
}  // namespace

TEST_CASE("presets: every preset resolves and names its source", "[model]") {
  std::set<std::string> names;
  for (const Preset& p : presets()) {
    INFO(p.name);
    CHECK(std::string(p.source).size() > 10);
    CHECK(names.insert(p.name).second);  // no name twice
    const ModelShape m = preset_shape(p.name);
    CHECK(m.total_params() > 0);
    CHECK(m.active_params() <= m.total_params());
  }
  CHECK(names.size() == preset_names().size());
}

TEST_CASE("presets: GPT-2 counts LayerNorm, biases and the learned position table exactly", "[model]") {
  // Per block 12 h^2 + 13 h: c_attn 3h^2 + 3h, c_proj h^2 + h, c_fc 4h^2 + 4h, mlp c_proj 4h^2 + h,
  // two LayerNorms 4h; then wte V h, wpe 1024 h, ln_f 2h; the head tied to wte.
  auto gpt2 = [](double L, double h) { return L * (12 * h * h + 13 * h) + 50257 * h + 1024 * h + 2 * h; };
  CHECK(double(preset_shape("gpt2").total_params()) == gpt2(12, 768));
  // Hugging Face's num_parameters() of openai-community/gpt2 ... gpt2-xl.
  CHECK(preset_shape("gpt2").total_params() == 124439808LL);
  CHECK(preset_shape("gpt2-medium").total_params() == 354823168LL);
  CHECK(preset_shape("gpt2-large").total_params() == 774030080LL);
  CHECK(preset_shape("gpt2-xl").total_params() == 1557611200LL);
  // Llama-shaped keys (RMSNorm, no biases, rotary) miss 11h per block and the position table.
  const ModelShape g = preset_shape("gpt2");
  CHECK(g.norm == Norm::LayerNorm);
  CHECK(g.biases);
  CHECK(g.positions == Positions::Learned);
}

TEST_CASE("presets: Qwen3 dense with head_dim beside the hidden size", "[model]") {
  // Qwen3-8B: q [4096 x 32*128], k/v [4096 x 8*128], o; SwiGLU 3 x 4096 x 12288; 2 norms; untied
  // embedding and head 151936 x 4096; final norm.
  const double h = 4096, q = 32 * 128, kv = 8 * 128;
  const double block = 2 * h * q + 2 * h * kv + 3 * h * 12288 + 2 * h;
  CHECK(double(preset_shape("qwen3-8b").total_params()) == 36 * block + 2 * 151936 * h + h);
  CHECK(double(preset_shape("qwen3-8b").total_params()) == Approx(8.19e9).epsilon(0.002));  // model card: 8.2B
  // Qwen3-32B: 64 x 128 = 8192 query width beside hidden 5120; model card 32.8B.
  const ModelShape m = preset_shape("qwen3-32b");
  CHECK(m.attention().q_dim() == 8192);
  CHECK(double(m.total_params()) == Approx(32.8e9).epsilon(0.003));
}

TEST_CASE("presets: MoE totals and active parameters against the published ones", "[model]") {
  // Active: attention, norms, router, shared experts and top_k of the routed experts per MoE layer,
  // the embedding and head (Qwen's and Mistral's convention; DeepSeek and OpenAI leave the input
  // embedding out, as noted per row).
  struct Row {
    const char* name;
    double total, active, embedding_out;  // published; active without the input embedding when embedding_out
    double tol;
  };
  const Row rows[] = {
      {"qwen3-30b-a3b", 30.5e9, 3.3e9, 0, 0.02},  // Qwen3 model card: 30.5B total, 3.3B activated
      {"qwen3-235b-a22b", 235e9, 22e9, 0, 0.02},  // 235B total, 22B activated
      {"mixtral-8x22b", 141e9, 39e9, 0, 0.01},    // Mistral AI: 141B total, 39B active
      {"mixtral-8x7b", 46.7e9, 12.9e9, 0, 0.01},  // 46.7B, 12.9B
      // DeepSeek-V3 report: 671B total, 37B activated, embedding and head included (README_WEIGHTS.md:
      // 36.7B with 0.9B each; the shape gives 37.55B, 2.3 % above that, with every field as config.json)
      {"deepseek-v3", 671e9, 37e9, 0, 0.02},
      {"gpt-oss-120b", 116.83e9, 5.13e9, 1, 0.002},  // gpt-oss model card: 116.83B total, 5.13B active
      {"gpt-oss-20b", 20.91e9, 3.61e9, 1, 0.003},    // 20.91B total, 3.61B active
      {"llama-4-scout", 109e9, 17e9, 0, 0.02},       // Meta: 17B active, 109B total (vision encoder included)
      {"llama-4-maverick", 400e9, 17e9, 0, 0.02},    // 17B active, 400B total (vision encoder included)
  };
  for (const Row& r : rows) {
    const ModelShape m = preset_shape(r.name);
    const double active = double(m.active_params()) - r.embedding_out * double(m.embedding_params());
    INFO(r.name << ": total " << m.total_params() << " active " << active);
    CHECK(double(m.total_params()) == Approx(r.total).epsilon(r.tol));
    CHECK(active == Approx(r.active).epsilon(r.tol));
  }
}

TEST_CASE("presets: gpt-oss-120b's attention with biases, by hand", "[model]") {
  // q [2880 x 64*64], k/v [2880 x 8*64], o [4096 x 2880] and their biases 4096 + 512 + 512 + 2880:
  // 26,550,080 per layer (the checkpoint's 26,550,144 adds 64 attention sinks, not modelled).
  const ModelShape m = preset_shape("gpt-oss-120b");
  CHECK(m.attention_matmul_params() + m.attention().bias_params() == 26550080LL);
  // An expert: gate/up [2880 x 2 x 2880] + bias 5760, down [2880 x 2880] + bias 2880.
  CHECK(m.moe_expert_params() == 128LL * (3 * 2880 * 2880 + 2 * 2880 + 2880));
}

TEST_CASE("presets: Llama 4 Maverick interleaves dense and MoE layers", "[model]") {
  const ModelShape m = preset_shape("llama-4-maverick");
  // interleave_moe_layer_step 2: layers 1, 3, ..., 47 are MoE; the dense ones have ffn 16384.
  CHECK(m.moe_layers() == 24);
  CHECK_FALSE(m.moe_layer(0));
  CHECK(m.moe_layer(1));
  const double h = 5120;
  const double attention = 2 * h * 5120 + 2 * h * 1024, dense = 3 * h * 16384, expert = 3 * h * 8192;
  const double total = 48 * (attention + 2 * h) + 24 * dense + 24 * (128 * expert + expert + 128 * h) +
                       2 * 202048 * h + h;
  CHECK(double(m.total_params()) == total);
  CHECK(preset_shape("llama-4-scout").moe_layers() == 48);
}

TEST_CASE("presets: a learned position table bounds the sequence", "[model]") {
  models::ModelSpec s;
  s.preset = "gpt2";
  s.seq = 2048;  // GPT-2 has 1024 positions
  try {
    resolve_model(s);
    FAIL("expected a SpecError");
  } catch (const models::SpecError& e) {
    CHECK(e.key() == "model.seq");
  }
  s.seq = 512;
  CHECK(resolve_model(s).position_params() == 1024 * 768);  // the table, whatever the sequence
}

TEST_CASE("presets: Kimi K2, the DeepSeek-V3 architecture with 384 experts, by hand", "[model]") {
  // config.json's shape (presets.cpp names where each number is read): MLA with 64 heads, 1 dense
  // layer then 60 MoE layers of 384 routed experts (2048 wide) and 1 shared, vocabulary 163840, untied.
  const ModelShape m = preset_shape("kimi-k2");
  CHECK(m.moe_layers() == 60);
  CHECK_FALSE(m.moe_layer(0));
  CHECK(m.moe_layer(1));
  CHECK(m.attention().is_mla());
  const double h = 7168, a = 64, r_q = 1536, r_kv = 512, d_n = 128, d_r = 64, d_v = 128, vocab = 163840;
  const double attention = h * r_q + r_q * a * (d_n + d_r) + h * (r_kv + d_r) + r_kv * a * (d_n + d_v) + a * d_v * h;
  const double norms = 2 * h + r_q + r_kv;  // the block's two RMSNorms and MLA's two latent norms
  const double dense = 3 * h * 18432, expert = 3 * h * 2048;
  const double total = 61 * (attention + norms) + dense + 60 * (385 * expert + 384 * h) + 2 * vocab * h + h;
  CHECK(double(m.total_params()) == total);
  CHECK(double(m.active_params()) == total - 60 * (384 - 8) * expert);
  // Moonshot's model card: 1T total, 32B activated. The shape gives 1026.4B and 32.86B (embedding
  // and head included), 2.6 % and 2.7 % above the card's rounded figures.
  CHECK(double(m.total_params()) == Approx(1e12).epsilon(0.03));
  CHECK(double(m.active_params()) == Approx(32e9).epsilon(0.03));
}

TEST_CASE("presets: GLM-4.5, GQA with head_dim 128 and 160 experts, by hand", "[model]") {
  // 96 query heads and 8 KV heads of 128 beside hidden 5120, 3 dense layers (ffn 12288) then 89 MoE
  // layers of 160 routed experts (1536 wide) and 1 shared, vocabulary 151552, untied.
  const ModelShape m = preset_shape("glm-4.5");
  CHECK(m.moe_layers() == 89);
  CHECK_FALSE(m.moe_layer(2));
  CHECK(m.moe_layer(3));
  CHECK(m.attention().q_dim() == 96 * 128);
  const double h = 5120, vocab = 151552;
  const double attention = 2 * h * (96 * 128) + 2 * h * (8 * 128);
  const double dense = 3 * h * 12288, expert = 3 * h * 1536;
  const double total = 92 * (attention + 2 * h) + 3 * dense + 89 * (161 * expert + 160 * h) + 2 * vocab * h + h;
  CHECK(double(m.total_params()) == total);
  // Zhipu: 355B total (the multi-token-prediction layer left out), 32B active.
  CHECK(double(m.total_params()) == Approx(355e9).epsilon(0.01));  // 352.80B, -0.6 %
  // 33.63B with the embedding and head, 5.1 % above the published 32B; Zhipu does not say what its
  // active count includes (without the embedding and head the shape gives 32.08B, which the last
  // line pins to 0.1 %, so a wrong expert count or width fails there, not in the loose check).
  CHECK(double(m.active_params()) == Approx(32e9).epsilon(0.06));
  CHECK(double(m.active_params() - 2 * m.embedding_params()) == Approx(32.08e9).epsilon(0.001));
}
