#pragma once
// sim::Time: integer picoseconds. One byte at 1 TB/s is 1 ps, and int64 picoseconds reach
// 106 days, far past any training run we simulate. No double inside the engine: convert at
// the edges with from_seconds()/seconds(). Overflow throws sim::Overflow, it never wraps.
#include <cmath>
#include <compare>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

namespace sim {

// A time or byte count left the representable range. Callers at the edge (scenario loader,
// CLI) turn it into a user error; inside the engine it means a model produced nonsense.
class Overflow : public std::overflow_error {
 public:
  using std::overflow_error::overflow_error;
};

inline int64_t checked_add(int64_t a, int64_t b, const char* what = "value") {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) throw Overflow(std::string(what) + " overflows int64");
  return r;
}
inline int64_t checked_sub(int64_t a, int64_t b, const char* what = "value") {
  int64_t r;
  if (__builtin_sub_overflow(a, b, &r)) throw Overflow(std::string(what) + " overflows int64");
  return r;
}
inline int64_t checked_mul(int64_t a, int64_t b, const char* what = "value") {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) throw Overflow(std::string(what) + " overflows int64");
  return r;
}

class Time {
 public:
  constexpr Time() = default;
  static constexpr Time from_ps(int64_t ps) { return Time(ps); }
  static constexpr Time zero() { return Time(0); }
  static constexpr Time max() { return Time(std::numeric_limits<int64_t>::max()); }

  // Rounds to the nearest picosecond; rejects NaN, infinities and values past ~106 days.
  static Time from_seconds(double s) {
    if (!std::isfinite(s)) throw Overflow("time is not a finite number");
    const double ps = std::round(s * 1e12);
    if (ps >= 9.2e18 || ps <= -9.2e18) throw Overflow("time overflows the picosecond clock");
    return Time(static_cast<int64_t>(ps));
  }
  static Time from_ns(double v) { return from_seconds(v * 1e-9); }
  static Time from_us(double v) { return from_seconds(v * 1e-6); }
  static Time from_ms(double v) { return from_seconds(v * 1e-3); }

  constexpr int64_t ps() const { return ps_; }
  constexpr double seconds() const { return static_cast<double>(ps_) * 1e-12; }
  constexpr double us() const { return static_cast<double>(ps_) * 1e-6; }

  Time operator+(Time o) const { return Time(checked_add(ps_, o.ps_, "time")); }
  // checked_sub, not add(-o): negating INT64_MIN would itself overflow.
  Time operator-(Time o) const { return Time(checked_sub(ps_, o.ps_, "time")); }
  Time& operator+=(Time o) { return *this = *this + o; }
  Time& operator-=(Time o) { return *this = *this - o; }
  Time operator*(int64_t k) const { return Time(checked_mul(ps_, k, "time")); }
  constexpr auto operator<=>(const Time&) const = default;

 private:
  constexpr explicit Time(int64_t ps) : ps_(ps) {}
  int64_t ps_ = 0;
};

// Time needed to move `bytes` at `bytes_per_s`, rounded up so a transfer never ends early.
// A quotient that is an integer number of picoseconds up to floating-point noise (1e9 B at
// 1e9 B/s computes as 1000000000000.0001 ps) is taken as that integer, not rounded up by one.
inline Time transfer_time(double bytes, double bytes_per_s) {
  if (bytes <= 0) return Time::zero();
  const double exact = bytes / bytes_per_s * 1e12;
  if (!(exact < 9.2e18)) throw Overflow("transfer time overflows the picosecond clock");
  const double nearest = std::nearbyint(exact);
  const double noise = 8 * std::numeric_limits<double>::epsilon() * nearest;
  const double ps = std::fabs(exact - nearest) <= noise ? nearest : std::ceil(exact);
  return Time::from_ps(static_cast<int64_t>(ps));
}

namespace detail {
// Literals are checked too: 200000000_s does not fit in int64 picoseconds. In a constant
// expression the throw is a compile error; at run time it is sim::Overflow.
constexpr Time literal(unsigned long long v, int64_t ps_per_unit) {
  int64_t r = 0;
  if (v > static_cast<unsigned long long>(std::numeric_limits<int64_t>::max()) ||
      __builtin_mul_overflow(static_cast<int64_t>(v), ps_per_unit, &r))
    throw Overflow("time literal overflows the picosecond clock");
  return Time::from_ps(r);
}
}  // namespace detail

namespace literals {
constexpr Time operator""_ps(unsigned long long v) { return detail::literal(v, 1); }
constexpr Time operator""_ns(unsigned long long v) { return detail::literal(v, 1000); }
constexpr Time operator""_us(unsigned long long v) { return detail::literal(v, 1000000); }
constexpr Time operator""_ms(unsigned long long v) { return detail::literal(v, 1000000000); }
constexpr Time operator""_s(unsigned long long v) { return detail::literal(v, 1000000000000); }
inline Time operator""_ns(long double v) { return Time::from_ns(static_cast<double>(v)); }
inline Time operator""_us(long double v) { return Time::from_us(static_cast<double>(v)); }
inline Time operator""_ms(long double v) { return Time::from_ms(static_cast<double>(v)); }
inline Time operator""_s(long double v) { return Time::from_seconds(static_cast<double>(v)); }
}  // namespace literals

}  // namespace sim
