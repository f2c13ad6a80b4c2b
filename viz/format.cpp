// Human-readable quantities (see format.hpp).
#include "viz/format.hpp"

#include <cmath>
#include <cstdio>

namespace viz::fmt {

std::string fixed(double v, int decimals) {
  if (!std::isfinite(v)) return "n/a";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::string usd(double d) {
  if (!std::isfinite(d)) return "n/a";
  char buf[64];
  if (d >= 1e6)
    std::snprintf(buf, sizeof buf, "$%.2f M", d / 1e6);
  else if (d >= 1000) {  // thousands grouped: "$178,334", where "$178334" read as 17.8k or 1.78 M
    const long long whole = std::llround(d);
    if (whole >= 1000000) return "$1.00 M";  // 999,999.5 and up round to the next form
    std::snprintf(buf, sizeof buf, "$%lld,%03lld", whole / 1000, whole % 1000);
  } else if (d >= 1)
    std::snprintf(buf, sizeof buf, "$%.2f", d);
  else
    std::snprintf(buf, sizeof buf, "$%#.3g", d);  // three digits, trailing zeros kept: $0.230
  return buf;
}

std::string two_decimals(double v) {
  if (!std::isfinite(v)) return "n/a";
  if (v == 0 || std::abs(v) >= 0.01) return fixed(v, 2);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2g", v);
  return buf;
}

std::string per_day(double v) {
  if (!std::isfinite(v) || v == 0 || std::abs(v) >= 1) return two_decimals(v);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2g", v);
  return buf;
}

namespace {
// Three significant digits, the precision a design review reads.
std::string sig3(double v) {
  const double a = std::abs(v);
  return fixed(v, a >= 100 ? 0 : a >= 10 ? 1 : 2);
}
}  // namespace

std::string seconds(double s) {
  if (!std::isfinite(s)) return "n/a";
  const double a = std::abs(s);
  if (a == 0) return "0 s";
  if (a < 1e-6) return sig3(s * 1e9) + " ns";
  if (a < 1e-3) return sig3(s * 1e6) + " us";
  if (a < 1) return sig3(s * 1e3) + " ms";
  if (a < 120) return sig3(s) + " s";
  if (a < 7200) return sig3(s / 60) + " min";
  return sig3(s / 3600) + " h";
}

std::string duration_hms(double s) {
  if (!std::isfinite(s) || s < 0) return "n/a";
  if (s < 60) return seconds(s);  // under a minute "0:00:00" would hide it: ms / s as the step is shown
  // From two days up a clock reading misleads ("8692:27:21" is a year): days and hours, as the
  // goodput line prints expected wall times; years past 10,000 days, where no count of days helps.
  constexpr double kDay = 86400;
  if (s >= 1e4 * kDay) {
    char big[48];
    std::snprintf(big, sizeof big, "%.3g years", s / (365.25 * kDay));
    return big;
  }
  if (s >= 2 * kDay) {
    const long long hours = std::llround(s / 3600);
    char buf[48];
    std::snprintf(buf, sizeof buf, "%lld d %02lld h", hours / 24, hours % 24);
    return buf;
  }
  const long long t = std::llround(s);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld", t / 3600, (t / 60) % 60, t % 60);
  return buf;
}

std::string bytes(double b) {
  if (!std::isfinite(b)) return "n/a";
  const char* units[] = {"B", "KB", "MB", "GB", "TB", "PB"};
  int u = 0;
  while (std::abs(b) >= 1000 && u < 5) {
    b /= 1000;
    ++u;
  }
  return (u == 0 ? fixed(b, 0) : sig3(b)) + " " + units[u];
}

std::string bytes_binary_axis(double b) {
  if (!std::isfinite(b)) return "n/a";
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (std::abs(b) >= 1024 && u < 4) {
    b /= 1024;
    ++u;
  }
  return fixed(b, std::abs(b - std::round(b)) < 1e-9 ? 0 : 1) + " " + units[u];
}

std::string rate(double bps) {
  if (!std::isfinite(bps)) return "n/a";
  if (std::abs(bps) >= 1e9) return sig3(bps / 1e9) + " GB/s";
  if (std::abs(bps) >= 1e6) return sig3(bps / 1e6) + " MB/s";
  return sig3(bps / 1e3) + " KB/s";
}

std::string percent(double f) {
  if (!std::isfinite(f)) return "n/a";
  const double p = f * 100;
  return fixed(p, std::abs(p) < 10 && p != 0 ? 1 : 0) + "%";
}

std::string count(long long n) {
  std::string digits = std::to_string(n < 0 ? -n : n), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return n < 0 ? "-" + out : out;
}

TimeUnit time_unit(double max_s) {
  if (!(max_s > 0) || !std::isfinite(max_s)) return {1e3, "ms"};
  if (max_s < 2e-6) return {1e9, "ns"};
  if (max_s < 2e-3) return {1e6, "us"};
  if (max_s < 2) return {1e3, "ms"};
  return {1, "s"};
}

}  // namespace viz::fmt
