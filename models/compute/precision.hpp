#pragma once
// models::compute::Precision: the number format of a training step's matrix products (the
// scenario's training.precision, or training.dtype where precision is not given).
//   bf16, fp16  16-bit tensor cores; activations, gradients and collectives in the same 16 bits.
//   fp8         fp8 (e4m3) GEMMs on fp8 tensor cores with per-tensor current scaling, as Transformer
//               Engine runs them; activations, gradients, attention and collectives stay bf16 (TE's
//               default recipe keeps attention and communication in 16 bits), so activation_bytes is 2.
//   mxfp8       Blackwell's block-scaled fp8 (OCP MX: e4m3 values, one e8m0 scale per 32 elements),
//               TE's MXFP8BlockScaling recipe; the tensor cores run it at the fp8 peak. Blackwell only.
//   nvfp4       Blackwell's block-scaled fp4 (e2m1 values, one e4m3 scale per 16 elements and a
//               per-tensor fp32 scale), TE's NVFP4BlockScaling recipe, at the fp4 peak. Blackwell only.
//   fp32        plain fp32 (torch's default matmul precision "highest"): CUDA-core FP32 rate.
// Every quantized format (fp8, mxfp8, nvfp4) keeps activations and communication in bf16 and adds
// the casts of quantized_cast() per quantized tensor.
#include <cstdint>
#include <optional>
#include <string_view>

namespace models::compute {

enum class Precision : uint8_t { Fp32, Bf16, Fp16, Fp8, Mxfp8, Nvfp4 };

// "fp32", "bf16", "fp16", "fp8", "mxfp8", "nvfp4"; nullopt for anything else.
std::optional<Precision> parse_precision(std::string_view text);
const char* precision_name(Precision p);
// Bytes of one activation, activation gradient or communicated element: 4 for fp32, else 2.
int activation_bytes(Precision p);
// GEMM inputs quantized from bf16 (fp8, mxfp8, nvfp4): the casts below and 16-bit products elsewhere.
bool quantized(Precision p);
// Elements of a GEMM input in 16 bytes (fp32 4, 16-bit 8, fp8 16, fp4 32): the leading-dimension
// multiple cuBLAS's fastest kernels need (gemm.hpp linear_seconds).
int gemm_alignment_elements(Precision p);

// What quantizing one bf16 tensor costs, per element and per tensor (TE's recipes; a tensor is cast
// once for the forward GEMM and once, transposed, for the backward's):
//   fp8 (current scaling): amax reads 2 B; cast + transpose reads 2 B, writes 1 + 1 B: 6 B, 3 kernels
//     (amax, scale, cast + transpose).
//   mxfp8: per-block scales computed in the cast itself; row-wise and column-wise copies each with
//     their own 32-element blocks: reads 2 B, writes 2 x (1 + 1/32) B = 4.0625 B, 1 kernel.
//   nvfp4: the per-tensor scale needs the tensor's amax first: amax reads 2 B; cast reads 2 B and
//     writes 2 x (0.5 + 1/16) B: 5.125 B, 2 kernels. (The recipe's random Hadamard transform of
//     the weight-gradient inputs and its stochastic rounding are not counted.)
// Source: NVIDIA Transformer Engine documentation, "Using FP8 and FP4 with Transformer Engine"
// (recipes Float8CurrentScaling, MXFP8BlockScaling, NVFP4BlockScaling) and the OCP Microscaling
// Formats (MX) v1.0 specification (32-element blocks, e8m0 scales).
struct QuantizedCast {
  double bytes_per_element = 0;
  int kernels_per_tensor = 0;
};
QuantizedCast quantized_cast(Precision p);  // {0, 0} for an unquantized format

}  // namespace models::compute
