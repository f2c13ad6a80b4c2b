// Units in scenario values: decimal and binary prefixes, bits and bytes, the engine's limits.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "scenarios/load/units.hpp"

using scenarios::UnitError;

TEST_CASE("scenarios: sizes use decimal prefixes for kB/MB/GB and binary ones for KiB/MiB/GiB", "[scenarios]") {
  // SI: 1 MB = 10^6 B (IEC 80000-13); IEC: 1 MiB = 2^20 B.
  CHECK(scenarios::parse_size_bytes("50 MB") == 50000000);
  CHECK(scenarios::parse_size_bytes("1 GiB") == 1073741824);
  CHECK(scenarios::parse_size_bytes("1GB") == 1000000000);
  CHECK(scenarios::parse_size_bytes("4 KiB") == 4096);
  CHECK(scenarios::parse_size_bytes("2 kB") == 2000);
  CHECK(scenarios::parse_size_bytes("1.5 MiB") == 1572864);
  // A unitless string or number is bytes; scientific notation as DeepSpeed configs write it.
  CHECK(scenarios::parse_size_bytes("5e7") == 50000000);
  CHECK(scenarios::parse_size_bytes(" 8 ") == 8);
  CHECK(scenarios::parse_size_bytes("+3 B") == 3);
  CHECK(scenarios::size_from_number(4096.0) == 4096);
  // int64 holds 9.22e18 bytes; 8 EiB - 1 is the largest size below the limit by prefix.
  CHECK(scenarios::parse_size_bytes("8000 PB") == 8000000000000000000LL);
}

TEST_CASE("scenarios: sizes refuse ambiguity, bits, signs and overflow", "[scenarios]") {
  CHECK_THROWS_WITH(scenarios::parse_size_bytes("1G"), Catch::Contains("ambiguous size unit 'G'"));
  CHECK_THROWS_WITH(scenarios::parse_size_bytes("8 Mb"), Catch::Contains("is bits"));
  CHECK_THROWS_WITH(scenarios::parse_size_bytes("-1 MB"), Catch::Contains("must be positive"));
  CHECK_THROWS_WITH(scenarios::parse_size_bytes("0"), Catch::Contains("must be positive"));
  CHECK(scenarios::parse_size_bytes("0", /*allow_zero=*/true) == 0);
  CHECK_THROWS_WITH(scenarios::parse_size_bytes("nan"), Catch::Contains("not a finite number"));
  CHECK_THROWS_WITH(scenarios::parse_size_bytes("inf B"), Catch::Contains("not a finite number"));
  CHECK_THROWS_WITH(scenarios::parse_size_bytes("1e400 B"), Catch::Contains("overflows a 64-bit byte count"));
  CHECK_THROWS_WITH(scenarios::parse_size_bytes("10000 PB"), Catch::Contains("overflows"));
  CHECK_THROWS_WITH(scenarios::parse_size_bytes("10 GB/s"), Catch::Contains("is not a size"));
  CHECK_THROWS_WITH(scenarios::parse_size_bytes("MB"), Catch::Contains("is not a size"));
  CHECK_THROWS_AS(scenarios::size_from_number(std::nan("")), UnitError);
  CHECK_THROWS_AS(scenarios::size_from_number(1e19), UnitError);
}

TEST_CASE("scenarios: bandwidths in bytes and bits per second", "[scenarios]") {
  // 100 Gb/s = 100e9 bits/s = 12.5e9 B/s; "Gbps" is the same unit.
  CHECK(scenarios::parse_bandwidth_bytes_per_s("450 GB/s") == Approx(450e9));
  CHECK(scenarios::parse_bandwidth_bytes_per_s("100 Gb/s") == Approx(12.5e9));
  CHECK(scenarios::parse_bandwidth_bytes_per_s("25 Gbps") == Approx(3.125e9));
  CHECK(scenarios::parse_bandwidth_bytes_per_s("1 GiB/s") == Approx(1073741824.0));
  CHECK(scenarios::parse_bandwidth_bytes_per_s("26.562 GB/s") == Approx(26.562e9));
  CHECK(scenarios::parse_bandwidth_bytes_per_s("1e9") == Approx(1e9));  // plain number: bytes/s
  CHECK_THROWS_WITH(scenarios::parse_bandwidth_bytes_per_s("0 GB/s"), Catch::Contains("must be positive"));
  CHECK_THROWS_WITH(scenarios::parse_bandwidth_bytes_per_s("-1 GB/s"), Catch::Contains("must be positive"));
  CHECK_THROWS_WITH(scenarios::parse_bandwidth_bytes_per_s("100 GB"), Catch::Contains("is a size, not a bandwidth"));
  CHECK_THROWS_WITH(scenarios::parse_bandwidth_bytes_per_s("100 GB/sec"),
                    Catch::Contains("unknown bandwidth unit 'GB/sec'"));
  CHECK_THROWS_AS(scenarios::bandwidth_from_number(INFINITY), UnitError);
}

TEST_CASE("scenarios: times fit the picosecond clock", "[scenarios]") {
  CHECK(scenarios::parse_time_seconds("2 us") == Approx(2e-6));
  CHECK(scenarios::parse_time_seconds("1.5 ms") == Approx(1.5e-3));
  CHECK(scenarios::parse_time_seconds("300 ns") == Approx(3e-7));
  CHECK(scenarios::parse_time_seconds("7 ps") == Approx(7e-12));
  CHECK(scenarios::parse_time_seconds("0") == 0);
  CHECK(scenarios::parse_time_seconds("2 min") == Approx(120));
  // int64 picoseconds reach 9.2e18 ps = 9.2e6 s = 106.7 days.
  CHECK(scenarios::parse_time_seconds("100 d") == Approx(8.64e6));
  CHECK_THROWS_WITH(scenarios::parse_time_seconds("107 d"), Catch::Contains("overflows the picosecond clock"));
  CHECK_THROWS_WITH(scenarios::parse_time_seconds("-1 us"), Catch::Contains("must not be negative"));
  CHECK_THROWS_WITH(scenarios::parse_time_seconds("3 fortnights"), Catch::Contains("unknown time unit"));
}

TEST_CASE("scenarios: free parameters take their kind from the unit", "[scenarios]") {
  using scenarios::QuantityKind;
  CHECK(scenarios::parse_any_quantity("3 us").kind == QuantityKind::Time);
  CHECK(scenarios::parse_any_quantity("25 GB/s").kind == QuantityKind::Bandwidth);
  CHECK(scenarios::parse_any_quantity("50 MB").kind == QuantityKind::Size);
  CHECK(scenarios::parse_any_quantity("0.8").kind == QuantityKind::Plain);
  CHECK(scenarios::parse_any_quantity("25 GB/s").value == Approx(25e9));
  CHECK_THROWS_AS(scenarios::parse_any_quantity("3 parsecs"), UnitError);
}
