#include "scenarios/cli/output/compare_text.hpp"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "models/run/caveat_error.hpp"
#include "scenarios/cli/output/result_format.hpp"

namespace scenarios {

std::string ratio_text(double value, double base) {
  if (base == 0) return value == 0 ? "x1.00" : "n/a";
  const double r = value / base;
  return r >= 0.01 ? fmt::format("x{:.2f}", r) : fmt::format("x{:.2g}", r);
}

bool batch_differs(const models::RunResult& a, const models::RunResult& b) {
  const double x = a.throughput.tokens_per_step, y = b.throughput.tokens_per_step;
  return a.throughput.estimated && b.throughput.estimated && x > 0 && y > 0 && std::abs(x - y) > 1e-9 * y;
}

std::string difference_text(const models::RunResult& base, const models::RunResult& r, size_t index) {
  if (base.step_time_s <= 0 || batch_differs(r, base) || !within_model_error_note(base, r, index).empty()) return "";
  const double diff = r.step_time_s - base.step_time_s;
  if (std::abs(diff) < 5e-4 * base.step_time_s) return "";
  const auto mine = breakdown_labels(r.step_breakdown), theirs = breakdown_labels(base.step_breakdown);
  std::vector<std::pair<const char*, double>> moved;
  for (size_t t = 0; t < mine.size(); ++t)
    if (std::abs(mine[t].second - theirs[t].second) >= 0.1 * std::abs(diff))
      moved.push_back({mine[t].first, mine[t].second - theirs[t].second});
  std::stable_sort(moved.begin(), moved.end(),
                   [](const auto& a, const auto& b) { return std::abs(a.second) > std::abs(b.second); });
  if (moved.size() > 3) moved.resize(3);
  std::string terms;
  for (const auto& [what, d] : moved)
    terms += fmt::format("{}{} {}{}", terms.empty() ? "" : ", ", what, d < 0 ? "-" : "+", format_seconds(std::abs(d)));
  std::string out = fmt::format("why [{}] is {} than [1]: step {} against {} ({})", index,
                                diff > 0 ? "slower" : "faster", format_seconds(r.step_time_s),
                                format_seconds(base.step_time_s), ratio_text(r.step_time_s, base.step_time_s));
  if (!terms.empty()) out += "; the mean rank's terms that moved most: " + terms;
  const auto labels = [](const models::RunResult& x) {
    std::vector<std::string> v;
    for (const auto& c : x.transports) v.push_back(c.label);
    return v;
  };
  if (labels(r) != labels(base)) out += fmt::format("; [{}]'s NCCL transports differ from [1]'s (the legend)", index);
  // Beyond the median error, but within what was measured where a column's caveats apply (ZeRO
  // offload's whole steps, an NVL72 network across racks): no ordering to read from it either.
  const double e1 = models::caveats_measured_error(base.caveats, base.nodes);
  const double e2 = models::caveats_measured_error(r.caveats, r.nodes);
  const double ratio = std::max(r.step_time_s, base.step_time_s) / std::min(r.step_time_s, base.step_time_s);
  if (ratio - 1 <= std::max(e1, e2))
    out += fmt::format("; but within the {:.0f} % measured where {} (the caveats), so the model does not order them",
                       100 * std::max(e1, e2),
                       e1 == e2 ? fmt::format("[1]'s and [{}]'s caveats apply", index)
                                : fmt::format("[{}]'s caveat applies", e1 > e2 ? size_t{1} : index));
  return wrap_words("", out, " ");
}

}  // namespace scenarios
