// Unit parsing for scenario values. See units.hpp for the accepted spellings.
#include "scenarios/load/units.hpp"

#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <string>

#include "sim/time.hpp"

namespace scenarios {
namespace {

struct Split {
  double number = 0;
  std::string unit;  // trimmed, may be empty
};

std::string quoted(std::string_view text) { return "\"" + std::string(text) + "\""; }

std::string lower(std::string_view s) {
  std::string r(s);
  for (char& c : r) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return r;
}

// Splits "  1.5e3 MB " into (1500, "MB"). `what` names the quantity for messages.
Split split_number_unit(std::string_view text, const char* what, const char* example) {
  size_t i = 0;
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  const size_t start = i;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
  const std::string rest = lower(text.substr(i, 3));
  if (rest == "nan" || rest == "inf")
    throw UnitError(std::string(what) + " is not a finite number: " + quoted(text) + " (expected a finite " + what +
                    " such as " + example + ")");
  size_t digits = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i, ++digits;
  if (i < text.size() && text[i] == '.') {
    ++i;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i, ++digits;
  }
  if (digits == 0)
    throw UnitError(quoted(text) + " is not a " + what + " (expected a number with a unit, such as " + example + ")");
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    size_t j = i + 1;
    if (j < text.size() && (text[j] == '+' || text[j] == '-')) ++j;
    size_t exp_digits = 0;
    while (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j]))) ++j, ++exp_digits;
    if (exp_digits > 0) i = j;  // else "e" begins the unit (there is no unit starting with e)
  }
  Split out;
  const char* first = text.data() + start;
  if (*first == '+') ++first;  // from_chars does not accept a leading '+'
  auto [ptr, ec] = std::from_chars(first, text.data() + i, out.number);
  if (ec == std::errc::result_out_of_range) {
    // Past double's range: a huge value overflows later checks with a clear message; a tiny one is 0.
    const std::string_view digits_text = text.substr(start, i - start);
    const bool tiny =
        digits_text.find("e-") != std::string_view::npos || digits_text.find("E-") != std::string_view::npos;
    out.number = tiny ? 0.0 : std::numeric_limits<double>::max() * ((text[start] == '-') ? -1 : 1);
  } else if (ec != std::errc() || ptr != text.data() + i)
    throw UnitError(quoted(text) + " is not a " + what + " (expected a number with a unit, such as " + example + ")");
  size_t end = text.size();
  while (end > i && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
  while (i < end && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  out.unit = std::string(text.substr(i, end - i));
  return out;
}

struct UnitFactor {
  const char* name;
  double factor;
};

constexpr std::array<UnitFactor, 13> kSizeUnits{{
    {"B", 1},
    {"kB", 1e3},
    {"KB", 1e3},
    {"MB", 1e6},
    {"GB", 1e9},
    {"TB", 1e12},
    {"PB", 1e15},
    {"KiB", 1024.0},
    {"MiB", 1048576.0},
    {"GiB", 1073741824.0},
    {"TiB", 1099511627776.0},
    {"PiB", 1125899906842624.0},
    {"bytes", 1},
}};

// Bandwidth units: bytes (B/s, Bps) and bits (b/s, bps).
constexpr std::array<UnitFactor, 11> kBitPrefixes{{
    {"", 1},
    {"k", 1e3},
    {"K", 1e3},
    {"M", 1e6},
    {"G", 1e9},
    {"T", 1e12},
    {"Ki", 1024.0},
    {"Mi", 1048576.0},
    {"Gi", 1073741824.0},
    {"Ti", 1099511627776.0},
    {"P", 1e15},
}};

constexpr std::array<UnitFactor, 10> kTimeUnits{{
    {"s", 1},
    {"ms", 1e-3},
    {"us", 1e-6},
    {"\xC2\xB5s", 1e-6},
    {"\xCE\xBCs", 1e-6},
    {"ns", 1e-9},
    {"ps", 1e-12},
    {"min", 60},
    {"h", 3600},
    {"d", 86400},
}};

constexpr const char* kSizeExample = "\"50 MB\" or \"1 GiB\"";
constexpr const char* kBandwidthExample = "\"450 GB/s\", \"100 Gb/s\" or \"25 Gbps\"";
constexpr const char* kTimeExample = "\"2 us\" or \"1.5 ms\"";

bool is_size_unit(const std::string& u) {
  if (u == "byte") return true;
  for (const auto& s : kSizeUnits)
    if (u == s.name) return true;
  return false;
}

// Bandwidth factor for a unit such as "GB/s", "Gb/s", "Gbps", "GiB/s", "GBps"; nullopt-like -1.
double bandwidth_factor(const std::string& u) {
  for (const auto& p : kBitPrefixes) {
    const std::string pre = p.name;
    if (u == pre + "B/s" || u == pre + "Bps") return p.factor;
    if (u == pre + "b/s" || u == pre + "bps" || u == pre + "bit/s") return p.factor / 8.0;
  }
  return -1;
}

double time_factor(const std::string& u) {
  for (const auto& t : kTimeUnits)
    if (u == t.name) return t.factor;
  return -1;
}

constexpr double kMaxInt64 = 9223372036854775807.0;

}  // namespace

int64_t size_from_number(double bytes, bool allow_zero) {
  if (!std::isfinite(bytes))
    throw UnitError(std::string("size is not a finite number (expected a finite size such as ") + kSizeExample + ")");
  const double rounded = std::nearbyint(bytes);
  if (rounded < 0 || (!allow_zero && rounded == 0))
    throw UnitError(std::string("size must be ") + (allow_zero ? "zero or positive" : "positive") +
                    " (expected a size " + (allow_zero ? ">= 0" : "> 0") + " such as " + kSizeExample + ")");
  if (rounded >= kMaxInt64)
    throw UnitError("size overflows a 64-bit byte count (expected at most 9223372036854775807 bytes, about 9.2 EB)");
  return static_cast<int64_t>(rounded);
}

