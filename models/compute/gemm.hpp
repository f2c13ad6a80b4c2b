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
  double bwd() const { return dgrad + wgrad; }
};
LinearSeconds linear_seconds(const GemmLaw& law, int64_t tokens, int64_t in, int64_t out);

}  // namespace models::compute
