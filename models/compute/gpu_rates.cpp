// The compute model's rates for one GPU and precision: H200 measurements and the transfer rule
// (gpu_rates.hpp states the rule; models/params.cpp registers every name with its source).
#include "models/compute/gpu_rates.hpp"

#include <algorithm>
#include <string_view>

#include "models/error.hpp"
#include "models/params.hpp"

namespace models::compute {

namespace {

// Memory-bound kinds on one H200 (ANALYSIS.md section 2, rates at 8x the decoder's size; section 7
// for the strided copies), in MemKernel order.
constexpr std::array<double, kMemKernels> kH200MemoryBandwidth{
    4.26e12,  // Elementwise: copy 4.14, add 4.33, fp32 -> bf16 cast 4.30 TB/s (mean)
    2.10e12,  // CastUp: bf16 -> fp32
    3.40e12,  // NormFwd: RMSNorm forward
    1.84e12,  // NormBwd: RMSNorm backward
    2.53e12,  // SwigluFwd
    2.43e12,  // SwigluBwd
    1.16e12,  // StridedCopy: packed-qkv backward, 1.18 (32 heads) and 1.13 TB/s (16 heads)
    2.87e12,  // Fp8Cast: 2.23 TB/s measured on an H100 (kernels.hpp), the transfer rule inverted
};
constexpr std::array<const char*, kMemKernels> kMemoryNames{"elementwise", "cast_up",    "norm_fwd",     "norm_bwd",
                                                            "swiglu_fwd",  "swiglu_bwd", "strided_copy", "fp8_cast"};
// AdamW on one H200 (ANALYSIS.md section 3), bytes/s at adamw_bytes_per_param: [impl][fp32, 16-bit].
constexpr std::array<std::array<double, 2>, kOptimizerImpls> kH200Adamw{{
    {3.67e12, 3.07e12},  // foreach: 80 B in 21.79 ps, 40 B in 13.02 ps
    {3.47e12, 2.72e12},  // fused: 28 B in 8.06 ps, 14 B in 5.14 ps
    {4.19e12, 4.07e12},  // for_loop: 80 B in 19.11 ps, 40 B in 9.83 ps
}};

std::string key(std::string_view a, std::string_view b) { return std::string(a) + "." + std::string(b); }

std::string supported(const hw::GpuSpec& gpu) {
  std::string out;
  for (Precision p : {Precision::Bf16, Precision::Fp16, Precision::Fp8, Precision::Mxfp8, Precision::Nvfp4})
    if (peak_flops(gpu, p) > 0) out += (out.empty() ? "" : " or ") + std::string(precision_name(p));
  return out;
}

}  // namespace

double peak_flops(const hw::GpuSpec& gpu, Precision precision) {
  switch (precision) {
    case Precision::Fp32: return gpu.fp32_flops;
    case Precision::Bf16: return gpu.bf16_flops;
    case Precision::Fp16: return gpu.fp16_flops;
    case Precision::Fp8: return gpu.fp8_flops;
    // Block-scaled formats need Blackwell's tensor cores (SM100+; Hopper's fp8 has no block scales):
    // MXFP8 at the fp8 peak, NVFP4 at the fp4 peak (the datasheets' "FP8/FP6" and "FP4" figures).
    case Precision::Mxfp8: return gpu.sm >= 100 ? gpu.fp8_flops : 0;
    case Precision::Nvfp4: return gpu.sm >= 100 ? gpu.fp4_flops : 0;
  }
  return 0;
}

GpuRates make_gpu_rates(const hw::GpuSpec& gpu, Precision precision, const std::map<std::string, double>& params,
                        double gemm_efficiency) {
  const double peak = peak_flops(gpu, precision);
  if (!(peak > 0))
    throw SpecError("training.precision", gpu.name + " has no " + precision_name(precision) +
                                              " tensor cores (expected " + supported(gpu) + ")");
  if (!(gpu.hbm_bytes_per_s > 0))
    throw SpecError("cluster.node.gpu", gpu.name + " has no memory bandwidth in the catalog");
  const double hbm = gpu.hbm_bytes_per_s / kH200Hbm;  // the rule's bandwidth factor (1 on an H200)
  auto value = [&](const std::string& name, double transferred) { return param_or(params, name, transferred); };

  GpuRates r;
  r.precision = precision;
  // GEMMs: fp8 has its own law; fp16 and fp32 use bf16's fixed cost and epilogue, and the bf16
  // fraction of their own peak. The block-scaled formats (mxfp8, nvfp4) are not measured: they take
  // the fp8 law (the H200's fp8 fraction of peak, fixed cost and epilogue) at their own peak, a
  // transfer (checked against Azure's GB200 cuBLASLt fp4 GEMMs: docs/hardware.md).
  const bool fp8 = quantized(precision);
  const GemmLaw& h200 = fp8 ? kH200GemmFp8 : kH200GemmBf16;
  const double fraction = fp8 ? kH200GemmFp8.flops_per_s / kH200PeakFp8 : kH200GemmBf16.flops_per_s / kH200PeakBf16;
  const std::string law = fp8 ? "fp8" : "bf16";
  r.gemm.flops_per_s = value(key("compute.gemm_rate", precision_name(precision)), peak * fraction);
  if (gemm_efficiency > 0) r.gemm.flops_per_s = peak * gemm_efficiency;
  r.gemm.fixed_s = value(key("compute.gemm_fixed_time", law), h200.fixed_s);
  r.gemm.output_bytes_per_s = value(key("compute.gemm_output_bandwidth", law), h200.output_bytes_per_s * hbm);
  r.gemm16 = r.gemm;
  if (fp8) {  // bf16's law on this GPU, as a bf16 step prices it
    const double peak16 = gpu.bf16_flops > 0 ? gpu.bf16_flops : gpu.fp16_flops;
    r.gemm16.flops_per_s = value("compute.gemm_rate.bf16", peak16 * (kH200GemmBf16.flops_per_s / kH200PeakBf16));
    r.gemm16.fixed_s = value("compute.gemm_fixed_time.bf16", kH200GemmBf16.fixed_s);
    r.gemm16.output_bytes_per_s = value("compute.gemm_output_bandwidth.bf16", kH200GemmBf16.output_bytes_per_s * hbm);
  }

  // Attention runs in 16 bits (under fp8 too): its rates scale with the 16-bit peak.
  const double peak16 = gpu.bf16_flops > 0 ? gpu.bf16_flops : gpu.fp16_flops;
  const double scale16 = peak16 / kH200PeakBf16;
  r.attention.fwd_fixed_s = value("compute.attention_fixed_time.fwd", kH200Attention.fwd_fixed_s);
  r.attention.fwd_flops_per_s = value("compute.attention_rate.fwd", kH200Attention.fwd_flops_per_s * scale16);
  r.attention.bwd_fixed_s = value("compute.attention_fixed_time.bwd", kH200Attention.bwd_fixed_s);
  r.attention.bwd_flops_per_s = value("compute.attention_rate.bwd", kH200Attention.bwd_flops_per_s * scale16);

  r.memory.fixed_s = value("compute.kernel_fixed_time", kH200KernelFixed);
  for (int k = 0; k < kMemKernels; ++k)
    r.memory.bytes_per_s[k] = value(key("compute.memory_bandwidth", kMemoryNames[k]),
                                    transfer_memory_rate(kH200MemoryBandwidth[k], gpu.hbm_bytes_per_s));
  // The loss as the bytes its kernels move per logit (kLossBytesPerLogit, 2.8 TB/s on the H200), by
  // the same rule: t = B / BW_gpu = the H200's time x BW_H200 / BW_gpu.
  const double loss_rate = kLossBytesPerLogit / kH200LossPerLogit;
  r.memory.loss_s_per_logit = value("compute.loss_time_per_logit",
                                    kH200LossPerLogit * transfer_memory_slowdown(loss_rate, gpu.hbm_bytes_per_s));

  for (int i = 0; i < kOptimizerImpls; ++i)
    for (int d = 0; d < 2; ++d) {
      const std::string name = std::string(optimizer_impl_name(OptimizerImpl(i))) + (d == 0 ? "_fp32" : "_bf16");
      r.adamw.bytes_per_s[i][d] =
          value(key("compute.adamw_bandwidth", name), transfer_memory_rate(kH200Adamw[i][d], gpu.hbm_bytes_per_s));
    }
  r.grouped.fixed_s = value("compute.grouped_gemm_fixed_time", kGroupedGemmFixed);
  r.grouped.per_group_s = value("compute.grouped_gemm_group_time", kGroupedGemmPerGroup);
  r.grouped.bytes_per_s = r.memory.bandwidth(MemKernel::Elementwise);
  r.launch_gap_s = value("compute.launch_gap", kLaunchGap);
  r.gemm_power = value("compute.power.gemm", param_default("compute.power.gemm"));
  r.other_power = value("compute.power.other", param_default("compute.power.other"));
  return r;
}

// 1/BW = 1/(eta HBM) + s with s = 1/BW_H200 - 1/(eta 4.8 TB/s): BW_H200 / BW = 1 + BW_H200 x d, d the
// difference of the HBM terms (exactly 0 on an H200, which keeps its measured rates bit for bit).
double transfer_memory_slowdown(double h200_bytes_per_s, double hbm_bytes_per_s) {
  const double d = 1 / (kStreamFraction * hbm_bytes_per_s) - 1 / (kStreamFraction * kH200Hbm);
  return 1 + h200_bytes_per_s * d;
}

const char* memory_kernel_name(MemKernel k) { return kMemoryNames[size_t(k)]; }

double transfer_memory_rate(double h200_bytes_per_s, double hbm_bytes_per_s) {
  return h200_bytes_per_s / transfer_memory_slowdown(h200_bytes_per_s, hbm_bytes_per_s);
}

double power_capped_gemm_stretch(double gemm_s, double other_s, const GpuRates& r) {
  if (!(gemm_s > 0)) return 1;
  return std::max(1.0, r.gemm_power - (1 - r.other_power) * other_s / gemm_s);
}

}  // namespace models::compute
