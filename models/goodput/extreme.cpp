// Order statistics of the normal distribution (extreme.hpp).
#include "models/goodput/extreme.hpp"

#include <cmath>

namespace models::goodput {

namespace {
constexpr double kSqrt2 = 1.4142135623730951;
constexpr double kInvSqrt2Pi = 0.3989422804014327;
}  // namespace

double normal_pdf(double x) { return kInvSqrt2Pi * std::exp(-0.5 * x * x); }

double normal_cdf(double x) { return 0.5 * std::erfc(-x / kSqrt2); }

double normal_quantile(double p) {
  if (!(p > 0)) return -INFINITY;
  if (!(p < 1)) return INFINITY;
  // P. J. Acklam, "An algorithm for computing the inverse normal cumulative distribution function"
  // (2003): rational approximations in the central region and the tails, relative error 1.15e-9.
  static constexpr double a[] = {-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
                                 1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00};
  static constexpr double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                                 6.680131188771972e+01,  -1.328068155288572e+01};
  static constexpr double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                                 -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00};
  static constexpr double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                                 3.754408661907416e+00};
  constexpr double low = 0.02425, high = 1 - low;
  double x;
  if (p < low) {
    const double q = std::sqrt(-2 * std::log(p));
    x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  } else if (p <= high) {
    const double q = p - 0.5, r = q * q;
    x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
        (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
  } else {
    const double q = std::sqrt(-2 * std::log1p(-p));
    x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  }
  // One Halley step on Phi(x) - p (Acklam's refinement).
  const double e = normal_cdf(x) - p;
  const double u = e * std::sqrt(2 * M_PI) * std::exp(0.5 * x * x);
  return x - u / (1 + 0.5 * x * u);
}

double expected_max_normal(double n) {
  if (n <= 1) return 0;
  constexpr double lo = -12, hi = 12;
  constexpr int panels = 2000;  // even
  const double h = (hi - lo) / panels;
  auto f = [n](double x) {
    const double F = normal_cdf(x);
    return F <= 0 ? 0.0 : x * n * normal_pdf(x) * std::exp((n - 1) * std::log(F));
  };
  double s = f(lo) + f(hi);
  for (int i = 1; i < panels; ++i) s += (i % 2 ? 4 : 2) * f(lo + i * h);
  return s * h / 3;
}

double max_quantile_normal(double q, double n) { return normal_quantile(std::pow(q, 1.0 / std::max(1.0, n))); }

}  // namespace models::goodput
