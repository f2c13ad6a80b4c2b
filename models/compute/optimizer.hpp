#pragma once
// models::compute: AdamW on the GPU, by implementation, as bytes per parameter at a measured
// bandwidth (scenarios/validation/h200x1/ANALYSIS.md section 3: torch.optim.AdamW on 243 M to
// 2.2 G parameters cut like the decoder's tensors; the time per parameter is the same within 1.2 %):
//   fused     one kernel reads p, g, m, v and writes p, m, v: 7 x state bytes (28 B fp32, 14 B
//             16-bit); torch's fused=True, Apex / Transformer Engine / DeepSpeed FusedAdam alike
//             (one multi-tensor kernel with the same traffic)
//   foreach   PyTorch's default on CUDA (torch/optim/adamw.py: "we default to foreach and pass
//             False to use_fused ... to give the fused impl bake-in time"): 8 multi-tensor
//             kernels (mul, lerp, mul, addcmul, sqrt, div, add, addcdiv), 20 tensor passes
//   for_loop  the same 8 ops per tensor (foreach=False): 20 passes, fewer launches per tensor
// Measured on one H200 (ps per parameter; bandwidth at the bytes above):
//   fp32   fused 8.06 (3.47 TB/s)  foreach 21.79 (3.67 TB/s)  for_loop 19.11 (4.19 TB/s)
//   bf16   fused 5.14 (2.72 TB/s)  foreach 13.02 (3.07 TB/s)  for_loop  9.83 (4.07 TB/s)
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace models::compute {

enum class OptimizerImpl : uint8_t { Foreach, Fused, ForLoop };
inline constexpr int kOptimizerImpls = 3;

// "foreach", "fused", "for_loop"; nullopt for anything else.
std::optional<OptimizerImpl> parse_optimizer_impl(std::string_view text);
const char* optimizer_impl_name(OptimizerImpl impl);

// Bytes one AdamW step moves per parameter with states of `state_bytes` (4 or 2).
double adamw_bytes_per_param(OptimizerImpl impl, int state_bytes);

struct OptimizerRates {
  // [implementation][0: fp32 states, 1: 16-bit states], bytes/s
  std::array<std::array<double, 2>, kOptimizerImpls> bytes_per_s = {};
  double bandwidth(OptimizerImpl impl, int state_bytes) const {
    return bytes_per_s[size_t(impl)][state_bytes >= 4 ? 0 : 1];
  }
};

// params x adamw_bytes_per_param / bandwidth
double adamw_seconds(const OptimizerRates& r, OptimizerImpl impl, double params, int state_bytes);

}  // namespace models::compute
