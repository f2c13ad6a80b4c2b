// How run's goodput lines write durations and dollars (scenarios/cli/output/goodput_format.hpp).
#include <catch2/catch.hpp>

#include <limits>

#include "scenarios/cli/output/goodput_format.hpp"

using scenarios::goodput_duration;

TEST_CASE("goodput: a duration of a day or more is days and hours, to the nearest hour", "[scenarios]") {
  constexpr double kHour = 3600;
  CHECK(goodput_duration(48.85 * kHour) == "2 d 01 h");  // 48 h 51 min: rounded, not cut to 2 d 00 h
  CHECK(goodput_duration(48.4 * kHour) == "2 d 00 h");
  CHECK(goodput_duration(47.6 * kHour) == "2 d 00 h");  // rounds into the next day
  CHECK(goodput_duration(24 * kHour) == "1 d 00 h");
  CHECK(goodput_duration(std::numeric_limits<double>::infinity()) == "never");
  CHECK(goodput_duration(1e4 * 86400 * 2) == "54.8 years");
}
