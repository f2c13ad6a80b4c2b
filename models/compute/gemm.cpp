// The GEMM law (equation and source in gemm.hpp).
#include "models/compute/gemm.hpp"

namespace models::compute {

double gemm_seconds(const GemmLaw& law, int64_t m, int64_t n, int64_t k) {
  const double mn = double(m) * double(n);
  return law.fixed_s + 2.0 * mn * double(k) / law.flops_per_s + 2.0 * mn / law.output_bytes_per_s;
}

LinearSeconds linear_seconds(const GemmLaw& law, int64_t tokens, int64_t in, int64_t out) {
  return {gemm_seconds(law, tokens, out, in), gemm_seconds(law, tokens, in, out), gemm_seconds(law, out, in, tokens)};
}

}  // namespace models::compute
