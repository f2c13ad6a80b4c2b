#pragma once
// models::compute::Precision: the number format of a training step's matrix products (the
// scenario's training.precision, or training.dtype where precision is not given).
//   bf16, fp16  16-bit tensor cores; activations, gradients and collectives in the same 16 bits.
//   fp8         fp8 (e4m3) GEMMs on fp8 tensor cores, as Transformer Engine runs them; activations,
//               gradients, attention and collectives stay bf16 (TE's default recipe keeps
//               attention and communication in 16 bits), so activation_bytes is 2.
//   fp32        plain fp32 (torch's default matmul precision "highest"): CUDA-core FP32 rate.
#include <cstdint>
#include <optional>
#include <string_view>

namespace models::compute {

enum class Precision : uint8_t { Fp32, Bf16, Fp16, Fp8 };

// "fp32", "bf16", "fp16", "fp8"; nullopt for anything else.
std::optional<Precision> parse_precision(std::string_view text);
const char* precision_name(Precision p);
// Bytes of one activation, activation gradient or communicated element: 4 for fp32, else 2.
int activation_bytes(Precision p);

}  // namespace models::compute
