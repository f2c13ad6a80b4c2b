// sim::Time: integer picoseconds, checked arithmetic, rounding at the edges.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

#include "sim/time.hpp"

using namespace sim::literals;
using sim::Overflow;
using sim::Time;

TEST_CASE("time: units and literals are exact picoseconds", "[sim]") {
  // 1 ns = 1e3 ps, 1 us = 1e6 ps, 1 ms = 1e9 ps, 1 s = 1e12 ps
  CHECK((7_ps).ps() == 7);
  CHECK((3_ns).ps() == 3'000);
  CHECK((2_us).ps() == 2'000'000);
  CHECK((5_ms).ps() == 5'000'000'000);
  CHECK((4_s).ps() == 4'000'000'000'000);
  // Floating literals round to the nearest picosecond: 1.5 us = 1,500,000 ps; 0.25 ms = 2.5e8 ps
  CHECK((1.5_us).ps() == 1'500'000);
  CHECK((0.25_ms).ps() == 250'000'000);
  CHECK((2.5_ns).ps() == 2'500);
  CHECK((0.001_s).ps() == 1'000'000'000);
  // Edge conversions: 1 s = 1e12 ps both ways; us() is ps * 1e-6.
  CHECK(Time::from_seconds(1.0) == 1_s);
  CHECK((1_s).seconds() == 1.0);
  CHECK((3_us).us() == 3.0);
  CHECK(Time::from_ns(1.0) == 1_ns);
  CHECK(Time::from_us(1.0) == 1_us);
  CHECK(Time::from_ms(1.0) == 1_ms);
  static_assert((1_us).ps() == 1'000'000, "literals are usable in constant expressions");
}

TEST_CASE("time: from_seconds rounds to the nearest picosecond", "[sim]") {
  // 1.4 ps -> 1 ps; 1.6 ps -> 2 ps; 2.5 ps -> 3 ps (round half away from zero, std::round)
  CHECK(Time::from_seconds(1.4e-12).ps() == 1);
  CHECK(Time::from_seconds(1.6e-12).ps() == 2);
  CHECK(Time::from_seconds(2.5e-12).ps() == 3);
  CHECK(Time::from_seconds(-1.6e-12).ps() == -2);
  // 0.1 s is not representable in binary, but 0.1 * 1e12 rounds to exactly 1e11 ps
  CHECK(Time::from_seconds(0.1).ps() == 100'000'000'000);
}

TEST_CASE("time: arithmetic and ordering", "[sim]") {
  // 1 us + 500 ns = 1500 ns; 1 us - 500 ns = 500 ns; 3 * 2 ns = 6 ns
  CHECK(1_us + 500_ns == 1500_ns);
  CHECK(1_us - 500_ns == 500_ns);
  CHECK(2_ns * 3 == 6_ns);
  Time t = 1_ns;
  t += 1_ns;
  CHECK(t == 2_ns);
  t -= 3_ns;
  CHECK(t.ps() == -1000);
  CHECK(1_ns < 1_us);
  CHECK(Time::zero() == Time{});
  CHECK(Time::max().ps() == std::numeric_limits<int64_t>::max());
}

TEST_CASE("time: overflow throws sim::Overflow and never wraps", "[sim]") {
  // int64 picoseconds hold 9.22e18 ps = 106.75 days; anything past throws
  CHECK_THROWS_AS(Time::max() + 1_ps, Overflow);
  CHECK_THROWS_AS(Time::from_ps(std::numeric_limits<int64_t>::min()) - 1_ps, Overflow);
  // a - b with b = INT64_MIN must not negate b (that alone overflows)
  CHECK_THROWS_AS(Time::zero() - Time::from_ps(std::numeric_limits<int64_t>::min()), Overflow);
  CHECK_THROWS_AS(Time::max() * 2, Overflow);
  CHECK_THROWS_AS(1_s * 10'000'000, Overflow);         // 1e19 ps > 9.22e18 ps
  CHECK_THROWS_AS(Time::from_seconds(1e7), Overflow);  // 1e19 ps
  CHECK_THROWS_AS(Time::from_seconds(-1e7), Overflow);
  CHECK_THROWS_AS(Time::from_seconds(std::nan("")), Overflow);
  CHECK_THROWS_AS(Time::from_seconds(std::numeric_limits<double>::infinity()), Overflow);
  // Integer literals are checked as well (at run time here; a constant expression fails to compile).
  volatile unsigned long long big = 10'000'000;  // seconds: 1e19 ps
  CHECK_THROWS_AS(sim::detail::literal(big, 1'000'000'000'000), Overflow);
  CHECK_THROWS_AS(sim::detail::literal(~0ULL, 1), Overflow);
  // Just inside the range: 9.2e6 s = 9.2e18 ps < 9.22e18 ps
  CHECK(sim::detail::literal(9'200'000, 1'000'000'000'000).ps() == 9'200'000'000'000'000'000);
  // Checked integer helpers used for byte counts
  CHECK_THROWS_AS(sim::checked_add(std::numeric_limits<int64_t>::max(), 1), Overflow);
  CHECK_THROWS_AS(sim::checked_mul(int64_t{1} << 40, int64_t{1} << 40), Overflow);
  CHECK(sim::checked_mul(int64_t{1} << 20, int64_t{1} << 20) == int64_t{1} << 40);
}

TEST_CASE("time: transfer_time rounds up but not for floating-point noise", "[sim]") {
  // T = bytes / bandwidth: 1e9 B at 1e9 B/s = 1 s exactly (1e12 ps), not 1e12 + 1
  CHECK(sim::transfer_time(1e9, 1e9) == 1_s);
  // 3 B at 3e9 B/s = 1 ns; 1 B at 3 B/s = 333333333333.33 ps -> rounded up to ...334
  CHECK(sim::transfer_time(3, 3e9) == 1_ns);
  CHECK(sim::transfer_time(1, 3).ps() == 333'333'333'334);
  // 1 B at 1.5 TB/s = 0.667 ps -> 1 ps (a transfer never ends early)
  CHECK(sim::transfer_time(1, 1.5e12).ps() == 1);
  // nothing to move takes no time
  CHECK(sim::transfer_time(0, 1e9) == Time::zero());
  // 1e18 B at 1 B/s = 1e30 ps: overflow, and a zero rate never finishes
  CHECK_THROWS_AS(sim::transfer_time(1e18, 1), Overflow);
  CHECK_THROWS_AS(sim::transfer_time(1, 0), Overflow);
}
