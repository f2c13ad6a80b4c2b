// The GEMM law t = t0 + 2mnk/R + 2mn/BWc (models/compute/gemm.hpp) against rows measured on one H200
// (scenarios/validation/h200x1/measured/gemm.jsonl, line numbers below; the whole sweep is checked
// in tests/validation/one_gpu/h200x1_compute_validation_test.cpp).
#include <catch2/catch.hpp>

#include "models/compute/gemm.hpp"
#include "models/compute/gpu_rates.hpp"

using namespace models::compute;

TEST_CASE("compute: the GEMM law is a fixed cost, the FLOPs at a rate and the output at a bandwidth", "[models]") {
  const GemmLaw law{5e-6, 1e15, 1e13};
  // t = 5 us + 2 * 1000 * 2000 * 3000 / 1e15 + 2 * 1000 * 2000 / 1e13 = 5 + 12 + 0.4 us
  CHECK(gemm_seconds(law, 1000, 2000, 3000) == Approx(17.4e-6).epsilon(1e-12));
  // A linear layer y = x W^T, x tokens x in, W out x in: fwd (T, out, in), dgrad (T, in, out),
  // wgrad (out, in, T). Same FLOPs, different outputs.
  const LinearSeconds l = linear_seconds(law, 4096, 1024, 3072);
  CHECK(l.fwd == Approx(gemm_seconds(law, 4096, 3072, 1024)));
  CHECK(l.dgrad == Approx(gemm_seconds(law, 4096, 1024, 3072)));
  CHECK(l.wgrad == Approx(gemm_seconds(law, 3072, 1024, 4096)));
  CHECK(l.bwd() == Approx(l.dgrad + l.wgrad));
}

TEST_CASE("compute: the H200 bf16 and fp8 GEMM laws reproduce measured shapes within 11 %", "[models]") {
  struct Row {
    int line;
    bool fp8;
    int64_t m, n, k;
    double seconds;
  };
  // gemm.jsonl: line, dtype, m, n, k, median_s (first call). The law's out-of-sample median error over
  // the 183 model-layer shapes is 5.5 % (ANALYSIS.md section 1); these sit at 2-11 %.
  const Row rows[] = {
      {3, false, 4096, 12288, 4096, 512.128e-6},         // decoder TP 1 qkv forward: 805 TFLOP/s
      {129, false, 4096, 4096, 1024, 51.968e-6},         // decoder TP 4 o forward (k = 4096/4): 661 TFLOP/s
      {117, false, 3072, 4096, 4096, 132.672e-6},        // decoder TP 4 qkv wgrad
      {48, false, 4096, 32000, 4096, 1471.664e-6},       // decoder head forward
      {537, false, 8192, 3584, 8192, 605.056e-6},        // Llama-3-70B TP 8 down dgrad
      {552, false, 256, 256, 256, 6.656e-6},             // grid: the fixed cost dominates
      {1008, false, 4096, 4096, 4096, 173.792e-6},       // grid
      {1236, false, 16384, 16384, 16384, 12435.488e-6},  // grid: power-capped (-10 %)
      {4, true, 4096, 12288, 4096, 289.232e-6},          // fp8 decoder TP 1 qkv forward
      {787, true, 1024, 1024, 8192, 19.424e-6},          // fp8 grid
      {1009, true, 4096, 4096, 4096, 102.432e-6},        // fp8 grid
  };
  for (const Row& r : rows) {
    INFO("gemm.jsonl line " << r.line);
    const double t = gemm_seconds(r.fp8 ? kH200GemmFp8 : kH200GemmBf16, r.m, r.n, r.k);
    CHECK(std::abs(t / r.seconds - 1) < 0.11);
  }
  // One rate for all FLOPs (the old model, 560 TFLOP/s) misses the small shape by 2.4x: 256^3
  // takes 6.66 us measured, 0.06 us at 560 TFLOP/s. The law's fixed cost is what a small GEMM pays.
  CHECK(gemm_seconds(kH200GemmBf16, 256, 256, 256) ==
        Approx(6.93e-6 + 2.0 * 256 * 256 * 256 / 793e12 + 2.0 * 256 * 256 / 8.04e12));
}