double bandwidth_from_number(double bytes_per_s) {
  if (!std::isfinite(bytes_per_s))
    throw UnitError(std::string("bandwidth is not a finite number (expected a finite rate such as ") +
                    kBandwidthExample + ")");
  if (bytes_per_s <= 0)
    throw UnitError(std::string("bandwidth must be positive (expected a rate > 0 such as ") + kBandwidthExample + ")");
  return bytes_per_s;
}

double time_from_number(double seconds) {
  if (!std::isfinite(seconds))
    throw UnitError(std::string("time is not a finite number (expected a finite time such as ") + kTimeExample + ")");
  if (seconds < 0)
    throw UnitError(std::string("time must not be negative (expected a time >= 0 such as ") + kTimeExample + ")");
  try {
    (void)sim::Time::from_seconds(seconds);
  } catch (const sim::Overflow&) {
    throw UnitError("time overflows the picosecond clock (expected at most about 106 days)");
  }
  return seconds;
}

int64_t parse_size_bytes(std::string_view text, bool allow_zero) {
  const Split s = split_number_unit(text, "size", kSizeExample);
  double factor = -1;
  if (s.unit.empty() || s.unit == "byte") factor = 1;
  for (const auto& u : kSizeUnits)
    if (s.unit == u.name) factor = u.factor;
  if (factor < 0) {
    if (bandwidth_factor(s.unit) > 0 || time_factor(s.unit) > 0)
      throw UnitError(quoted(text) + " is not a size (expected bytes, such as " + kSizeExample + ")");
    const std::string u = s.unit;
    if (u == "K" || u == "M" || u == "G" || u == "T" || u == "k")
      throw UnitError("ambiguous size unit '" + u + "' in " + quoted(text) + " (expected \"" + (u == "k" ? "K" : u) +
                      "B\" for powers of 10 or \"" + (u == "k" ? "K" : u) + "iB\" for powers of 2)");
    if (u.size() == 2 && u[1] == 'b')
      throw UnitError("'" + u + "' in " + quoted(text) + " is bits (expected bytes, such as \"" +
                      std::string(1, u[0] == 'k' ? 'k' : u[0]) + "B\")");
    throw UnitError("unknown size unit '" + u + "' in " + quoted(text) +
                    " (expected B, kB, MB, GB, TB, KiB, MiB, GiB or TiB)");
  }
  const double bytes = s.number * factor;
  try {
    return size_from_number(bytes, allow_zero);
  } catch (const UnitError& e) {
    throw UnitError(std::string(e.what()).insert(4, " " + quoted(text)));
  }
}

double parse_bandwidth_bytes_per_s(std::string_view text) {
  const Split s = split_number_unit(text, "bandwidth", kBandwidthExample);
  double factor = s.unit.empty() ? 1 : bandwidth_factor(s.unit);
  if (factor < 0) {
    if (is_size_unit(s.unit))
      throw UnitError(quoted(text) + " is a size, not a bandwidth (expected a rate such as " + kBandwidthExample + ")");
    throw UnitError("unknown bandwidth unit '" + s.unit + "' in " + quoted(text) +
                    " (expected B/s, MB/s, GB/s, GiB/s, Gb/s or Gbps)");
  }
  try {
    return bandwidth_from_number(s.number * factor);
  } catch (const UnitError& e) {
    throw UnitError(std::string(e.what()).insert(9, " " + quoted(text)));
  }
}

double parse_time_seconds(std::string_view text) {
  const Split s = split_number_unit(text, "time", kTimeExample);
  const double factor = s.unit.empty() ? 1 : time_factor(s.unit);
  if (factor < 0)
    throw UnitError("unknown time unit '" + s.unit + "' in " + quoted(text) +
                    " (expected ps, ns, us, ms, s, min or h)");
  try {
    return time_from_number(s.number * factor);
  } catch (const UnitError& e) {
    throw UnitError(std::string(e.what()).insert(4, " " + quoted(text)));
  }
}

double parse_count(std::string_view text) {
  const Split s = split_number_unit(text, "count", "\"5e7\"");
  if (!s.unit.empty())
    throw UnitError("unexpected unit '" + s.unit + "' in " + quoted(text) +
                    " (expected a plain count of elements, such as \"5e7\")");
  if (!std::isfinite(s.number) || s.number < 0)
    throw UnitError(quoted(text) + " is not a count (expected a finite number >= 0)");
  return s.number;
}

Quantity parse_any_quantity(std::string_view text) {
  const Split s = split_number_unit(text, "quantity", "\"3 us\", \"25 GB/s\" or \"50 MB\"");
  if (s.unit.empty()) {
    if (!std::isfinite(s.number)) throw UnitError(quoted(text) + " is not a finite number (expected a finite number)");
    return {QuantityKind::Plain, s.number};
  }
  if (time_factor(s.unit) > 0) return {QuantityKind::Time, parse_time_seconds(text)};
  if (bandwidth_factor(s.unit) > 0) return {QuantityKind::Bandwidth, parse_bandwidth_bytes_per_s(text)};
  if (is_size_unit(s.unit)) return {QuantityKind::Size, static_cast<double>(parse_size_bytes(text))};
  throw UnitError("unknown unit '" + s.unit + "' in " + quoted(text) +
                  " (expected a time, bandwidth or size unit such as us, GB/s or MB)");
}

}  // namespace scenarios
