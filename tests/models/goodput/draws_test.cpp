// Order-free seeded draws (models/goodput/draws.hpp).
#include <catch2/catch.hpp>

#include <cmath>

#include "models/goodput/draws.hpp"

using namespace models::goodput;

TEST_CASE("draws: a pure function of (seed, stream, index)", "[goodput]") {
  CHECK(normal_draw(1, 0, 5) == normal_draw(1, 0, 5));
  CHECK(normal_draw(1, 0, 5) != normal_draw(2, 0, 5));
  CHECK(normal_draw(1, 0, 5) != normal_draw(1, 1, 5));
  CHECK(normal_draw(1, 0, 5) != normal_draw(1, 0, 6));
  // SplitMix64's published first output for state 0 (Vigna's reference splitmix64.c): 0xe220a8397b1dcdaf.
  CHECK(splitmix64(0) == 0xe220a8397b1dcdafULL);
}

TEST_CASE("draws: uniform in (0, 1), normals with mean 0 and variance 1", "[goodput]") {
  constexpr int n = 200000;
  double s = 0, s2 = 0, lo = 1, hi = 0;
  for (int i = 0; i < n; ++i) {
    const double u = uniform_draw(3, 0, i);
    lo = std::min(lo, u);
    hi = std::max(hi, u);
    const double z = normal_draw(3, 1, i);
    s += z;
    s2 += z * z;
  }
  CHECK(lo > 0);
  CHECK(hi < 1);
  // Standard errors: mean 1/sqrt(n) = 0.0022, variance sqrt(2/n) = 0.0032; 4 of each.
  CHECK(std::fabs(s / n) < 4 / std::sqrt(double(n)));
  CHECK(std::fabs(s2 / n - 1) < 4 * std::sqrt(2.0 / n));
}
