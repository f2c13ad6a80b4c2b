// Precision names, the activation bytes each implies and the casts of quantized formats (see
// precision.hpp).
#include "models/compute/precision.hpp"

namespace models::compute {

std::optional<Precision> parse_precision(std::string_view text) {
  if (text == "fp32") return Precision::Fp32;
  if (text == "bf16") return Precision::Bf16;
  if (text == "fp16") return Precision::Fp16;
  if (text == "fp8") return Precision::Fp8;
  if (text == "mxfp8") return Precision::Mxfp8;
  if (text == "nvfp4") return Precision::Nvfp4;
  return std::nullopt;
}

const char* precision_name(Precision p) {
  switch (p) {
    case Precision::Fp32: return "fp32";
    case Precision::Bf16: return "bf16";
    case Precision::Fp16: return "fp16";
    case Precision::Fp8: return "fp8";
    case Precision::Mxfp8: return "mxfp8";
    case Precision::Nvfp4: return "nvfp4";
  }
  return "?";
}

int activation_bytes(Precision p) { return p == Precision::Fp32 ? 4 : 2; }

bool quantized(Precision p) { return p == Precision::Fp8 || p == Precision::Mxfp8 || p == Precision::Nvfp4; }

int gemm_alignment_elements(Precision p) {
  switch (p) {
    case Precision::Fp32: return 4;
    case Precision::Fp8:
    case Precision::Mxfp8: return 16;
    case Precision::Nvfp4: return 32;
    default: return 8;
  }
}

QuantizedCast quantized_cast(Precision p) {
  switch (p) {
    case Precision::Fp8: return {6.0, 3};
    case Precision::Mxfp8: return {2.0 + 2 * (1.0 + 1.0 / 32), 1};
    case Precision::Nvfp4: return {2.0 + 2.0 + 2 * (0.5 + 1.0 / 16), 2};
    default: return {0, 0};
  }
}

}  // namespace models::compute
