// Precision names and the activation bytes each implies (see precision.hpp).
#include "models/compute/precision.hpp"

namespace models::compute {

std::optional<Precision> parse_precision(std::string_view text) {
  if (text == "fp32") return Precision::Fp32;
  if (text == "bf16") return Precision::Bf16;
  if (text == "fp16") return Precision::Fp16;
  if (text == "fp8") return Precision::Fp8;
  return std::nullopt;
}

const char* precision_name(Precision p) {
  switch (p) {
    case Precision::Fp32: return "fp32";
    case Precision::Bf16: return "bf16";
    case Precision::Fp16: return "fp16";
    case Precision::Fp8: return "fp8";
  }
  return "?";
}

int activation_bytes(Precision p) { return p == Precision::Fp32 ? 4 : 2; }

}  // namespace models::compute
