#pragma once
// Human-readable quantities for labels: "12.3 ms", "218 MB", "172 GB/s", "1,024".
#include <string>

namespace viz::fmt {
std::string seconds(double s);            // picks ns/us/ms/s/min/h; "0 s" for 0; "n/a" if not finite
// "0:16:21" as training logs print run times, up to two days; "362 d 04 h" from there (as the goodput
// line prints expected wall times), "1.2e+30 years" past 10,000 days.
std::string duration_hms(double s);
std::string bytes(double b);              // decimal units (B, KB, MB, GB, TB), as NCCL sizes are quoted
std::string bytes_binary_axis(double b);  // axis ticks of powers of two: "8 B", "1 KiB", "64 MiB"
std::string rate(double bytes_per_s);     // "GB/s"
std::string percent(double fraction);     // 0.734 -> "73%", small values keep a decimal
std::string count(long long n);           // thousands separators
// Dollars as every commsim output prints them: "$1.23 M", "$1,234", "$4.91", "$0.0982" (three
// digits below $1, trailing zeros kept); "n/a" if not finite.
std::string usd(double dollars);
std::string fixed(double v, int decimals);
// Two decimals from 0.01 up, two significant digits below (a ratio of 0.00057, 0.0038
// interruptions a day), so a value that is not zero never reads "0.00"; "n/a" if not finite.
std::string two_decimals(double v);
// A rate per day (interruptions a day) as every output prints it: two decimals from 1, else two
// significant digits, so that 0.015 and 0.0076 (twice the GPUs) read as twice, not as 0.02 against
// 0.0076; "n/a" if not finite.
std::string per_day(double v);
// The unit an axis of times up to `max_s` is labelled in: values are multiplied by `per_s`.
struct TimeUnit {
  double per_s = 1;
  const char* name = "s";
};
TimeUnit time_unit(double max_s);
}  // namespace viz::fmt
