// AdamW by implementation (bytes and sources in optimizer.hpp).
#include "models/compute/optimizer.hpp"

namespace models::compute {

std::optional<OptimizerImpl> parse_optimizer_impl(std::string_view text) {
  if (text == "foreach") return OptimizerImpl::Foreach;
  if (text == "fused") return OptimizerImpl::Fused;
  if (text == "for_loop") return OptimizerImpl::ForLoop;
  return std::nullopt;
}

const char* optimizer_impl_name(OptimizerImpl impl) {
  switch (impl) {
    case OptimizerImpl::Foreach: return "foreach";
    case OptimizerImpl::Fused: return "fused";
    case OptimizerImpl::ForLoop: return "for_loop";
  }
  return "?";
}

double adamw_bytes_per_param(OptimizerImpl impl, int state_bytes) {
  constexpr double kFusedPasses = 7;  // read p, g, m, v; write p, m, v
  // 8 kernels' reads + writes: mul_ p 2, lerp_ m 3, mul_ v 2, addcmul_ v 3, sqrt 2, div_ 2, add_ 2, addcdiv_ p 4
  constexpr double kUnfusedPasses = 20;
  return (impl == OptimizerImpl::Fused ? kFusedPasses : kUnfusedPasses) * state_bytes;
}

double adamw_seconds(const OptimizerRates& r, OptimizerImpl impl, double params, int state_bytes) {
  return params * adamw_bytes_per_param(impl, state_bytes) / r.bandwidth(impl, state_bytes);
}

}  // namespace models::compute
