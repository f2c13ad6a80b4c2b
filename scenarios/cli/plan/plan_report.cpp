// `commsim plan`'s text output (plan_report.hpp).
#include "scenarios/cli/plan/plan_report.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "models/hw/instance.hpp"
#include "models/hw/prices.hpp"
#include "scenarios/cli/output/result_format.hpp"
#include "scenarios/cli/plan/plan_advice.hpp"

namespace scenarios {

namespace {

using models::plan::Evaluated;

std::string usd_or_dash(const std::optional<double>& v) { return v ? format_usd(*v) : std::string("-"); }
// A row's cost: "no price" where the instance has none (never a guess).
std::string usd_or_no_price(const std::optional<double>& v) { return v ? format_usd(*v) : std::string("no price"); }

// How a row's $ is sold, in the table's 9 columns: on-demand, cap.block (a Capacity Block's
// hourly rate), given (the user's figure), mixed; "-" without a price.
std::string pricing_label(const Evaluated& e) {
  if (!e.cost_usd || e.pricing.empty()) return "-";
  return e.pricing == "capacity block" ? "cap.block" : e.pricing;
}

// "27.2 % less time", "3.1 % more", "the same time", "25.8x less time" (from 1.5x less on, where
// "96.1 % less" hides how many times): a against b, in words that keep the sign.
std::string compared(double a, double b, const std::string& what) {
  if (b <= 0) return "-";
  const double d = 100 * (a - b) / b;
  const std::string tail = what.empty() ? "" : " " + what;
  if (std::abs(d) < 0.05) return "the same" + tail;
  if (a > 0 && b >= 1.5 * a) return fmt::format("{:.1f}x less{}", b / a, tail);
  return fmt::format("{:.1f} % {}{}", std::abs(d), d < 0 ? "less" : "more", tail);
}

std::string row_line(size_t rank_label_width, const std::string& rank, const Evaluated& e, bool front) {
  const auto& c = e.candidate;
  const std::string room = headroom_text(e);
  return fmt::format(
      "{:<{}} {:>10} {:>6.1f}% {:>10} {:<9} {:>10.0f} {:>5.1f}% {:>9} {:>10} {:>6} {:>4} x {:<18} {}{}\n", rank,
      rank_label_width, format_duration(e.train_s), 100 * e.goodput, usd_or_no_price(e.cost_usd), pricing_label(e),
      e.tokens_per_s, 100 * e.mfu, format_bytes(e.memory_peak_bytes), room, c.gpus(), c.nodes, c.instance,
      models::plan::layout_text(c), front ? "  *" : "");
}

double objective(const Evaluated& e, models::plan::Objective o) {
  return o == models::plan::Objective::Cost ? e.cost_usd.value_or(1e300) : e.train_s;
}

}  // namespace

size_t ranks_within_model_error(const PlanOutput& p) {
  const auto& ranked = p.result.ranked;
  if (ranked.empty()) return 0;
  const double best = objective(ranked.front(), p.options.objective);
  size_t n = 1;
  while (n < ranked.size() && objective(ranked[n], p.options.objective) <= best * (1 + kStepModelError)) ++n;
  return n;
}

namespace {

// One line per instance asked for when there are several: what became of its candidates, so an
// instance with no row in the table says why instead of vanishing.
std::string instances_text(const models::plan::PlanResult& r, models::plan::Objective goal, size_t exact) {
  if (r.by_instance.size() < 2) return "";
  std::string out = "\ninstances (what became of each one's candidates):\n";
  for (const auto& [name, t] : r.by_instance) {
    std::string line = fmt::format("  {:<18} {:>6} candidates", name, t.candidates);
    if (t.candidates == 0) {
      line += ": no layout divides its nodes' GPUs and the global batch (--gpus, training.global_batch";
      line += models::hw::find_instance(name).hosts() > 1 ? ", --hosts-per-domain)" : ")";
    } else {
      size_t best = 0;
      for (size_t i = 0; i < r.ranked.size() && !best; ++i)
        if (r.ranked[i].candidate.instance == name) best = i + 1;
      // Every candidate in one of these (simulated ones not ranked missed the budget, the deadline
      // or the memory with NCCL's buffers), so the counts add up to the instance's candidates.
      const int64_t unranked = t.simulated - t.ranked - t.failed;
      std::string why;
      if (t.failed > 0) why += fmt::format("{} refused by the engine", t.failed);
      if (unranked > 0)
        why += fmt::format("{}{} over the budget, the deadline or memory with NCCL's buffers", why.empty() ? "" : ", ",
                           unranked);
      line += fmt::format(
          ": {} ranked{}, {} simulated{}, {} skipped (their {} bound cannot beat #{}), {}{} over GPU "
          "memory, {} refused by the layout checks",
          t.ranked, best ? fmt::format(" (best #{})", best) : std::string(), t.simulated,
          why.empty() ? std::string() : " (" + why + ")", t.skipped_by_bound,
          goal == models::plan::Objective::Cost ? "cost" : "time", std::max<size_t>(1, exact),
          t.infeasible_by_bound > 0
              ? fmt::format("{} cannot meet the constraints even at their bound, ", t.infeasible_by_bound)
              : std::string(),
          t.over_memory, t.refused);
    }
    out += line + "\n";
  }
  return out;
}

// The most frequent entries of a reason -> count map, "reason (n), reason (n)".
std::string most_frequent(const std::map<std::string, int64_t>& counts, size_t k) {
  std::vector<std::pair<std::string, int64_t>> v(counts.begin(), counts.end());
  std::stable_sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string out;
  for (size_t i = 0; i < std::min(k, v.size()); ++i)
    out += fmt::format("{}{} ({})", i ? "; " : "", v[i].first, v[i].second);
  return out;
}

// The caveats of the rows shown and the user's (caveat_lines), so a recommendation never reads
// more certain than the model is.
std::string caveats_text(const PlanOutput& p, size_t shown) {
  const std::string lines = caveat_lines(plan_row_caveats(p, shown), "every row above");
  return lines.empty()
             ? ""
             : "\ncaveats (where these rows' machines at their size are known to differ from the model):\n" + lines;
}

}  // namespace

LabelledCaveats plan_row_caveats(const PlanOutput& p, size_t rows) {
  LabelledCaveats out;
  for (size_t i = 0; i < rows && i < p.result.ranked.size(); ++i)
    out.push_back({"#" + std::to_string(i + 1), &p.result.ranked[i].caveats});
  if (p.included && p.included->error.empty()) out.push_back({"yours", &p.included->caveats});
  return out;
}

bool memory_tight(const Evaluated& e) {
  return e.memory_capacity_bytes > 0 &&
         e.memory_capacity_bytes - e.memory_peak_bytes < kTightMemoryShare * e.memory_capacity_bytes;
}

std::string headroom_text(const Evaluated& e) {
  return format_bytes(e.memory_capacity_bytes - e.memory_peak_bytes) + (memory_tight(e) ? "!" : "");
}

std::string format_duration(double s) {
  if (!std::isfinite(s)) return "never";  // an expected wall time of a run that does not finish
  if (s >= 2 * 86400) return fmt::format("{:.1f} d", s / 86400);
  if (s >= 2 * 3600) return fmt::format("{:.1f} h", s / 3600);
  if (s >= 120) return fmt::format("{:.1f} min", s / 60);  // 2.1 and 2.2 min apart, where "2 min" hid 4 %
  return format_seconds(s);
}

size_t included_rank(const PlanOutput& p) {
  if (!p.included || !p.included->meets(p.options)) return 0;
  const double mine = objective(*p.included, p.options.objective);
  size_t rank = 1;
  for (const auto& e : p.result.ranked)
    if (objective(e, p.options.objective) < mine) ++rank;
  return rank;
}

std::string plan_empty_reason(const PlanOutput& p) {
  const auto& r = p.result;
  if (r.space.considered == 0)
    return fmt::format(
        "no layout in the space: no number of whole nodes, nor a half, quarter or eighth of one node, has {} to {} "
        "GPUs (widen --gpus)",
        p.options.space.min_gpus, p.options.space.max_gpus);
  if (r.candidates == 0)
    return fmt::format(
        "no layout in the space: none of the {} combinations is left ({}) (widen --gpus, "
        "--micro-batches or --strategies, or change training.global_batch)",
        r.space.considered, most_frequent(r.space.dropped, 3));
  int64_t refused = 0;
  for (const auto& [k, v] : r.invalid) refused += v;
  if (r.in_shard == 0 && r.over_memory + refused == r.candidates) {
    std::map<std::string, int64_t> why;  // each key's first message, counted as the key's refusals
    for (const auto& [k, v] : r.invalid) why[r.invalid_why.count(k) ? r.invalid_why.at(k) : k] += v;
    return fmt::format(
        "no layout fits: of {} candidates, {} are refused by the layout checks{} and {} need more GPU "
        "memory than the GPU has even before NCCL's buffers (allow more GPUs, recompute=full or "
        "--strategies with sharding)",
        r.candidates, refused, refused ? " (" + most_frequent(why, 2) + ")" : std::string(), r.over_memory);
  }
  if (r.in_shard == 0) return "this shard holds no candidate (use fewer shards)";
  const bool none_finish =
      !r.rejected.empty() &&
      std::none_of(r.rejected.begin(), r.rejected.end(), [](const Evaluated& e) { return std::isfinite(e.train_s); });
  if (none_finish && r.infeasible_by_bound == 0)
    return fmt::format(
        "no layout is expected to finish: the {} simulated fail again, on average, before a restart and a "
        "checkpoint let them make progress at these failure rates (lower [cluster.params] failures.* or "
        "restart.time, or checkpoint faster: checkpoint.storage_bandwidth; docs/goodput.md)",
        r.rejected.size());
  if (!r.rejected.empty() || r.infeasible_by_bound > 0) {
    // The nearest simulated layout to each constraint: the fastest against a deadline, the
    // cheapest against a budget (when no candidate qualifies, the search finds them best first by
    // their bounds: search.cpp simulate_closest).
    std::string s = "no layout meets the constraints";
    if (p.options.deadline_s) s += fmt::format(" (deadline {})", format_duration(*p.options.deadline_s));
    if (p.options.budget_usd) s += fmt::format(" (budget {})", format_usd(*p.options.budget_usd));
    auto row = [](const Evaluated& e) {
      return fmt::format("{} and {} on {} GPUs, {} x {} ({})", format_duration(e.train_s), usd_or_dash(e.cost_usd),
                         e.candidate.gpus(), e.candidate.nodes, e.candidate.instance,
                         models::plan::layout_text(e.candidate));
    };
    const auto by = [&](auto less) -> const Evaluated& {
      return *std::min_element(r.rejected.begin(), r.rejected.end(), less);
    };
    if (!r.rejected.empty() && p.options.deadline_s)
      s += "; the fastest simulated takes " +
           row(by([](const Evaluated& a, const Evaluated& b) { return a.train_s < b.train_s; }));
    if (!r.rejected.empty() && p.options.budget_usd)
      s += "; the cheapest simulated takes " + row(by([](const Evaluated& a, const Evaluated& b) {
             return a.cost_usd.value_or(1e300) < b.cost_usd.value_or(1e300);
           }));
    return s + fmt::format(
                   "; {} more could not meet them even at their lower bound (raise --budget or --deadline, "
                   "or widen --gpus or --instances)",
                   r.infeasible_by_bound);
  }
  std::string s = fmt::format(
      "no simulated layout fits or runs: {} did not fit once NCCL's buffers were counted, {} were refused by the "
      "engine",
      r.did_not_fit, r.failed);
  if (!r.first_failure.empty()) s += fmt::format(" (e.g. {}: {})", r.first_failure_layout, r.first_failure);
  return s;
}

namespace {

// What the '!' of a headroom means; `first_roomy` > 1 names the first row shown with more.
std::string tight_footnote(size_t first_roomy) {
  return fmt::format(
      "(! under 5 % of the GPU's memory left: the caching allocator's fragmentation, not estimated, may leave no "
      "room, as commsim run's TIGHT says{})\n",
      first_roomy > 1 ? fmt::format("; the first row with more is #{}", first_roomy) : std::string());
}

// Rows of PyTorch's strategies beside DeepSpeed's or Megatron's: each keeps its framework's default
// precision (docs/scenario-format.md, training.optimizer), so their memory is not like for like.
std::string precision_text(const models::plan::PlanResult& r, size_t shown) {
  bool torch = false, master = false;
  for (size_t i = 0; i < std::min(shown, r.ranked.size()); ++i) {
    const std::string& st = r.ranked[i].candidate.strategy;
    (st == "fsdp" || st == "hsdp" || st == "ddp" ? torch : master) = true;
  }
  if (!torch || !master) return "";
  return "precision  each strategy at its framework's default: fsdp, hsdp and ddp train bf16 parameters with bf16 "
         "AdamW moments (8 B per parameter), zero1-3 keep an fp32 master copy and moments (16 B), megatron fp32 "
         "main grads too (18 B); training.param_dtype = \"fp32\" puts fsdp's at 16 B\n";
}

// Instances of one plan sold under different pricings: a Capacity Block's rate (a reservation paid
// up front, usually below the machine's on-demand price) beside a per-second one (on demand, or a
// given figure), so a row's $ against another's is partly the pricing, not the machine.
std::string pricing_text(const models::plan::PlanResult& r) {
  const std::string block = models::hw::pricing_model_name(models::hw::PricingModel::CapacityBlock);
  std::map<std::string, std::vector<std::string>> by;  // pricing -> instances
  for (const auto& [instance, price] : r.node_prices) by[price.pricing].push_back(instance);
  if (!by.count(block) || by.size() < 2) return "";
  std::string list;
  for (const auto& [pricing, names] : by)
    list += fmt::format("{}{} {}", list.empty() ? "" : "; ", pricing, fmt::join(names, ", "));
  return "pricing    not like for like (" + list +
         "): a Capacity Block's rate is a reservation's, paid up front, usually below the same machine's on-demand "
         "price (the prices' notes give some), so part of a $ difference between these instances is the pricing; "
         "give every instance's price under one pricing (--prices FILE) to compare the machines\n";
}

}  // namespace

bool ranks_exact(const PlanOutput& p) { return p.options.exhaustive || p.result.skipped_by_bound == 0; }

bool front_exact(const PlanOutput& p) { return p.options.pareto_exact || ranks_exact(p); }

std::string plan_text(const PlanOutput& p) {
  const auto& r = p.result;
  std::string out;
  out += fmt::format("commsim {} plan: {}\n", commsim_version(), p.scenario);
  out += fmt::format("target     {:.4g} tokens = {:.0f} steps of {:.0f} tokens (training.global_batch x seq)\n",
                     r.steps * r.tokens_per_step, r.steps, r.tokens_per_step);
  if (const auto& b = p.implied_batch)
    out += fmt::format(
        "batch      {} sequences per step, the scenario's own (dp {} x micro_batch {} x {} micro-batches), kept for "
        "every layout: training.global_batch sets another\n",
        b->global_batch, b->dp, b->micro_batch, b->micro_batches);
  std::string goal = p.options.objective == models::plan::Objective::Cost ? "cheapest" : "fastest";
  if (p.options.budget_usd) goal += fmt::format(", budget {}", format_usd(*p.options.budget_usd));
  if (p.options.deadline_s) goal += fmt::format(", deadline {}", format_duration(*p.options.deadline_s));
  out += "objective  " + goal + "\n";
  out +=
      "time       expected: the steps, checkpoints, work lost to failures and restarts at each layout's GPU count "
      "(goodput: the steps' share); cost over that time\n";
  int64_t refused = 0;
  for (const auto& [k, v] : r.invalid) refused += v;
  out += fmt::format(
      "space      {} candidates ({} combinations); {} refused by the layout checks, {} over GPU memory (lower "
      "bound){}\n",
      r.candidates, r.space.considered, refused, r.over_memory,
      p.options.shard_count > 1 ? fmt::format(", {} in shard {}/{}", r.in_shard, p.options.shard_index,
                                              p.options.shard_count)
                                : std::string());
  // What the space holds besides the hardware and the parallel degrees: "exact" and every rank
  // are within it (a larger micro-batch may fit and win: --micro-batches).
  const auto& sp = p.options.space;
  const auto& tried = r.space.gpus;
  const std::string gpus = tried.empty() ? std::string("none")
                           : tried.size() <= 8
                               ? fmt::format("{}", fmt::join(tried, ","))
                               : fmt::format("{} counts from {} to {}", tried.size(), *tried.begin(), *tried.rbegin());
  out += fmt::format(
      "           GPUs {}; pods per node {}; micro-batches {}; recompute {}; cp {}; pipeline stages up to {}, virtual "
      "up "
      "to {}\n",
      gpus,
      r.space.pods_per_node.empty() ? std::string("none") : fmt::format("{}", fmt::join(r.space.pods_per_node, ",")),
      fmt::join(sp.micro_batches, ","), fmt::join(sp.recompute, ","), fmt::join(sp.cp, ","), sp.max_pp, sp.max_vp);
  out += fmt::format(
      "search     {} simulated best first, {} skipped (their lower bound cannot beat the best), {} cannot meet the "
      "constraints even at their bound; {} did not fit with NCCL's buffers, {} refused by the engine\n",
      r.simulated, r.skipped_by_bound, r.infeasible_by_bound, r.did_not_fit, r.failed);
  if (!r.first_failure.empty()) out += fmt::format("refused    e.g. {}: {}\n", r.first_failure_layout, r.first_failure);
  if (p.options.audit)
    out += fmt::format("audit      {} skipped layouts simulated: {} beat the winner, {} steps below their bound{}\n",
                       r.audited, r.audit_beats_winner.size(), r.audit_bound_violations.size(),
                       r.audit_beats_winner.empty() && r.audit_bound_violations.empty()
                           ? " (#1 exact; the audit checks #1 only, --pareto-exact ranks every layout)"
                           : " (NOT EXACT)");
  out += "\n";
  out += fmt::format("{:<4} {:>10} {:>7} {:>10} {:<9} {:>10} {:>6} {:>9} {:>10} {:>6} {:>4}   {:<18} {}\n", "rank",
                     "time", "goodput", "cost", "pricing", "tokens/s", "MFU", "mem peak", "headroom", "GPUs", "nodes",
                     "instance", "layout (* Pareto front)");
  std::vector<bool> on_front(r.ranked.size(), false);
  for (size_t i : r.pareto) on_front[i] = true;
  const size_t shown = std::min(p.top, r.ranked.size());
  for (size_t i = 0; i < shown; ++i) out += row_line(4, std::to_string(i + 1), r.ranked[i], on_front[i]);
  if (r.ranked.size() > shown) out += fmt::format("... {} more ranked (--top N, --json or --csv for all)\n",
                                                  r.ranked.size() - shown);
  size_t tight_rows = 0, first_roomy = 0;
  for (size_t i = 0; i < shown; ++i) {
    if (memory_tight(r.ranked[i]))
      ++tight_rows;
    else if (!first_roomy)
      first_roomy = i + 1;
  }
  if (tight_rows) out += tight_footnote(first_roomy);
  const size_t exact = std::max<size_t>(1, p.options.exact_rows);
  if (!ranks_exact(p) && r.ranked.size() > exact)
    out += fmt::format(
        "({} exact: no layout the search skipped can beat them; the ranks after order the layouts simulated, and "
        "--audit simulates the rest)\n",
        exact == 1 ? std::string("#1 is") : fmt::format("ranks 1-{} are", exact));
  if (p.included) {
    const size_t rank = included_rank(p);
    if (!p.included->error.empty())
      out += fmt::format("yours: {} does not run: {}\n", p.included_file, p.included->error);
    else
      out += row_line(4, "you", *p.included, false);
    if (p.included->error.empty()) {
      out += fmt::format("yours      {} ({}): ", p.included_file, models::plan::layout_text(p.included->candidate));
      if (!p.included->fits)
        out += "does not fit in GPU memory\n";
      else if (!std::isfinite(p.included->train_s))
        out += "is not expected to finish at these failure rates (its goodput is 0)\n";
      else if (!rank && p.options.budget_usd && !p.included->cost_usd)
        out += "has no price, so it cannot be held to the budget (give --prices or [cluster] price_per_hour)\n";
      else if (!rank)
        out += "misses the budget or the deadline\n";
      else if (!r.ranked.empty())
        out += fmt::format("would rank {} of {}{}; the winner takes {} and costs {}\n", rank, r.ranked.size() + 1,
                           ranks_exact(p) || rank <= std::max<size_t>(1, p.options.exact_rows)
                               ? ""
                               : " simulated (layouts the search skipped may rank above)",
                           compared(r.ranked[0].train_s, p.included->train_s, "time"),
                           p.included->cost_usd && r.ranked[0].cost_usd
                               ? compared(*r.ranked[0].cost_usd, *p.included->cost_usd, "")
                               : std::string("- (no price)"));
    }
  }
  out += caveats_text(p, shown);
  if (p.default_precision) out += precision_text(r, shown);
  out += pricing_text(r);
  out += instances_text(r, p.options.objective, p.options.exact_rows);
  if (!r.pareto.empty()) {
    out += "\n" + front_heading(p) + ":\n";
    const std::vector<std::string> remarks = front_remarks(p);
    bool front_tight = false;
    for (size_t k = 0; k < r.pareto.size(); ++k) {
      const Evaluated& e = r.ranked[r.pareto[k]];
      front_tight = front_tight || memory_tight(e);
      out += fmt::format("  #{:<3} {:>10} {:>10} {:<9} {:>10} headroom {:>5} GPUs  {:>4} x {:<18} {}{}\n",
                         r.pareto[k] + 1, format_duration(e.train_s), usd_or_dash(e.cost_usd), pricing_label(e),
                         headroom_text(e), e.candidate.gpus(), e.candidate.nodes, e.candidate.instance,
                         models::plan::layout_text(e.candidate), remarks[k].empty() ? "" : "  (" + remarks[k] + ")");
    }
    // A front row the table does not show carries the table's mark: say what it means here too.
    if (front_tight && !tight_rows) out += tight_footnote(0);
    for (const std::string& line : not_searched_lines(p)) out += "  " + line + "\n";
  } else if (!r.ranked.empty() && !r.missing_prices.empty()) {
    // No row has a price: time against cost has no front, and the table's * marks nothing.
    out += fmt::format("\nPareto front: none, no row has a price ({}: --prices FILE or [cluster] price_per_hour)\n",
                       fmt::join(r.missing_prices, ", "));
  }
  if (const WhyFirstWins why = why_first_wins(p); !why.heading.empty()) {
    out += "\n" + why.heading + "\n";
    for (const WhyRow& row : why.rows)
      out += row.difference.empty()
                 ? fmt::format("  {:<20} {:>10} {:>10}\n", row.what, row.first, row.second)
                 : fmt::format("  {:<20} {:>10} {:>10}  {:>11}\n", row.what, row.first, row.second, row.difference);
    // A lead smaller than the model's error is not one: say so, where a user would read a winner.
    if (const std::string tie = near_tie_text(p); !tie.empty()) out += "  " + tie + "\n";
  }
  if (!r.node_prices.empty()) {
    const bool part_node = std::any_of(r.ranked.begin(), r.ranked.end(), [](const Evaluated& e) {
      return e.candidate.node_gpus > e.candidate.gpus_per_node;
    });
    out += fmt::format(
        "\nprices (one node-hour{}; on-demand: list price; capacity block: AWS EC2 Capacity Blocks' hourly rate, "
        "paid up front for the block):\n",
        part_node ? ", paid whole by a row on part of a node (\"4 of 8 GPUs per node\") unless sold per VM" : "");
    for (const auto& [instance, price] : r.node_prices) {
      // What the catalog knows of its own figure (one source, approximate) and how it is sold.
      std::string known;
      if (price.unit_gpus > 0)
        known += fmt::format(" (sold per VM of {} GPUs: a row on part of the node pays the VMs its GPUs need)",
                             price.unit_gpus);
      if (const auto* entry = models::hw::find_price(instance);
          entry && price.source.rfind("catalog:", 0) == 0 && !entry->note.empty())
        known += " [" + entry->note + "]";
      out += fmt::format("  {:<18} {:>10}  {:<14} {}{}\n", instance, format_usd(price.usd_per_hour), price.pricing,
                         price.source, known);
    }
  }
  if (!r.missing_prices.empty()) {
    out += "\nno price for (their rows show \"no price\"; give [cluster] price_per_hour or --prices FILE):\n";
    for (const auto& m : r.missing_prices) {
      const auto* u = models::hw::find_unpriced(m);
      out += fmt::format("  {}{}\n", m, u ? ": " + u->why : std::string());
    }
  }
  return out;
}

}  // namespace scenarios
