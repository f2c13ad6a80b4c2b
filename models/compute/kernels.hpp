#pragma once
// models::compute: the work of a training step that is not a GEMM, by kind, each with the law and
// the rate measured on one H200 (scenarios/validation/h200x1/ANALYSIS.md sections 2 and 7).
//
// Memory-bound kernels: t = launches x t0 + bytes / BW(kind), where bytes are the fewest bytes the
// op must move (each input read once, each output written once) and BW(kind) is its rate at 8x
// the decoder's size (the asymptote). t0 is the per-kernel fixed cost as back-to-back kernels see
// it: the median over the eight ops below of (time at the decoder's size - bytes / BW) per kernel,
// 4.1 us. Kinds (rates on one H200, ANALYSIS.md section 2, "large" rows):
//   Elementwise  copy, residual add, fp32 -> 16-bit cast     4.14 / 4.33 / 4.30 TB/s -> 4.26
//   CastUp       16-bit -> fp32 cast                         2.10 TB/s (half: the wider writes)
//   NormFwd      RMSNorm forward (1 kernel), 4 B/element       3.40 TB/s
//   NormBwd      RMSNorm backward (2 kernels), 6 B/element     1.84 TB/s
//   SwigluFwd    silu(g) * u (2 kernels), 6 B/element          2.53 TB/s
//   SwigluBwd    its backward (3 kernels), 10 B/element        2.43 TB/s
//   StridedCopy  the backward of a packed q/k/v split (stack of dq, dk, dv and the copy back to
//                the projection's layout): 1.16 TB/s, ANALYSIS.md section 7 (32 and 16 heads)
//   Fp8Cast      fp8 quantization with current (per-tensor) scaling, as Transformer Engine runs it:
//                an amax pass (read 2 B), a scale kernel, one fused cast + transpose (read 2 B,
//                write the fp8 tensor and its transpose, 1 + 1 B): 6 B per element, 3 launches.
//                Measured on one H100 inside fp8 steps (bench/device/steps/fp8_step.py, 112
//                quantizations per step, 26.6 GB in 11.92 ms: 2.23 TB/s at micro-batch 1, 2 and 4,
//                scenarios/validation/h100x1/measured/README.md); 2.87 TB/s on the H200 by the
//                transfer rule (gpu_rates.hpp) run backwards: a prediction, not an H200 measurement.
// Attention (causal scaled-dot-product, cuDNN's fused kernels, PyTorch's default on H200):
//   t_fwd = t0f + F / Rf,  t_bwd = t0b + 2.5 F / Rb,  F = 2 T s h / tp  (causal counted as half:
//   QK^T and PV are 4 T s h, half of the tiles are skipped; the backward is 2.5x the forward's
//   FLOPs, FlashAttention-2's count). Fitted on 32, 16 and 8 heads (TP 1, 2, 4) within 0.6 %:
//   t0f 24.5 us, Rf 582 TFLOP/s, t0b 61.4 us, Rb 449 TFLOP/s (ANALYSIS.md section 7); at 32 heads
//   that is 408 TFLOP/s over forward + backward (section 2).
// Loss: cross-entropy over fp32 logits, the 16-bit logits' cast, log-softmax, NLL and their
//   backward, 12.8 ps per logit (the decoder's loss_of, 4096 x 32000 logits in 1.68 ms), 36 B of HBM
//   per logit by its kernels (gpu_rates.hpp).
#include <array>
#include <cstddef>
#include <cstdint>

namespace models::compute {

enum class MemKernel : uint8_t { Elementwise, CastUp, NormFwd, NormBwd, SwigluFwd, SwigluBwd, StridedCopy, Fp8Cast };
inline constexpr int kMemKernels = 8;

struct MemoryRates {
  double fixed_s = 0;                                // t0 per kernel launch
  std::array<double, kMemKernels> bytes_per_s = {};  // indexed by MemKernel
  double loss_s_per_logit = 0;                       // fp32 cross-entropy, forward + backward
  double bandwidth(MemKernel k) const { return bytes_per_s[size_t(k)]; }
};

// launches x t0 + bytes / BW(kind)
double memory_seconds(const MemoryRates& r, MemKernel kind, double bytes, int launches = 1);

struct AttentionLaw {
  double fwd_fixed_s = 0, fwd_flops_per_s = 0;
  double bwd_fixed_s = 0, bwd_flops_per_s = 0;
};
// Forward FLOPs of causal attention for `tokens` queries of sequences of `seq` over hidden size
// `hidden` split over `tp` ranks (heads split): 2 tokens seq hidden / tp.
double attention_fwd_flops(int64_t tokens, int64_t seq, int64_t hidden, int tp);
double attention_fwd_seconds(const AttentionLaw& law, double fwd_flops);
double attention_bwd_seconds(const AttentionLaw& law, double fwd_flops);  // 2.5 x the forward's FLOPs

}  // namespace models::compute
