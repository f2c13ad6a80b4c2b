// The rates of a GPU and precision (models/compute/gpu_rates.hpp): the H200's measurements, the
// transfer rule to other GPUs, overrides through [cluster.params], and the precision errors.
#include <catch2/catch.hpp>

#include "models/compute/gpu_rates.hpp"
#include "models/error.hpp"
#include "models/params.hpp"
#include "tests/models/param_margin.hpp"

using namespace models::compute;
using models::hw::find_gpu;

TEST_CASE("compute: precisions parse by name and fp8 keeps 16-bit activations", "[models]") {
  CHECK(parse_precision("fp8") == Precision::Fp8);
  CHECK(parse_precision("bf16") == Precision::Bf16);
  CHECK_FALSE(parse_precision("int8").has_value());
  CHECK(activation_bytes(Precision::Fp8) == 2);
  CHECK(activation_bytes(Precision::Fp32) == 4);
}

TEST_CASE("compute: on an H200 the rates are the measured ones, and the registry says the same", "[models]") {
  const GpuRates r = make_gpu_rates(find_gpu("H200"), Precision::Bf16, {});
  CHECK(r.gemm.flops_per_s == Approx(793e12));
  CHECK(r.gemm.fixed_s == Approx(6.93e-6));
  CHECK(r.gemm.output_bytes_per_s == Approx(8.04e12));
  CHECK(r.memory.bandwidth(MemKernel::CastUp) == Approx(2.10e12));
  CHECK(r.adamw.bandwidth(OptimizerImpl::Foreach, 4) == Approx(3.67e12));
  const GpuRates f8 = make_gpu_rates(find_gpu("H200"), Precision::Fp8, {});
  CHECK(f8.gemm.flops_per_s == Approx(1492e12));
  CHECK(f8.gemm.fixed_s == Approx(7.06e-6));
  CHECK(f8.gemm.output_bytes_per_s == Approx(4.64e12));
  CHECK(f8.attention.fwd_flops_per_s == Approx(r.attention.fwd_flops_per_s));  // attention stays 16-bit
  // The registered defaults of the GPU-independent rows are these constants.
  CHECK(models::param_default("compute.gemm_fixed_time.bf16") == kH200GemmBf16.fixed_s);
  CHECK(models::param_default("compute.gemm_fixed_time.fp8") == kH200GemmFp8.fixed_s);
  CHECK(models::param_default("compute.attention_fixed_time.fwd") == kH200Attention.fwd_fixed_s);
  CHECK(models::param_default("compute.attention_fixed_time.bwd") == kH200Attention.bwd_fixed_s);
  CHECK(models::param_default("compute.kernel_fixed_time") == kH200KernelFixed);
  CHECK(models::param_default("compute.launch_gap") == kLaunchGap);
}

// A memory-bound rate on a GPU of `hbm` B/s by the rule: streaming at 4.33 / 4.8 of HBM plus the
// H200's non-HBM time per byte, 1/R - 1/4.33 TB/s.
double stream_rule(double h200_rate, double hbm) {
  return 1 / (1 / (4.33e12 * hbm / 4.8e12) + 1 / h200_rate - 1 / 4.33e12);
}

