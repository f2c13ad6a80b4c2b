// The GEMM law (equation and source in gemm.hpp).
#include "models/compute/gemm.hpp"

#include <algorithm>

namespace models::compute {

double gemm_seconds(const GemmLaw& law, int64_t m, int64_t n, int64_t k) {
  const double mn = double(m) * double(n);
  return law.fixed_s + 2.0 * mn * double(k) / law.flops_per_s + 2.0 * mn / law.output_bytes_per_s;
}

LinearSeconds linear_seconds(const GemmLaw& law, int64_t tokens, int64_t in, int64_t out, int align) {
  if (in % align == 0 && out % align == 0)
    return {gemm_seconds(law, tokens, out, in), gemm_seconds(law, tokens, in, out), gemm_seconds(law, out, in, tokens)};
  const bool odd = in % 2 != 0 || out % 2 != 0;
  const MisalignedFractions f = odd ? kAlign1Fractions : kAlign2Fractions;
  // The fallback kernels' measured rates include their epilogue: no separate output term.
  const double flops = 2.0 * double(tokens) * double(in) * double(out);
  return {law.fixed_s + flops / (f.fwd * law.flops_per_s), law.fixed_s + flops / (f.dgrad * law.flops_per_s),
          law.fixed_s + flops / (f.wgrad * law.flops_per_s), /*full_power=*/!odd};
}

double grouped_gemm_seconds(const GemmLaw& law, const GroupedGemmLaw& grouped, int groups, int64_t m, int64_t n,
                            int64_t k) {
  const double M = double(m), N = double(n), K = double(k);
  const double tensor = 2.0 * M * N * K / law.flops_per_s + 2.0 * M * N / law.output_bytes_per_s;
  // No streaming rate (a law built by hand, as tests do): the tensor time alone.
  const double memory = grouped.bytes_per_s > 0 ? 2.0 * (M * K + K * N + M * N) / grouped.bytes_per_s : 0.0;
  return grouped.fixed_s + groups * (grouped.per_group_s + std::max(tensor, memory));
}

LinearSeconds grouped_linear_seconds(const GemmLaw& law, const GroupedGemmLaw& grouped, int groups, int64_t tokens,
                                     int64_t in, int64_t out) {
  return {grouped_gemm_seconds(law, grouped, groups, tokens, out, in),
          grouped_gemm_seconds(law, grouped, groups, tokens, in, out),
          grouped_gemm_seconds(law, grouped, groups, out, in, tokens)};
}

}  // namespace models::compute
