// A decoder block's work under Blackwell's block-scaled formats (models/workload/compute.cpp over
// compute/precision.hpp): the casts of each quantized tensor by its format's closed form, at the
// Fp8Cast rate, and the GEMMs at the format's law.
#include <catch2/catch.hpp>

#include "models/hw/gpu.hpp"
#include "models/workload/compute.hpp"

using namespace models::workload;
using models::compute::MemKernel;
using models::compute::Precision;

namespace {
models::model::ModelShape decoder() {
  models::ModelSpec s;
  s.preset = "h200x4-decoder";
  return models::model::resolve_model(s);
}
ComputeRates b200(Precision p) { return make_rates(models::hw::find_gpu("B200"), p, 300e9, 0, {}); }
}  // namespace

TEST_CASE("workload: mxfp8 and nvfp4 casts by their formats' bytes and kernels per tensor", "[workload]") {
  // Per quantized tensor: mxfp8 4.0625 B per element in 1 kernel, nvfp4 5.125 B in 2 (precision.hpp).
  // The MLP's forward casts fc1's input (T x h) and fc2's input (T x f / tp): two tensors.
  const models::model::ModelShape m = decoder();
  const double T = 4096, h = 4096, f = 14336, tp = 2;
  for (auto [p, bytes, kernels] : {std::tuple{Precision::Mxfp8, 4.0625, 1}, std::tuple{Precision::Nvfp4, 5.125, 2}}) {
    const ComputeRates r = b200(p);
    const double bw = r.gpu.memory.bandwidth(MemKernel::Fp8Cast), gap = r.gpu.launch_gap_s;
    const BlockKernels k = block_kernels(m, int64_t(T), int(tp), r);
    CHECK(k.fp8_mlp_fwd == Approx(bytes * (T * h + T * f / tp) / bw + kernels * 2 * gap));
    CHECK(k.fp8_attn_weights == Approx(bytes * (3 * h * h + h * h) / tp / bw + kernels * 2 * gap));
  }
  // Cheaper casts than fp8's current scaling (6 B, 3 kernels) on the same GPU.
  CHECK(block_kernels(m, 4096, 2, b200(Precision::Mxfp8)).fp8_mlp_fwd <
        block_kernels(m, 4096, 2, b200(Precision::Fp8)).fp8_mlp_fwd);
}

TEST_CASE("workload: nvfp4 GEMMs on B200 run at twice mxfp8's rate at large shapes", "[workload]") {
  // Same law (fixed cost, epilogue), peaks 9 vs 4.5 PF: the GEMM time of a large block halves
  // up to the fixed costs and epilogue.
  const models::model::ModelShape m = decoder();
  const BlockSeconds a = block_seconds(m, 16384, 1, b200(Precision::Mxfp8));
  const BlockSeconds b = block_seconds(m, 16384, 1, b200(Precision::Nvfp4));
  const double ga = a.attn_fwd.gemm + a.mlp_fwd.gemm, gb = b.attn_fwd.gemm + b.mlp_fwd.gemm;
  CHECK(ga / gb == Approx(2).epsilon(0.15));
  CHECK(ga / gb < 2);
}
