#pragma once
// Quantities with units, as users write them in scenarios and on the command line:
//   sizes      "50 MB" (10^6), "1 GiB" (2^30), "5e7" and plain integers are bytes;
//   bandwidths "450 GB/s", "100 Gb/s", "25 Gbps", "12 GiB/s"; a plain number is bytes/s;
//   times      "2 us", "1.5 ms", "300 ns"; a plain number is seconds.
// Decimal prefixes are powers of 10 (kB, MB, GB), binary ones powers of 2 (KiB, MiB, GiB);
// a lower-case b is a bit. Ambiguous spellings ("1G", "MB/sec") are refused with a suggestion
// rather than guessed. Every parser rejects NaN, infinities and values that do not fit the
// engine (an int64 byte count, the int64 picosecond clock of sim::Time).
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace scenarios {

// A value that does not parse. what() is the message without position; its last part, in
// parentheses, says what was expected.
class UnitError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Bytes, > 0 (or >= 0 with allow_zero). "0.5 KB" is 500; fractions of a byte round to nearest.
int64_t parse_size_bytes(std::string_view text, bool allow_zero = false);
// Bytes per second, > 0 and finite.
double parse_bandwidth_bytes_per_s(std::string_view text);
// Seconds, >= 0, representable as int64 picoseconds (about 106 days).
double parse_time_seconds(std::string_view text);
// A bare count written as a number or a numeric string ("5e7"); no unit allowed. >= 0.
double parse_count(std::string_view text);

// The same checks for values that arrived as numbers (TOML integers or floats).
int64_t size_from_number(double bytes, bool allow_zero = false);
double bandwidth_from_number(double bytes_per_s);
double time_from_number(double seconds);

// Which kind of quantity a unit string names; used for free-form parameters ([cluster.params])
// whose unit comes from the text itself. Returns the value in bytes, bytes/s or seconds.
enum class QuantityKind { Size, Bandwidth, Time, Plain };
struct Quantity {
  QuantityKind kind = QuantityKind::Plain;
  double value = 0;
};
Quantity parse_any_quantity(std::string_view text);

}  // namespace scenarios
