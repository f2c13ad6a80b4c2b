// What `commsim plan` says around its ranked rows (plan_advice.hpp).
#include "scenarios/cli/plan/plan_advice.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "models/run/caveat_error.hpp"
#include "scenarios/cli/output/result_format.hpp"
#include "scenarios/cli/plan/plan_report.hpp"

namespace scenarios {

namespace {

using models::plan::Evaluated;

std::string signed_percent(double a, double b) { return b > 0 ? fmt::format("{:+.1f} %", 100 * (a - b) / b) : "-"; }

// How much less `small` is than `big`: "2.5x less" from 1.5x on, "20 % less" below.
std::string how_much_less(double small, double big) {
  return big >= 1.5 * small ? fmt::format("{:.1f}x less", big / small)
                            : fmt::format("{:.0f} % less", 100 * (1 - small / big));
}

// Among the tied rows 0..tied-1, the one whose `value` is least and the one where it is most
// (first seen on a tie of values).
template <typename Value>
std::pair<size_t, size_t> least_and_most(const std::vector<Evaluated>& rows, size_t tied, Value value) {
  size_t least = 0, most = 0;
  for (size_t i = 1; i < tied; ++i) {
    if (value(rows[i]) < value(rows[least])) least = i;
    if (value(rows[i]) > value(rows[most])) most = i;
  }
  return {least, most};
}

// The other measure's difference among the tied rows, where it is worth naming first: the row
// best in it against #1, or #1 against the worst where #1 is the best. "" where they differ by
// less than kNearTieOtherShare, or some tied row has no price.
std::string other_measure_first(const PlanOutput& p, size_t tied) {
  const auto& rows = p.result.ranked;
  if (p.options.objective == models::plan::Objective::Time) {
    for (size_t i = 0; i < tied; ++i)
      if (!rows[i].cost_usd || *rows[i].cost_usd <= 0) return "";
    const auto cost = [](const Evaluated& e) { return *e.cost_usd; };
    auto [cheap, dear] = least_and_most(rows, tied, cost);
    if (cheap != 0) dear = 0;  // the cheaper row against #1
    if (cost(rows[dear]) < (1 + kNearTieOtherShare) * cost(rows[cheap])) return "";
    return fmt::format("choose on cost first (#{} costs {} than #{}: {} against {}), then on ", cheap + 1,
                       how_much_less(cost(rows[cheap]), cost(rows[dear])), dear + 1, format_usd(cost(rows[cheap])),
                       format_usd(cost(rows[dear])));
  }
  const auto time = [](const Evaluated& e) { return e.train_s; };
  auto [fast, slow] = least_and_most(rows, tied, time);
  if (fast != 0) slow = 0;  // the faster row against #1
  if (!std::isfinite(time(rows[slow])) || time(rows[slow]) < (1 + kNearTieOtherShare) * time(rows[fast])) return "";
  const double t_fast = time(rows[fast]), t_slow = time(rows[slow]);
  return fmt::format("choose on time first (#{} {} than #{}: {} against {}), then on ", fast + 1,
                     t_slow >= 1.5 * t_fast ? fmt::format("is {:.1f}x faster", t_slow / t_fast)
                                            : fmt::format("takes {:.0f} % less time", 100 * (1 - t_fast / t_slow)),
                     slow + 1, format_duration(t_fast), format_duration(t_slow));
}

// Where #2 is beyond kStepModelError of #1 in what the table ranks by, but within the error
// measured where #1's or #2's caveats apply (models::caveats_measured_error: ZeRO offload's whole
// steps, an NVL72 network across racks): the "not decisive: ..." sentence; "" otherwise.
std::string within_caveat_text(const PlanOutput& p) {
  const auto& rows = p.result.ranked;
  if (rows.size() < 2) return "";
  const bool by_cost = p.options.objective == models::plan::Objective::Cost;
  const Evaluated &a = rows[0], &b = rows[1];
  const double x = by_cost ? a.cost_usd.value_or(0) : a.train_s, y = by_cost ? b.cost_usd.value_or(0) : b.train_s;
  if (!(x > 0) || !std::isfinite(y)) return "";
  const double margin = y / x - 1;
  const double ea = models::caveats_measured_error(a.caveats, a.candidate.nodes);
  const double eb = models::caveats_measured_error(b.caveats, b.candidate.nodes);
  if (margin <= kStepModelError || margin > std::max(ea, eb)) return "";
  const std::string whose = ea == eb  ? "#1's and #2's caveats apply"
                            : ea > eb ? "#1's caveat applies"
                                      : "#2's caveat applies";
  return fmt::format(
      "not decisive: #2's {} is {:.1f} % above #1's, beyond commsim's median error on measured training steps "
      "({:.1f} %) but within the {:.0f} % measured where {} (caveats below): the model does not order them; choose on "
      "what else differs or measure them",
      by_cost ? "cost" : "time to train", 100 * margin, 100 * kStepModelError, 100 * std::max(ea, eb), whose);
}

}  // namespace

std::string front_heading(const PlanOutput& p) {
  if (front_exact(p)) return "Pareto front (time vs cost, no other layout both faster and cheaper)";
  const size_t exact = std::max<size_t>(1, p.options.exact_rows);
  return fmt::format(
      "Pareto front among the {} layouts simulated (time vs cost; a skipped layout cannot beat {}, but may be "
      "cheaper: --pareto-exact for the whole front)",
      p.result.simulated, exact == 1 ? std::string("#1") : fmt::format("ranks 1-{}", exact));
}

std::vector<std::string> front_remarks(const PlanOutput& p) {
  const auto& r = p.result;
  std::vector<std::string> out(r.pareto.size());
  // On the front by a margin smaller than the model's error: say what the next, cheaper row
  // gives up for it, so that two rows printed alike are not read as one dominating the other.
  for (size_t k = 0; k + 1 < r.pareto.size(); ++k) {
    const Evaluated &mine = r.ranked[r.pareto[k]], &next = r.ranked[r.pareto[k + 1]];
    if (next.train_s < 1.005 * mine.train_s && next.cost_usd && *next.cost_usd > 0 && mine.cost_usd)
      out[k] =
          fmt::format("only {:.2f} % faster than #{}, at {:.1f}x its cost", 100 * (next.train_s / mine.train_s - 1),
                      r.pareto[k + 1] + 1, *mine.cost_usd / *next.cost_usd);
  }
  return out;
}

std::vector<std::string> not_searched_lines(const PlanOutput& p) {
  // Each instance whose layouts skipped on time may cost less than the front's cheapest row (their
  // cost bound, time bound x price, is below it), so the cheapest answer may be one never run.
  const auto& r = p.result;
  std::vector<std::string> out;
  if (front_exact(p)) return out;
  double cheapest = 0;
  for (size_t i : r.pareto)
    if (r.ranked[i].cost_usd && (cheapest == 0 || *r.ranked[i].cost_usd < cheapest)) cheapest = *r.ranked[i].cost_usd;
  for (const auto& [name, t] : r.by_instance)
    if (cheapest > 0 && t.skipped_cost_bound_usd > 0 && t.skipped_cost_bound_usd < cheapest)
      out.push_back(fmt::format(
          "not searched: {} layout(s) on {} skipped on time may cost as little as {} (their bound), below the "
          "front's cheapest {}: --pareto-exact runs them",
          t.skipped_by_bound, name, format_usd(t.skipped_cost_bound_usd), format_usd(cheapest)));
  return out;
}

std::string near_tie_text(const PlanOutput& p) {
  const size_t tied = ranks_within_model_error(p);
  if (tied < 2) return within_caveat_text(p);
  return fmt::format(
      "near-tie: {} within {:.1f} % of #1's {}, commsim's median error on measured training steps (README, "
      "docs/accuracy.md): the model does not order them; {}what else differs (memory headroom, GPUs, framework) or "
      "measure them",
      tied == 2 ? std::string("#2 is") : fmt::format("ranks 2-{} are", tied), 100 * kStepModelError,
      p.options.objective == models::plan::Objective::Cost ? "cost" : "time to train", [&] {
        const std::string first = other_measure_first(p, tied);
        return first.empty() ? std::string("choose on ") : first;
      }());
}

WhyFirstWins why_first_wins(const PlanOutput& p) {
  WhyFirstWins out;
  const auto& r = p.result;
  if (r.ranked.size() < 2) return out;
  const Evaluated &a = r.ranked[0], &b = r.ranked[1];
  out.heading = fmt::format("why #1 wins over #2: step {} vs {} (#2 {}); where the mean rank's step goes:",
                            format_seconds(a.step_s), format_seconds(b.step_s), signed_percent(b.step_s, a.step_s));
  const auto ta = breakdown_labels(a.breakdown), tb = breakdown_labels(b.breakdown);
  for (size_t t = 0; t < ta.size(); ++t) {
    if (ta[t].second == 0 && tb[t].second == 0) continue;
    const double d = ta[t].second - tb[t].second;
    out.rows.push_back({ta[t].first, format_seconds(ta[t].second), format_seconds(tb[t].second),
                        std::abs(d) < 5e-10 ? std::string("same") : (d > 0 ? "+" : "-") + format_seconds(std::abs(d))});
  }
  // The step is not all of it: failures cost a layout of more GPUs more of its wall time.
  out.rows.push_back({"goodput", fmt::format("{:.1f}%", 100 * a.goodput), fmt::format("{:.1f}%", 100 * b.goodput), ""});
  out.rows.push_back({"time to train", format_duration(a.train_s), format_duration(b.train_s), ""});
  if (a.cost_usd && b.cost_usd) out.rows.push_back({"run cost", format_usd(*a.cost_usd), format_usd(*b.cost_usd), ""});
  return out;
}

}  // namespace scenarios