TEST_CASE("compute: other GPUs get the H200's fractions of their datasheet peak and HBM", "[models]") {
  const GpuRates h200 = make_gpu_rates(find_gpu("H200"), Precision::Bf16, {});
  // A100 80 GB: 312 TFLOP/s bf16, 2039 GB/s. R = 312 x 793/989; the GEMM epilogue x 2039/4800;
  // memory-bound kinds, AdamW and the loss (16 B per logit at 1.25 TB/s) by the stream rule; t0 kept.
  const GpuRates a100 = make_gpu_rates(find_gpu("A100-80GB"), Precision::Bf16, {});
  CHECK(a100.gemm.flops_per_s == Approx(312e12 * 793.0 / 989.0));
  CHECK(a100.gemm.fixed_s == h200.gemm.fixed_s);
  CHECK(a100.gemm.output_bytes_per_s == Approx(8.04e12 * 2039.0 / 4800.0));
  CHECK(a100.attention.bwd_flops_per_s == Approx(449e12 * 312.0 / 989.0));
  CHECK(a100.memory.bandwidth(MemKernel::NormBwd) == Approx(stream_rule(1.84e12, 2039e9)));
  CHECK(a100.memory.loss_s_per_logit == Approx(36 / stream_rule(36 / 12.8e-12, 2039e9)));
  CHECK(a100.adamw.bandwidth(OptimizerImpl::Fused, 2) == Approx(stream_rule(2.72e12, 2039e9)));
  CHECK(a100.launch_gap_s == h200.launch_gap_s);
  // H100: the H200's compute, 3.35 TB/s of HBM: GEMM rate equal; a streaming kernel x 0.70 (2.98
  // TB/s), a kernel far from HBM's rate less (the strided copy 1.16 -> 1.04 TB/s).
  const GpuRates h100 = make_gpu_rates(find_gpu("H100"), Precision::Bf16, {});
  CHECK(h100.gemm.flops_per_s == Approx(793e12));
  CHECK(h100.memory.bandwidth(MemKernel::Elementwise) == Approx(stream_rule(4.26e12, 3350e9)));
  CHECK(h100.memory.bandwidth(MemKernel::Elementwise) == Approx(2.98e12).epsilon(0.005));
  CHECK(h100.memory.bandwidth(MemKernel::StridedCopy) == Approx(1.04e12).epsilon(0.005));
  // On the H200 itself the rule gives the measured rates bit for bit.
  CHECK(transfer_memory_rate(1.84e12, 4.8e12) == 1.84e12);
  CHECK(transfer_memory_slowdown(1.25e12, 4.8e12) == 1);
  // fp8: B200 4500 x 1492/1979; L40S 733 x the same fraction.
  CHECK(make_gpu_rates(find_gpu("B200"), Precision::Fp8, {}).gemm.flops_per_s == Approx(4500e12 * 1492 / 1979));
  CHECK(make_gpu_rates(find_gpu("L40S"), Precision::Fp8, {}).gemm.flops_per_s == Approx(733e12 * 1492 / 1979));
}

TEST_CASE("compute: a measured value in [cluster.params] overrides the transfer", "[models]") {
  const std::map<std::string, double> p{{"compute.gemm_rate.bf16", 250e12},
                                        {"compute.memory_bandwidth.cast_up", 1e12},
                                        {"compute.adamw_bandwidth.fused_fp32", 1.5e12}};
  const GpuRates r = make_gpu_rates(find_gpu("A100-80GB"), Precision::Bf16, p);
  CHECK(r.gemm.flops_per_s == 250e12);
  CHECK(r.memory.bandwidth(MemKernel::CastUp) == 1e12);
  CHECK(r.adamw.bandwidth(OptimizerImpl::Fused, 4) == 1.5e12);
  // training.compute_efficiency: the GEMM rate as a fraction of the precision's peak.
  CHECK(make_gpu_rates(find_gpu("H200"), Precision::Bf16, {}, 0.5).gemm.flops_per_s == Approx(494.5e12));
  CHECK_THROWS_AS(make_gpu_rates(find_gpu("H200"), Precision::Bf16, {{"compute.gemm_rate.bf16", -1}}),
                  models::SpecError);
}

TEST_CASE("compute: a precision the GPU has no tensor cores for is an error at training.precision", "[models]") {
  try {
    make_gpu_rates(find_gpu("A100-80GB"), Precision::Fp8, {});
    FAIL("no error");
  } catch (const models::SpecError& e) {
    CHECK(e.key() == "training.precision");
    CHECK(std::string(e.what()) == "A100-80GB has no fp8 tensor cores (expected bf16 or fp16)");
  }
  try {
    make_gpu_rates(find_gpu("V100"), Precision::Bf16, {});
    FAIL("no error");
  } catch (const models::SpecError& e) {
    CHECK(std::string(e.what()) == "V100 has no bf16 tensor cores (expected fp16)");
  }
  CHECK(peak_flops(find_gpu("H100"), Precision::Fp8) == 1979e12);
  CHECK(peak_flops(find_gpu("A10G"), Precision::Fp8) == 0);
}

