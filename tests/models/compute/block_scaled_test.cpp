// Blackwell's block-scaled GEMM formats (compute/precision.hpp, gpu_rates.cpp): names, the peaks
// they run at, the transfer of the H200's fp8 law, and the casts each quantized tensor costs.
#include <catch2/catch.hpp>

#include <string>

#include "models/compute/gpu_rates.hpp"
#include "models/error.hpp"

using namespace models::compute;
using models::hw::find_gpu;

TEST_CASE("compute: mxfp8 and nvfp4 parse, keep bf16 activations and are quantized formats", "[models]") {
  CHECK(parse_precision("mxfp8") == Precision::Mxfp8);
  CHECK(parse_precision("nvfp4") == Precision::Nvfp4);
  CHECK(std::string(precision_name(Precision::Nvfp4)) == "nvfp4");
  CHECK(activation_bytes(Precision::Mxfp8) == 2);
  CHECK(activation_bytes(Precision::Nvfp4) == 2);
  CHECK(quantized(Precision::Fp8));
  CHECK(quantized(Precision::Mxfp8));
  CHECK(quantized(Precision::Nvfp4));
  CHECK_FALSE(quantized(Precision::Bf16));
}

TEST_CASE("compute: block-scaled GEMMs run at the fp8 / fp4 peak by the H200's fp8 fraction", "[models]") {
  // R = peak x 1492 / 1979 (the H200's fp8 law's fraction of its fp8 peak): B200 mxfp8 4.5 PF x
  // 0.7539 = 3.393 PF; GB200 nvfp4 10 PF x 0.7539 = 7.539 PF; B300 nvfp4 13.5 PF x 0.7539.
  const double fraction = kH200GemmFp8.flops_per_s / kH200PeakFp8;
  CHECK(make_gpu_rates(find_gpu("B200"), Precision::Mxfp8, {}).gemm.flops_per_s == Approx(4.5e15 * fraction));
  CHECK(make_gpu_rates(find_gpu("GB200"), Precision::Nvfp4, {}).gemm.flops_per_s == Approx(10e15 * fraction));
  CHECK(make_gpu_rates(find_gpu("B300"), Precision::Nvfp4, {}).gemm.flops_per_s == Approx(13.5e15 * fraction));
  // The fp8 law's fixed cost; the 16-bit products (output layer) at the bf16 law.
  const GpuRates r = make_gpu_rates(find_gpu("GB200"), Precision::Nvfp4, {});
  CHECK(r.gemm.fixed_s == Approx(kH200GemmFp8.fixed_s));
  CHECK(r.gemm16.flops_per_s == Approx(2.5e15 * kH200GemmBf16.flops_per_s / kH200PeakBf16));
  // A measured rate overrides the transfer.
  CHECK(make_gpu_rates(find_gpu("GB200"), Precision::Nvfp4, {{"compute.gemm_rate.nvfp4", 7.6e15}}).gemm.flops_per_s ==
        Approx(7.6e15));
}

TEST_CASE("compute: Hopper has no block-scaled tensor cores", "[models]") {
  CHECK(peak_flops(find_gpu("H100"), Precision::Mxfp8) == 0);
  CHECK(peak_flops(find_gpu("H200"), Precision::Nvfp4) == 0);
  try {
    make_gpu_rates(find_gpu("H100"), Precision::Mxfp8, {});
    FAIL("expected a SpecError");
  } catch (const models::SpecError& e) {
    CHECK(e.key() == "training.precision");
    CHECK(std::string(e.what()).find("H100 has no mxfp8 tensor cores (expected bf16 or fp16 or fp8)") !=
          std::string::npos);
  }
}

TEST_CASE("compute: the casts of a quantized tensor per format", "[models]") {
  // fp8 current scaling: amax 2 + cast + transpose (2 in, 1 + 1 out) = 6 B, 3 kernels.
  CHECK(quantized_cast(Precision::Fp8).bytes_per_element == Approx(6));
  CHECK(quantized_cast(Precision::Fp8).kernels_per_tensor == 3);
  // mxfp8: 2 in, two 1-byte copies each with a 1-byte scale per 32: 2 + 2 x (1 + 1/32) = 4.0625 B, 1 kernel.
  CHECK(quantized_cast(Precision::Mxfp8).bytes_per_element == Approx(4.0625));
  CHECK(quantized_cast(Precision::Mxfp8).kernels_per_tensor == 1);
  // nvfp4: amax 2 + cast 2 in, two half-byte copies each with a 1-byte scale per 16: 4 + 2 x (0.5 +
  // 1/16) = 5.125 B, 2 kernels.
  CHECK(quantized_cast(Precision::Nvfp4).bytes_per_element == Approx(5.125));
  CHECK(quantized_cast(Precision::Nvfp4).kernels_per_tensor == 2);
  CHECK(quantized_cast(Precision::Bf16).bytes_per_element == 0);
}
