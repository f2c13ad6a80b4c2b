#pragma once
// models::compute::GemmLaw: the time of one matrix product C[m x n] = A[m x k] B[k x n] on one GPU,
//   t = t0 + 2mnk / R + 2mn / BWc
// a fixed cost (launch and ramp, as back-to-back kernels see it), the FLOPs at the achieved tensor
// rate, and the 16-bit output written after the k loop (an epilogue not overlapped with it).
// This is law L4 of scenarios/validation/h200x1/ANALYSIS.md section 1: fitted on 2197 grid shapes
// (m, n, k in 256..16384) of one H200, it predicts the 183 model-layer shapes (decoder, GPT-3 175B,
// Llama-3-70B, TP 1-8, three layouts) with a median |error| of 5.5 % (max 15 %); one rate for all
// FLOPs (t = F / R) misses them by 81 % in the median, and a wave-quantization law fits worse.
#include <cstdint>

namespace models::compute {

struct GemmLaw {
  double fixed_s = 0;             // t0
  double flops_per_s = 0;         // R
  double output_bytes_per_s = 0;  // BWc (C = 2 bytes per output element)
};

double gemm_seconds(const GemmLaw& law, int64_t m, int64_t n, int64_t k);

// The three products of a linear layer y = x W^T (x: tokens x in, W: out x in), as nn.Linear and
// Megatron's linear layers run them: forward (tokens, out, in), input gradient "dgrad"
// (tokens, in, out) and weight gradient "wgrad" (out, in, tokens).
struct LinearSeconds {
  double fwd = 0, dgrad = 0, wgrad = 0;
  // false: the products run in align1 fallback kernels (below), which draw like memory-bound work
  // (450 W of the H200's 700 where aligned and align2 GEMMs sit at the limit:
  // measured/gemm_misaligned_power.jsonl), so the power limit neither stretches nor counts them.
  bool full_power = true;
  double bwd() const { return dgrad + wgrad; }
};

// A layer whose `in` or `out` features are not a multiple of 16 bytes of its inputs (8 elements of
// bf16): every one of its products has a matrix with such a leading dimension, and cuBLAS's Hopper
// kernels (TMA, wgmma) need 16-byte leading dimensions, so it falls back to older kernels:
// cutlass_80 "align2" when the widths are even, cutlass_75 "align1" when one is odd (GPT-2's and
// GPT-3's vocabulary, 50257, as the LM head's width in PyTorch, which does not pad it). Those run at
// a fixed fraction of the law's rate, t = t0 + 2mnk / (f R), measured on one H200
// (bench/device/compute/gemm_misaligned.py, scenarios/validation/h200x1/measured/gemm_misaligned.jsonl:
// the median TFLOP/s of 12-14 shapes per product, tokens 2048 and 8192, in 768-4096, out 32003 and
// 50257-50260, over R = 793; the spread is -16 .. +38 % for align1's forward, within 13 % else) and
// carried to other GPUs with R (not measured on another generation).
struct MisalignedFractions {
  double fwd = 1, dgrad = 1, wgrad = 1;
};
inline constexpr MisalignedFractions kAlign1Fractions{94.5 / 793, 137.6 / 793, 146.7 / 793};
inline constexpr MisalignedFractions kAlign2Fractions{267.1 / 793, 242.0 / 793, 262.6 / 793};
// `align` the elements in 16 bytes of the GEMM's inputs (8 for 16-bit, 16 for 8-bit).
LinearSeconds linear_seconds(const GemmLaw& law, int64_t tokens, int64_t in, int64_t out, int align = 8);

// A grouped GEMM: one kernel over the products of L groups of one shape (an MoE layer's local
// experts: torch._grouped_mm, Megatron-Core's GroupedGEMM), each group at the larger of its GEMM
// law time without t0 and the time its inputs and output take through HBM, plus a fixed cost per
// call and one per group:
//   t = t_g + L (t_1 + max(2mnk / R + 2mn / BWc, 2 (mk + kn + mn) / BW))
// The HBM term is what L separate products of the GEMM law miss: an expert given few tokens reads
// its whole weight for little work (Llama 4's 5120 x 16384 gate+up at 32 tokens per expert: 168 MB
// for 5.4 GFLOP, 39 us of HBM against 7 us of tensor cores), and the one launch is what they
// overcharge (L t0: Qwen3-30B-A3B's 128 experts of 2048 x 1536 pay 887 us of t0 where the grouped
// kernel takes 273 us in all). BW is the GPU's streaming rate (the Elementwise kernels', 4.26 TB/s
// on one H200). t_g 18 us and t_1 0.4 us were fitted on one H200's grouped products of six models'
// expert shapes (bench/device/compute/moe_grouped_gemm.py, scenarios/validation/h200x1/measured/
// moe_grouped_gemm.jsonl: L 2-128, 32-2048 tokens per expert): median |error| 9.1 % over 384
// products, where L products of the GEMM law miss by 24.7 % (0.17 to 6.7 times the measured time).
// Fitted on three of the models by the same grid (t_g 0-40 us, t_1 0-2 us), it predicts the other
// three within 8.5-15.2 % (median |error|; 10.6 % over the 20 ways to choose the three). Left:
// 32 tokens per expert run 17-26 % slower than the law (median), the weight gradient at 32-128
// tokens 25 % (its weight-sized output written slower than the streaming rate), and a few
// experts of 128 tokens up to 60 % faster (8 of Qwen3-30B-A3B's: less than t_g in all). Carried
// to other GPUs unchanged
// (t_g, t_1) and with their R, BWc and streaming rate; 16-bit operands (an fp8 grouped GEMM is not
// measured).
struct GroupedGemmLaw {
  double fixed_s = 0;      // t_g
  double per_group_s = 0;  // t_1
  double bytes_per_s = 0;  // BW
};
inline constexpr double kGroupedGemmFixed = 18e-6, kGroupedGemmPerGroup = 0.4e-6;
double grouped_gemm_seconds(const GemmLaw& law, const GroupedGemmLaw& grouped, int groups, int64_t m, int64_t n,
                            int64_t k);
// The three products of L linear layers of one shape over `tokens` tokens each, as grouped GEMMs.
LinearSeconds grouped_linear_seconds(const GemmLaw& law, const GroupedGemmLaw& grouped, int groups, int64_t tokens,
                                     int64_t in, int64_t out);

}  // namespace models::compute
