// The compute model on decoders that are not Llama-shaped (models/workload/compute.hpp): MLA's GEMMs
// and attention core, the latent norms, the bias gradients, head_dim beside the hidden size; each
// against its closed form from the model's config.
#include <catch2/catch.hpp>

#include <string_view>

#include "models/hw/instance.hpp"
#include "models/model/model_shape.hpp"
#include "models/workload/compute.hpp"

using namespace models::workload;
using models::model::ModelShape;


namespace {
ModelShape mla_preset(const char* name, int seq = 4096) {
  models::ModelSpec s;
  s.preset = name;
  s.seq = seq;
  return models::model::resolve_model(s);
}
ComputeRates mla_h200() {
  return make_rates(models::hw::find_instance("h200x4").gpu, models::compute::Precision::Bf16, 300e9, 0, {});
}
models::compute::LinearSeconds lin(const ComputeRates& r, int64_t tokens, int64_t in, int64_t out) {
  const models::compute::LinearSeconds l = models::compute::linear_seconds(r.gpu.gemm, tokens, in, out);
  const double gap = r.gpu.launch_gap_s;
  return {l.fwd + gap, l.dgrad + gap, l.wgrad + gap};
}
}  // namespace

TEST_CASE("compute: DeepSeek-V3's block FLOPs with MLA, by hand", "[workload]") {
  const ModelShape m = mla_preset("deepseek-v3");
  const double T = 4096, s = 4096;
  // A dense block (the first three): 2 T (MLA's matrices + SwiGLU 3 x 7168 x 18432) + 2 T s W,
  // W = 128 (192 + 128) / 2 = 20480 (QK^T at 192 per head, PV at 128; causal half).
  const double mla = 11010048.0 + 37748736 + 4128768 + 16777216 + 117440512;
  const double expect = 2 * T * (mla + 3.0 * 7168 * 18432) + 2 * T * s * 20480;
  CHECK(block_forward_flops(m, int64_t(T)) == Approx(expect).epsilon(1e-12));
  // Stood in for by MHA the core was 2 T s h = 2 T s 7168: MLA's is 2.86x that.
  CHECK(20480.0 / 7168 == Approx(2.857).epsilon(1e-3));
}

TEST_CASE("compute: MLA's GEMMs each at its own shape, the down projections whole under TP", "[workload]") {
  const ModelShape m = mla_preset("deepseek-v3");
  const ComputeRates r = mla_h200();
  const int64_t T = 4096;
  for (int tp : {1, 8}) {
    const BlockKernels k = block_kernels(m, T, tp, r);
    // q_a [T x 7168] x [7168 x 1536] and kv_a [7168 x 576] whole; q_b, kv_b by heads; o by rows.
    const models::compute::LinearSeconds parts[] = {lin(r, T, 7168, 1536), lin(r, T, 1536, 128 * 192 / tp),
                                            lin(r, T, 7168, 576), lin(r, T, 512, 128 * 256 / tp)};
    double fwd = 0, dgrad = 0, wgrad = 0;
    for (const auto& p : parts) fwd += p.fwd, dgrad += p.dgrad, wgrad += p.wgrad;
    INFO("tp " << tp);
    CHECK(k.qkv.fwd == Approx(fwd).epsilon(1e-12));
    CHECK(k.qkv.dgrad == Approx(dgrad).epsilon(1e-12));
    CHECK(k.qkv.wgrad == Approx(wgrad).epsilon(1e-12));
    CHECK(k.o.fwd == Approx(lin(r, T, 128 * 128 / tp, 7168).fwd).epsilon(1e-12));
    // The core at F = 2 T s W / tp, the causal-attention law's time plus its launch.
    const double F = 2.0 * T * 4096 * 20480 / tp;
    CHECK(k.attn_fwd == Approx(models::compute::attention_fwd_seconds(r.gpu.attention, F) + r.gpu.launch_gap_s));
    // The latent norms: 2 e per element of T x (1536 + 512) forward, 3 e backward, two norms.
    CHECK(k.latent_norm_fwd ==
          Approx(memory_seconds(r, models::compute::MemKernel::NormFwd, 2 * 2.0 * T * (1536 + 512), 2)));
    CHECK(k.latent_norm_bwd ==
          Approx(memory_seconds(r, models::compute::MemKernel::NormBwd, 3 * 2.0 * T * (1536 + 512), 4)));
  }
}

TEST_CASE("compute: head_dim beside hidden and the bias gradients", "[workload]") {
  const ComputeRates r = mla_h200();
  const int64_t T = 4096;
  // Qwen3-32B: qkv [5120 x (8192 + 2 x 1024)] in one projection, o [8192 x 5120]; core width 8192.
  const ModelShape q = mla_preset("qwen3-32b");
  const BlockKernels k = block_kernels(q, T, 1, r);
  CHECK(k.qkv.fwd == Approx(lin(r, T, 5120, 8192 + 2048).fwd));
  CHECK(k.o.fwd == Approx(lin(r, T, 8192, 5120).fwd));
  CHECK(block_forward_flops(q, T) ==
        Approx(2.0 * T * (2.0 * 5120 * 8192 + 2.0 * 5120 * 1024 + 3.0 * 5120 * 25600) + 2.0 * T * 4096 * 8192));
  CHECK(k.bias_attn_bwd == 0);
  // GPT-2 (biases): the backward reduces each output gradient over the tokens, e = 2 B per element:
  // attention T x (3h) and T x h, MLP T x 4h and T x h.
  const ModelShape g = mla_preset("gpt2", 1024);
  const BlockKernels b = block_kernels(g, T, 1, r);
  CHECK(b.bias_attn_bwd == Approx(memory_seconds(r, models::compute::MemKernel::Elementwise, 2.0 * T * (3 * 768 + 768), 2)));
  CHECK(b.bias_mlp_bwd == Approx(memory_seconds(r, models::compute::MemKernel::Elementwise, 2.0 * T * (4 * 768 + 768), 2)));
  // A Llama block has none of these: its kernels are what they were.
  const BlockKernels l = block_kernels(mla_preset("llama-3-8b"), T, 1, r);
  CHECK(l.bias_attn_bwd + l.bias_mlp_bwd + l.latent_norm_fwd + l.latent_norm_bwd == 0);
  CHECK(l.qkv.fwd == Approx(lin(r, T, 4096, 4096 + 2 * 1024).fwd));
}
