#pragma once
// models::compute::GpuRates: every rate of the compute model for one GPU and one precision, from
// measurements on one H200 (scenarios/validation/h200x1/ANALYSIS.md) and, for every other GPU, one
// transfer rule applied to its datasheet numbers (models/hw/gpu.cpp):
//
//   compute-bound rates scale with the GPU's dense peak of the same precision,
//   memory-bound kernels stream bytes from HBM at a fixed fraction of its bandwidth, plus a time
//   per byte that is not HBM's (the SMs' issue and latency), fixed costs stay:
//     R_gpu,p   = peak_gpu,p x R_H200,p / peak_H200,p     (GEMM: 793/989 = 0.802 of peak in bf16,
//                                                       1492/1979 = 0.754 in fp8; attention: its
//                                                       rates / 989 of the bf16 peak)
//     1/BW_gpu,k = 1/(eta HBM_gpu) + (1/BW_H200,k - 1/(eta 4.8 TB/s))
//                                                      (memory-bound kinds k, AdamW, the loss as 36 B
//                                                       per logit; eta = 0.902: the H200's fastest
//                                                       streaming kernel, 4.33 TB/s)
//     BW_gpu    = HBM_gpu x BW_H200 / 4.8 TB/s           (the GEMM epilogue)
//     t0_gpu    = t0_H200
// The rule is a transfer, not a measurement: it assumes another GPU streams the same fraction eta of
// its HBM bandwidth as the H200 and spends the same non-HBM time per byte (the H200's SMs: 132 at up
// to 1,980 MHz, as the H100's; other architectures are not measured). Checked out of sample on one
// H100 (scenarios/validation/h100x1/ANALYSIS.md): scaling the whole rate with HBM (the rule before)
// made its optimizer and memory-bound work 13-16 % too slow, since most of these kernels reach
// only 0.4-0.76 of the H200's HBM bandwidth and lose less than HBM's ratio (0.70) on the H100.
// Power-limited clocks differ: ANALYSIS.md section 1. Every value
// is a parameter ([cluster.params] or a calibration profile) under the names registered in
// models/params.cpp (compute.gemm_rate.bf16, compute.attention_rate.fwd, compute.memory_bandwidth.
// cast_up, compute.adamw_bandwidth.fused_fp32, ...); a measured value overrides the transfer.
#include <map>
#include <string>

#include "models/compute/gemm.hpp"
#include "models/compute/kernels.hpp"
#include "models/compute/optimizer.hpp"
#include "models/compute/precision.hpp"
#include "models/hw/gpu.hpp"

