// Memory-bound kernels, attention and the loss (laws and sources in kernels.hpp).
#include "models/compute/kernels.hpp"

namespace models::compute {

double memory_seconds(const MemoryRates& r, MemKernel kind, double bytes, int launches) {
  return launches * r.fixed_s + bytes / r.bandwidth(kind);
}

double attention_fwd_flops(int64_t tokens, int64_t seq, int64_t hidden, int tp) {
  return 2.0 * double(tokens) * double(seq) * double(hidden) / tp;
}

double attention_fwd_seconds(const AttentionLaw& law, double fwd_flops) {
  return law.fwd_fixed_s + fwd_flops / law.fwd_flops_per_s;
}

double attention_bwd_seconds(const AttentionLaw& law, double fwd_flops) {
  return law.bwd_fixed_s + 2.5 * fwd_flops / law.bwd_flops_per_s;
}

}  // namespace models::compute