TEST_CASE("compute: under the power limit GEMMs stretch to keep the step's mean power at the limit", "[models]") {
  GpuRates r = make_gpu_rates(find_gpu("H200"), Precision::Bf16, {});
  CHECK(r.gemm_power == 1.22);
  CHECK(r.other_power == 0.71);
  // t_g' / t_g = max(1, a - (1 - b) t_o / t_g): a GEMM-only step runs 1.22x slower; with 0.3 s of
  // GEMMs beside 0.1 s of memory-bound work 1.22 - 0.29 / 3 = 1.123 (the pipeline stage of
  // ANALYSIS.md section 8); with as much other work as GEMMs (an FSDP2 step) not at all.
  CHECK(power_capped_gemm_stretch(1, 0, r) == Approx(1.22));
  CHECK(power_capped_gemm_stretch(0.3, 0.1, r) == Approx(1.22 - 0.29 / 3));
  CHECK(power_capped_gemm_stretch(1, 1, r) == 1);
  CHECK(power_capped_gemm_stretch(0, 1, r) == 1);
  // Mean power of the stretched step is the limit: (a t_g + b t_o) / (t_g' + t_o) = 1.
  const double tg = 0.3, to = 0.1, s = power_capped_gemm_stretch(tg, to, r);
  CHECK((1.22 * tg + 0.71 * to) / (s * tg + to) == Approx(1.0));
}

// [cluster.params] values have physical bounds (models/params.cpp). The rates every
// catalog GPU gets by the transfer rule are what a user would write for it: each must sit inside
// its parameter's bounds with a margin of 10x, or a bound would refuse a real GPU's own value.
TEST_CASE("compute: every catalog GPU's transferred rates sit well inside the parameters' bounds", "[models]") {
  int checked = 0;
  for (const auto& gpu : models::hw::gpu_catalog()) {
    for (Precision p : {Precision::Fp32, Precision::Bf16, Precision::Fp16, Precision::Fp8}) {
      if (!(peak_flops(gpu, p) > 0)) continue;
      const GpuRates r = make_gpu_rates(gpu, p, {});
      const std::string law = p == Precision::Fp8 ? "fp8" : "bf16";
      std::vector<std::pair<std::string, double>> values = {
          {std::string("compute.gemm_rate.") + precision_name(p), r.gemm.flops_per_s},
          {"compute.gemm_fixed_time." + law, r.gemm.fixed_s},
          {"compute.gemm_output_bandwidth." + law, r.gemm.output_bytes_per_s},
          {"compute.attention_rate.fwd", r.attention.fwd_flops_per_s},
          {"compute.attention_rate.bwd", r.attention.bwd_flops_per_s},
          {"compute.attention_fixed_time.fwd", r.attention.fwd_fixed_s},
          {"compute.attention_fixed_time.bwd", r.attention.bwd_fixed_s},
          {"compute.kernel_fixed_time", r.memory.fixed_s},
          {"compute.loss_time_per_logit", r.memory.loss_s_per_logit},
          {"compute.launch_gap", r.launch_gap_s},
          {"compute.power.gemm", r.gemm_power},
          {"compute.power.other", r.other_power},
      };
      for (int k = 0; k < kMemKernels; ++k)
        values.push_back(
            {std::string("compute.memory_bandwidth.") + memory_kernel_name(MemKernel(k)), r.memory.bytes_per_s[k]});
      for (int i = 0; i < kOptimizerImpls; ++i)
        for (int d = 0; d < 2; ++d)
          values.push_back({std::string("compute.adamw_bandwidth.") + optimizer_impl_name(OptimizerImpl(i)) +
                                (d == 0 ? "_fp32" : "_bf16"),
                            r.adamw.bytes_per_s[i][d]});
      for (const auto& [name, v] : values) {
        INFO(gpu.name << " " << precision_name(p) << ": " << name << " = " << v);
        CHECK(models_test::outside_margin(name, v).empty());
        // and the value is accepted where a user writes it
        CHECK_NOTHROW(models::check_param(name, v));
        ++checked;
      }
    }
  }
  CHECK(checked > 300);  // 9 GPUs, 3 or 4 precisions each, 31 values
}
