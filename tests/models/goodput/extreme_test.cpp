// The slowest of N (models/goodput/extreme.hpp): closed forms first, then the integral against
// them, the asymptotic law and a seeded Monte Carlo.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "models/goodput/draws.hpp"
#include "models/goodput/extreme.hpp"

using namespace models::goodput;

TEST_CASE("extreme: the normal quantile inverts the CDF", "[goodput]") {
  for (double x : {-8.0, -3.0, -1.0, -0.2, 0.0, 0.5, 1.96, 3.5, 7.0}) CHECK(normal_quantile(normal_cdf(x)) == Approx(x).margin(1e-9));
  CHECK(normal_quantile(0.975) == Approx(1.959963985).epsilon(1e-9));  // the 95 % two-sided z
}

TEST_CASE("extreme: E[max of n normals] against its closed forms and tables", "[goodput]") {
  // Exact: n = 2: 1/sqrt(pi); n = 3: 3 / (2 sqrt(pi)) (David and Nagaraja, Order Statistics, 3.2).
  CHECK(expected_max_normal(1) == 0);
  CHECK(expected_max_normal(2) == Approx(1 / std::sqrt(M_PI)).epsilon(1e-9));
  CHECK(expected_max_normal(3) == Approx(1.5 / std::sqrt(M_PI)).epsilon(1e-9));
  // Tables of expected normal order statistics (Harter 1961): n = 5, 10, 100.
  CHECK(expected_max_normal(5) == Approx(1.16296).epsilon(1e-5));
  CHECK(expected_max_normal(10) == Approx(1.53875).epsilon(1e-5));
  CHECK(expected_max_normal(100) == Approx(2.50759).epsilon(1e-5));
  // The extreme-value limit: a_n + gamma b_n with b_n = 1/sqrt(2 ln n),
  // a_n = sqrt(2 ln n) - (ln ln n + ln 4 pi) / (2 sqrt(2 ln n)); within 0.5 % at n = 1e6.
  const double n = 1e6, s = std::sqrt(2 * std::log(n));
  const double gumbel = s - (std::log(std::log(n)) + std::log(4 * M_PI)) / (2 * s) + 0.5772156649 / s;
  CHECK(expected_max_normal(n) == Approx(gumbel).epsilon(5e-3));
  // The leading term sqrt(2 ln n) is an upper bound that the mean approaches slowly.
  for (double k : {64.0, 2048.0, 16384.0}) CHECK(expected_max_normal(k) < std::sqrt(2 * std::log(k)));
}

TEST_CASE("extreme: quantiles of the maximum are exact: P(M_n <= x_q) = q", "[goodput]") {
  for (double n : {1.0, 64.0, 16384.0})
    for (double q : {0.5, 0.99}) CHECK(std::pow(normal_cdf(max_quantile_normal(q, n)), n) == Approx(q).epsilon(1e-9));
  CHECK(max_quantile_normal(0.5, 1) == Approx(0).margin(1e-12));
}

TEST_CASE("extreme: seeded draws' maxima average to the integral", "[goodput]") {
  // 4,000 maxima of 64 draws each: the mean is within 3 standard errors of E[M_64].
  constexpr int trials = 4000, n = 64;
  double sum = 0, sum2 = 0;
  for (int t = 0; t < trials; ++t) {
    double m = -INFINITY;
    for (int r = 0; r < n; ++r) m = std::max(m, normal_draw(7, t, r));
    sum += m;
    sum2 += m * m;
  }
  const double mean = sum / trials, sd = std::sqrt(sum2 / trials - mean * mean);
  CHECK(std::fabs(mean - expected_max_normal(n)) < 3 * sd / std::sqrt(double(trials)));
}