namespace models::compute {

struct GpuRates {
  Precision precision = Precision::Bf16;
  GemmLaw gemm;             // the matrix products' law in `precision`
  GemmLaw gemm16;           // fp8 only: the 16-bit law, for products kept in bf16 (the output layer)
  GroupedGemmLaw grouped;   // an MoE layer's experts, one grouped GEMM per product (gemm.hpp)
  AttentionLaw attention;   // causal SDPA (16-bit, also under fp8)
  MemoryRates memory;       // memory-bound kernels and the loss
  OptimizerRates adamw;     // AdamW by implementation
  double launch_gap_s = 0;  // host-side gap per kernel of an eager step (compute.launch_gap)
  // Board power, as fractions of the GPU's power limit (compute.power.gemm, compute.power.other):
  // what GEMMs running at the law's rate and what the rest of a step would draw.
  double gemm_power = 0, other_power = 0;
};

// A step's GEMMs under the board's power limit. GEMMs at the law's rate draw a x P_limit, the rest of
// the step b x P_limit; the GPU lowers its clocks until the step's mean power is P_limit. With the
// GEMMs' energy unchanged when slowed: (a t_g + b t_o) P = (t_g' + t_o) P, so
//   t_g' / t_g = max(1, a - (1 - b) t_o / t_g).
// On one H200 (700 W): b = 0.71 (AdamW, memory-bound, drew 476-531 W for seconds: adamw.jsonl),
// a = 1.22, fitted on the six steps of calls 4 and 5 that ran at the limit (>= 660 W: TP 1, pipeline
// stage 1, micro-batch 2 and 4; 1.17-1.23 each, ANALYSIS.md section 8 and
// h200x1_compute_validation_test.cpp): their GEMMs ran 2-10 % slower than the law, while steps
// with more memory-bound work (TP 4 and 8, micro-batch 1, FSDP2) drew less and ran them at its rate.
// Transferred unchanged to other GPUs (a fraction of each board's own limit): not measured there.
double power_capped_gemm_stretch(double gemm_s, double other_s, const GpuRates& r);

// Measured on one H200 SXM (scenarios/validation/h200x1/ANALYSIS.md), the reference of the rule.
inline constexpr double kH200PeakBf16 = 989e12;  // datasheet, dense (models/hw/gpu.cpp)
inline constexpr double kH200PeakFp8 = 1979e12;
inline constexpr double kH200Hbm = 4.8e12;
// The fastest streaming kernel on one H200: the residual add at 8x the decoder's size, 4.33 TB/s
// (ANALYSIS.md section 2), 0.902 of the datasheet's 4.8 TB/s: eta of the memory-bound rule above.
inline constexpr double kStreamFraction = 4.33e12 / kH200Hbm;
// The rule for one memory-bound rate measured at `h200_bytes_per_s` on the H200, on a GPU of
// `hbm_bytes_per_s` (exactly h200_bytes_per_s on an H200), and its time's ratio to the H200's.
double transfer_memory_rate(double h200_bytes_per_s, double hbm_bytes_per_s);

// A memory-bound kind's parameter suffix: compute.memory_bandwidth.<name> ("elementwise", "fp8_cast").
const char* memory_kernel_name(MemKernel k);
double transfer_memory_slowdown(double h200_bytes_per_s, double hbm_bytes_per_s);
inline constexpr GemmLaw kH200GemmBf16{6.93e-6, 793e12, 8.04e12};                // ANALYSIS.md section 1, law L4
inline constexpr GemmLaw kH200GemmFp8{7.06e-6, 1492e12, 4.64e12};                // e4m3 x e4m3, per-tensor scales
inline constexpr AttentionLaw kH200Attention{24.5e-6, 582e12, 61.4e-6, 449e12};  // section 7
inline constexpr double kH200KernelFixed = 4.1e-6;                               // memory-bound kernel t0 (kernels.hpp)
inline constexpr double kH200LossPerLogit = 12.8e-12;                            // section 2: 1.68 ms / (4096 x 32000)
// The loss's HBM bytes per logit, one read or write of each tensor per kernel (a row's second and
// third passes inside log-softmax and its backward stay in L2): the cast up, bf16 in, fp32 out
// (6); log-softmax, in and out (8); NLL's backward, a zeroed fp32 gradient (4); log-softmax's
// backward, the gradient and the output in, the gradient out (12); the cast's backward, fp32 in,
// bf16 out (6). 36 B in 12.8 ps is 2.8 TB/s on the H200, where a copy streams 4.3: the rows'
// reductions wait on their passes.
inline constexpr double kLossBytesPerLogit = 36;
// Megatron-Core's vocab-parallel cross entropy (tensor_parallel/cross_entropy.py) runs one kernel per
// step, in place on one fp32 copy: the cast up (6); the row max, read (4); less the max (8); exp
// (8); the row sum, read (4); the division (8); the backward's product with the incoming gradient
// (8); the cast's backward (6): 52 B, priced at the same rate per byte as the 36 above. Measured
// on one H100 (scenarios/validation/h100x1/measured/loss_memory.jsonl): 4.4-6.8 ps per logit more
// than PyTorch's 16.6, where 52 / 36 of it gives 7.4.
inline constexpr double kMegatronLossBytesPerLogit = 52;
// The GPU idles between an eager PyTorch step's kernels while the host issues them: (step time -
// kernel time) / kernels over the ten profiled steps of ANALYSIS.md sections 4 and 7 (TP 1-8,
// plain and FSDP2, foreach and fused AdamW): median 2.6 us (1.9-3.4, one run at -1.6 where the
// timed and profiled steps ran at different clocks). The microbenchmarks above were queued behind
// a spin kernel, so their times hold none of it. A property of the host and framework, not of
// the GPU: kept on every GPU.
inline constexpr double kLaunchGap = 2.6e-6;

// The rates of `gpu` in `precision`, each the value in `params` when set, else the H200's through
// the transfer rule. Throws SpecError("training.precision", "<GPU> has no fp8 tensor cores
// (expected bf16 or fp16)") for a precision the GPU cannot run (no fp8 peak; no bf16 on V100).
// `gemm_efficiency` > 0 (training.compute_efficiency) sets the GEMM rate to that fraction of peak.
GpuRates make_gpu_rates(const hw::GpuSpec& gpu, Precision precision, const std::map<std::string, double>& params,
                        double gemm_efficiency = 0);

// The dense peak of `gpu` in `precision` (0 when it has none).
double peak_flops(const hw::GpuSpec& gpu, Precision precision);

}  // namespace models::compute
