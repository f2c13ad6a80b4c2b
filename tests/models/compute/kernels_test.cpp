// Memory-bound kernels, attention and the loss (models/compute/kernels.hpp) against the H200's
// measurements (scenarios/validation/h200x1/measured/membound.jsonl, tp_rank.jsonl).
#include <catch2/catch.hpp>

#include "models/compute/gpu_rates.hpp"
#include "models/compute/kernels.hpp"

using namespace models::compute;

namespace {
const GpuRates& h200() {
  static const GpuRates r = make_gpu_rates(models::hw::find_gpu("H200"), Precision::Bf16, {});
  return r;
}
}  // namespace

TEST_CASE("compute: a memory-bound op is launches x t0 plus its bytes at its kind's bandwidth", "[models]") {
  MemoryRates m;
  m.fixed_s = 4e-6;
  m.bytes_per_s.fill(2e12);
  // 3 launches x 4 us + 1e9 B / 2 TB/s = 12 us + 500 us
  CHECK(memory_seconds(m, MemKernel::SwigluBwd, 1e9, 3) == Approx(512e-6));
}

TEST_CASE("compute: memory-bound kinds reproduce the H200's rows at the decoder's size and 8x", "[models]") {
  struct Row {
    const char* what;
    MemKernel kind;
    int launches;
    double bytes, seconds;
  };
  // membound.jsonl (bytes = fewest bytes, median_s): decoder size T 4096 x 4096 (x 14336 for
  // SwiGLU) and "large" = 8x. The large rows set the rates, t0 comes from the decoder rows.
  const Row rows[] = {
      {"copy decoder", MemKernel::Elementwise, 1, 67108864, 19.968e-6},
      {"add decoder", MemKernel::Elementwise, 1, 100663296, 27.392e-6},
      {"cast fp32->bf16 decoder", MemKernel::Elementwise, 1, 100663296, 27.472e-6},
      {"cast bf16->fp32 decoder", MemKernel::CastUp, 1, 100663296, 53.232e-6},
      {"rmsnorm fwd decoder", MemKernel::NormFwd, 1, 67108864, 26.752e-6},
      {"rmsnorm bwd decoder", MemKernel::NormBwd, 2, 100663296, 63.104e-6},
      {"swiglu fwd decoder", MemKernel::SwigluFwd, 2, 352321536, 146.848e-6},
      {"swiglu bwd decoder", MemKernel::SwigluBwd, 3, 587202560, 251.712e-6},
      {"copy large", MemKernel::Elementwise, 1, 536870912, 129.728e-6},
      {"add large", MemKernel::Elementwise, 1, 805306368, 186.080e-6},
      {"cast bf16->fp32 large", MemKernel::CastUp, 1, 805306368, 384.064e-6},
      {"rmsnorm bwd large", MemKernel::NormBwd, 2, 805306368, 438.080e-6},
      {"swiglu bwd large", MemKernel::SwigluBwd, 3, 4697620480, 1936.704e-6},
  };
  for (const Row& r : rows) {
    INFO(r.what);
    // t0 is the median over the ops, so one op's fixed cost is off by up to 3 us (RMSNorm forward:
    // 7 us): within 11 % at the decoder's size, 4 % at 8x.
    CHECK(std::abs(memory_seconds(h200().memory, r.kind, r.bytes, r.launches) / r.seconds - 1) < 0.11);
  }
}

TEST_CASE("compute: causal attention is t0 + F / R forward and t0 + 2.5 F / R backward", "[models]") {
  // F = 2 T s h / tp: the decoder's block, T 4096 = 2 x 2048, h 4096, 32 heads -> 68.7 GFLOP.
  const double f = attention_fwd_flops(4096, 2048, 4096, 1);
  CHECK(f == Approx(2.0 * 4096 * 2048 * 4096));
  CHECK(attention_fwd_flops(4096, 2048, 4096, 4) == Approx(f / 4));
  // tp_rank.jsonl sdpa_layout rows (cuDNN, contiguous q/k/v): heads 32 / 16 / 8 forward 142.5 /
  // 83.4 / 54.0 us, backward 443.9 / 254.3 / 156.3 us.
  const AttentionLaw& a = h200().attention;
  const double fwd[] = {142.5e-6, 83.4e-6, 54.0e-6}, bwd[] = {443.9e-6, 254.3e-6, 156.3e-6};
  for (int i = 0; i < 3; ++i) {
    const int tp = 1 << i;
    INFO("tp " << tp);
    CHECK(attention_fwd_seconds(a, f / tp) == Approx(fwd[i]).epsilon(0.01));
    CHECK(attention_bwd_seconds(a, f / tp) == Approx(bwd[i]).epsilon(0.01));
  }
  // At 32 heads forward + backward is membound.jsonl's cuDNN rate: 3.5 F / 586 us = 408 TFLOP/s.
  const double both = attention_fwd_seconds(a, f) + attention_bwd_seconds(a, f);
  CHECK(3.5 * f / both == Approx(408e12).epsilon(0.01));
}

TEST_CASE("compute: the decoder's loss costs 12.8 ps per logit", "[models]") {
  // membound.jsonl loss_of fwd+bwd: bf16 logits .float(), cross-entropy, 4096 x 32000 in 1.678 ms.
  CHECK(h200().memory.loss_s_per_logit * 4096 * 32000 == Approx(1.678e-3).epsilon(0.01));
}