TEST_CASE("compute: a layer whose widths are not 16-byte multiples runs at the fallback kernels' fractions",
          "[models]") {
  const GemmLaw law{5e-6, 1e15, 1e13};
  const double flops = 2.0 * 8192 * 768 * 50257;
  // An odd width (GPT-2's vocabulary as the head's out): cutlass_75 align1, t = t0 + F / (f R).
  const LinearSeconds odd = linear_seconds(law, 8192, 768, 50257);
  CHECK(odd.fwd == Approx(5e-6 + flops / (kAlign1Fractions.fwd * 1e15)).epsilon(1e-12));
  CHECK(odd.dgrad == Approx(5e-6 + flops / (kAlign1Fractions.dgrad * 1e15)).epsilon(1e-12));
  CHECK(odd.wgrad == Approx(5e-6 + flops / (kAlign1Fractions.wgrad * 1e15)).epsilon(1e-12));
  CHECK_FALSE(odd.full_power);  // align1 kernels drew 450 W of 700 (gemm_misaligned_power.jsonl)
  // Even but not a multiple of 8 (either width): cutlass_80 align2.
  const LinearSeconds even = linear_seconds(law, 8192, 768, 50258);
  CHECK(even.full_power);  // align2 kernels sat at the power limit as aligned ones (688 W)
  CHECK(even.fwd == Approx(5e-6 + 2.0 * 8192 * 768 * 50258 / (kAlign2Fractions.fwd * 1e15)).epsilon(1e-12));
  CHECK(linear_seconds(law, 8192, 4100, 4096).dgrad ==
        Approx(5e-6 + 2.0 * 8192 * 4100 * 4096 / (kAlign2Fractions.dgrad * 1e15)).epsilon(1e-12));
  // A multiple of 8 is the law itself; fp8 inputs (16 per 16 bytes) need a multiple of 16.
  const LinearSeconds aligned = linear_seconds(law, 8192, 768, 50264);
  CHECK(aligned.fwd == Approx(gemm_seconds(law, 8192, 50264, 768)));
  CHECK(linear_seconds(law, 8192, 768, 50264, 16).fwd > 2 * aligned.fwd);  // 50264 = 8 x 6283: not 16-aligned
  // The H200's measured medians (TFLOP/s, scenarios/validation/h200x1/measured/gemm_misaligned.jsonl)
  // over the law's 793: align1 is 8x, 5.8x, 5.4x slower than the aligned rate per product.
  CHECK(kAlign1Fractions.fwd * 793 == Approx(94.5));
  CHECK(kAlign2Fractions.wgrad * 793 == Approx(262.6));
}

TEST_CASE("gemm: a grouped GEMM pays one fixed cost and each group the larger of its tensor and HBM times",
          "[models]") {
  const models::compute::GemmLaw law{6.93e-6, 793e12, 8.04e12};
  const models::compute::GroupedGemmLaw grouped{18e-6, 0.4e-6, 4.26e12};
  // Llama 4's gate+up at 32 tokens per expert, 8 experts: 5120 x 16384 weights, 2 B each. HBM:
  // 2 (32 x 5120 + 5120 x 16384 + 32 x 16384) / 4.26e12 = 39.7 us per expert, tensor 6.8 us.
  const double hbm = 2.0 * (32.0 * 5120 + 5120.0 * 16384 + 32.0 * 16384) / 4.26e12;
  const double tensor = 2.0 * 32 * 16384 * 5120 / 793e12 + 2.0 * 32 * 16384 / 8.04e12;
  CHECK(hbm > tensor);
  CHECK(models::compute::grouped_gemm_seconds(law, grouped, 8, 32, 16384, 5120) ==
        Approx(18e-6 + 8 * (0.4e-6 + hbm)).epsilon(1e-12));
  // Many tokens per expert: the tensor cores bind, and the groups share one t_g instead of L t0.
  const double big = 2.0 * 2048 * 1536 * 2048 / 793e12 + 2.0 * 2048 * 1536 / 8.04e12;
  CHECK(models::compute::grouped_gemm_seconds(law, grouped, 8, 2048, 1536, 2048) ==
        Approx(18e-6 + 8 * (0.4e-6 + big)).epsilon(1e-12));
  CHECK(models::compute::grouped_gemm_seconds(law, grouped, 8, 2048, 1536, 2048) <
        8 * models::compute::gemm_seconds(law, 2048, 1536, 2048));
  // The three products of a linear layer: forward (T, out, in), dgrad (T, in, out), wgrad (out, in, T).
  const auto l = models::compute::grouped_linear_seconds(law, grouped, 4, 512, 2048, 768);
  CHECK(l.fwd == models::compute::grouped_gemm_seconds(law, grouped, 4, 512, 768, 2048));
  CHECK(l.dgrad == models::compute::grouped_gemm_seconds(law, grouped, 4, 512, 2048, 768));
  CHECK(l.wgrad == models::compute::grouped_gemm_seconds(law, grouped, 4, 768, 2048, 512));
}
