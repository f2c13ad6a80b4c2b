// The planner's best-first search (search.hpp; the argument in README.md).
#include "models/plan/search.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <mutex>
#include <thread>

#include "models/error.hpp"
#include "models/hw/gpu_memory.hpp"
#include "models/hw/instance.hpp"
#include "models/model/model_shape.hpp"
#include "models/plan/bounds.hpp"
#include "models/run/cost.hpp"
#include "models/run/goodput_fill.hpp"
#include "models/run/run.hpp"

namespace models::plan {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// The simulator rounds each op to whole picoseconds, so a step may come out a few ps per op below
// the same sum in doubles: bounds are trusted to 1e-6 of their value (10 us of a 10 s step).
constexpr double kBoundSlack = 1 - 1e-6;

// The first words of a refusal, so alike refusals count together ("pp = 4 does not divide ..."
// -> the key it names).
std::string refusal_kind(const SpecError& e) { return e.key(); }

struct Work {
  Candidate c;
  ScenarioSpec spec;
  double bound_s = 0, memory_bound = 0;
  std::optional<double> usd_per_hour;
  double bound_obj = 0;  // the objective's lower bound
  bool done = false;
  Evaluated result;
};

// One candidate simulated, with the bounds the search had for it beside the result.
Evaluated simulate(const Work& w, double steps) {
  Evaluated e = evaluate_scenario(w.spec, w.c, steps);
  e.step_bound_s = w.bound_s;
  e.memory_bound_bytes = w.memory_bound;
  return e;
}

template <class F>
void parallel_for(size_t n, unsigned jobs, F&& body) {
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t k; (k = next.fetch_add(1)) < n;) body(k);
  };
  std::vector<std::thread> threads;
  const size_t count = std::min<size_t>(std::max(1u, jobs), std::max<size_t>(n, 1));
  for (size_t t = 1; t < count; ++t) threads.emplace_back(worker);
  worker();
  for (auto& t : threads) t.join();
}

double objective_of(const Evaluated& e, Objective o) {
  if (o == Objective::Cost) return e.cost_usd ? *e.cost_usd : kInf;
  return e.train_s;
}

}  // namespace

bool Evaluated::meets(const PlanOptions& o) const {
  if (!simulated || !fits || !error.empty() || !std::isfinite(train_s)) return false;
  if (o.budget_usd && (!cost_usd || *cost_usd > *o.budget_usd)) return false;
  if (o.deadline_s && train_s > *o.deadline_s) return false;
  return true;
}

double target_steps(const ScenarioSpec& base, double tokens_per_step) {
  if (base.training.tokens > 0) return double(steps_for_tokens(base.training.tokens, tokens_per_step));
  return std::max(1, base.training.steps);
}

Evaluated evaluate_scenario(const ScenarioSpec& spec, const Candidate& described, std::optional<double> steps) {
  Evaluated e;
  e.candidate = described;
  e.simulated = true;
  RunOptions options;
  options.timeline = false;
  try {
    const RunResult r = run_scenario(spec, options);
    e.fits = r.fits();
    e.step_s = r.step_time_s;
    e.work_s = r.step_time_s * steps.value_or(double(r.steps));
    e.train_s = e.work_s;
    if (r.goodput.estimated) {  // the run's failure rates and checkpoint, over the plan's work
      const goodput::GoodputEstimate w = goodput_over(r.goodput, e.work_s, r.step_time_s);
      e.train_s = w.wall_s;
      e.goodput = w.goodput;
    }
    e.tokens_per_s = r.throughput.tokens_per_s;
    e.mfu = r.throughput.mfu;
    e.memory_peak_bytes = r.memory.peak_bytes;
    e.memory_capacity_bytes = r.memory.capacity_bytes;
    e.breakdown = r.step_breakdown;
    e.caveats = r.caveats;
    if (r.cost.known) {
      e.usd_per_hour = r.cost.usd_per_hour;
      e.cost_usd = usd_for_seconds(r.cost, e.train_s);
      e.work_cost_usd = usd_for_seconds(r.cost, e.work_s);
      e.pricing = r.cost.pricing;
    }
  } catch (const SpecError& err) {
    e.error = err.key() + ": " + err.what();
  } catch (const std::exception& err) {
    e.error = std::string("internal error: ") + err.what();
  }
  return e;
}

std::vector<size_t> pareto_front(const std::vector<Evaluated>& rows) {
  std::vector<size_t> idx;
  for (size_t i = 0; i < rows.size(); ++i)
    if (rows[i].cost_usd) idx.push_back(i);
  std::sort(idx.begin(), idx.end(), [&](size_t a, size_t b) {
    if (rows[a].train_s != rows[b].train_s) return rows[a].train_s < rows[b].train_s;
    return *rows[a].cost_usd < *rows[b].cost_usd;
  });
  std::vector<size_t> front;
  double cheapest = kInf;
  for (size_t i : idx)  // fastest first: a row is on the front when cheaper than every faster one
    if (*rows[i].cost_usd < cheapest) {
      front.push_back(i);
      cheapest = *rows[i].cost_usd;
    }
  return front;
}

void rank(std::vector<Evaluated> all, const PlanOptions& o, PlanResult& out) {
  for (auto& e : all) {
    if (!e.simulated) continue;
    if (!e.error.empty()) {
      // The first refusal (by its layout, whatever order the threads finished in) says why.
      const std::string where = layout_text(e.candidate) + " on " + e.candidate.instance;
      if (out.failed++ == 0 || where < out.first_failure_layout) {
        out.first_failure_layout = where;
        out.first_failure = e.error;
      }
    } else if (!e.fits) {
      ++out.did_not_fit;
    } else if (e.meets(o)) {
      out.ranked.push_back(std::move(e));
    } else {
      out.rejected.push_back(std::move(e));
    }
  }
  auto better = [&](const Evaluated& a, const Evaluated& b) {
    const double oa = objective_of(a, o.objective), ob = objective_of(b, o.objective);
    if (oa != ob) return oa < ob;
    const double ca = a.cost_usd.value_or(kInf), cb = b.cost_usd.value_or(kInf);
    if (o.objective == Objective::Time && ca != cb) return ca < cb;
    if (o.objective == Objective::Cost && a.train_s != b.train_s) return a.train_s < b.train_s;
    if (a.candidate.gpus() != b.candidate.gpus()) return a.candidate.gpus() < b.candidate.gpus();
    return layout_text(a.candidate) < layout_text(b.candidate);
  };
  std::sort(out.ranked.begin(), out.ranked.end(), better);
  std::sort(out.rejected.begin(), out.rejected.end(), better);
  out.pareto = pareto_front(out.ranked);
  for (const auto& e : out.ranked) ++out.by_instance[e.candidate.instance].ranked;
}

namespace {

// Nothing simulated met the budget or the deadline, and the rest cannot even at their bounds: the
// fastest layout (for a deadline) and the cheapest (for a budget) are found anyway, best first by
// their bounds as the search itself goes, stopping once no bound can beat the best simulated, so
// that the answer names the nearest layouts exactly (as far as the bounds hold, which --audit
// checks), not only that none qualifies.
void simulate_closest(const std::vector<Work*>& mine, std::vector<char>& skipped, const PlanOptions& o, double steps,
                      PlanResult& out) {
  // key: the objective's lower bound of a candidate (kInf: it has none), value: a simulated one's.
  auto best_first = [&](auto key, auto value) {
    std::vector<size_t> order;
    for (size_t k = 0; k < mine.size(); ++k)
      if (key(*mine[k]) < kInf) order.push_back(k);
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return key(*mine[a]) < key(*mine[b]); });
    double best = kInf;
    for (size_t at : order) {
      Work& w = *mine[at];
      if (key(w) * kBoundSlack > best) break;
      if (!w.done) {
        w.result = simulate(w, steps);
        w.done = true;
        if (skipped[at] == 2) --out.infeasible_by_bound;
        skipped[at] = 0;
      }
      if (w.result.simulated && w.result.fits && w.result.error.empty()) best = std::min(best, value(w.result));
    }
  };
  if (o.deadline_s)
    best_first([&](const Work& w) { return w.bound_s * steps; }, [](const Evaluated& e) { return e.train_s; });
  if (o.budget_usd)
    best_first([&](const Work& w) { return w.usd_per_hour ? w.bound_s * steps * *w.usd_per_hour / 3600 : kInf; },
               [](const Evaluated& e) { return e.cost_usd.value_or(kInf); });
}

}  // namespace

PlanResult plan_layouts(const ScenarioSpec& base, const PlanOptions& o) {
  if (!base.model || base.collective)
    throw SpecError("model", "the planner places a training step (expected a [model] table, not a bare collective)");
  if (!base.jobs.empty()) throw SpecError("jobs", "the planner places one job (expected no [[jobs]])");
  if (!base.cluster.groups.empty())
    throw SpecError("cluster.groups", "the planner picks one instance per candidate (expected cluster.instance, and "
                                      "--instances for several)");
  const model::ModelShape shape = model::resolve_model(*base.model);
  PlanResult out;
  PlanProgressSink progress(o.progress, o.objective == Objective::Cost);
  progress.stage(PlanProgress::Stage::Enumerating, 0);
  std::vector<Candidate> cands = enumerate_space(base, shape, o.space, &out.space);
  out.candidates = int64_t(cands.size());
  out.tokens_per_step = double(base.training.global_batch) * shape.seq;
  out.steps = target_steps(base, out.tokens_per_step);

  // Prices per instance: needed by a budget or the cost objective.
  std::map<std::string, std::optional<double>> node_usd;
  for (const auto& c : cands)
    if (!node_usd.count(c.instance)) {
      ScenarioSpec s = base;
      drop_other_instance_price(s, c.instance);
      const auto p = node_price(s, c.instance);
      node_usd[c.instance] = p ? std::optional<double>(p->usd_per_hour) : std::nullopt;
      if (!p) out.missing_prices.push_back(c.instance);
      else out.node_prices[c.instance] = *p;
    }
  if (!out.missing_prices.empty() && (o.budget_usd || o.objective == Objective::Cost))
    throw SpecError(out.missing_prices.front() == base.cluster.instance ? "cluster.instance" : "plan.instances",
                    "no price for " + out.missing_prices.front() +
                        (o.budget_usd ? ", and a budget needs one" : ", and the cost objective needs one") +
                        " (expected --prices FILE with [prices.\"" + out.missing_prices.front() + "\"] usd_per_hour" +
                        (out.missing_prices.front() == base.cluster.instance
                             ? std::string(", or [cluster] price_per_hour")
                             : std::string(" ([cluster] price_per_hour prices the scenario's own instance only)")) +
                        "; commsim instances lists the known ones)");

  // Layout checks and bounds, every candidate (cheap: no World is built).
  std::vector<Work> work(cands.size());
  std::vector<std::string> invalid(cands.size()), invalid_why(cands.size());
  progress.stage(PlanProgress::Stage::Bounding, int64_t(cands.size()));
  parallel_for(cands.size(), o.jobs, [&](size_t k) {
    Work& w = work[k];
    w.c = cands[k];
    w.spec = apply_candidate(base, w.c);
    try {
      const StepBound b =
          step_lower_bound(w.spec, shape, w.c.gpus_per_node, o.tight_bound, o.moe_comm_bound, o.dp_comm_bound);
      w.bound_s = b.step_s;
      w.memory_bound = memory_lower_bound(w.spec, shape, w.c.gpus_per_node);
    } catch (const SpecError& e) {
      invalid[k] = refusal_kind(e);
      invalid_why[k] = e.what();
    }
    progress.step();
  });
  std::vector<Work*> live;
  const double steps = out.steps;
  for (const auto& [name, n] : out.space.per_instance) out.by_instance[name].candidates = n;
  for (size_t k = 0; k < work.size(); ++k) {
    InstanceTally& tally = out.by_instance[work[k].c.instance];
    if (!invalid[k].empty()) {
      ++out.invalid[invalid[k]];
      out.invalid_why.emplace(invalid[k], invalid_why[k]);
      ++tally.refused;
      continue;
    }
    Work& w = work[k];
    // What a process can allocate, as the run's own memory check takes it (not the datasheet's
    // figure: 80 GB on an H100 is 80 GiB, 85.9e9 bytes, of which 85.0e9 are usable).
    const double capacity = hw::usable_memory(hw::find_instance(w.c.instance).gpu).bytes;
    if (w.memory_bound > capacity) {
      ++out.over_memory;
      ++tally.over_memory;
      continue;
    }
    live.push_back(&w);
  }
  // This shard's share: every shard_count-th live candidate (alike mixes of sizes in every shard).
  std::vector<Work*> mine;
  for (size_t k = 0; k < live.size(); ++k)
    if (k % std::max<size_t>(1, o.shard_count) == o.shard_index) mine.push_back(live[k]);
  out.in_shard = int64_t(mine.size());

  for (Work* w : mine) {
    w->usd_per_hour = node_usd[w->c.instance];
    // What the row pays per node: the whole node, or on a node sold in units (VMs of an NVLink
    // domain) the units its GPUs need, as the run's cost (cost.hpp) bills it.
    if (w->usd_per_hour) {
      const auto price = out.node_prices.find(w->c.instance);
      const int node_gpus = w->c.node_gpus > 0 ? w->c.node_gpus : w->c.gpus_per_node;
      const double share = price == out.node_prices.end() || node_gpus <= 0
                               ? 1.0
                               : double(billed_gpus_per_node(price->second, node_gpus, w->c.gpus_per_node)) / node_gpus;
      *w->usd_per_hour *= w->c.nodes * share;
    }
    const double t = w->bound_s * steps;
    w->bound_obj = o.objective == Objective::Cost ? (w->usd_per_hour ? t * *w->usd_per_hour / 3600 : kInf) : t;
  }
  std::stable_sort(mine.begin(), mine.end(), [](const Work* a, const Work* b) { return a->bound_obj < b->bound_obj; });

  // Best first, with a sequential search's answer whatever the threads. In bound order, a
  // candidate is skipped when its bound cannot beat the exact_rows-th best layout simulated before
  // it (so no skipped layout can beat a row the table shows), and, with --pareto-exact, only when a
  // layout simulated before it is also both faster and cheaper than its bounds. Threads simulate a
  // window of the next candidates not yet skippable; their results are then taken in order, and
  // one that the search would have skipped by then is dropped. Skipping only grows as layouts are
  // simulated, so a candidate skippable early stays so, and the layouts simulated are the same on
  // any number of threads.
  const size_t keep = std::max<size_t>(1, o.exact_rows);
  std::vector<double> kept;  // the best objectives taken so far that meet the constraints, at most `keep`
  std::vector<std::pair<double, double>> front;  // (time, cost) of taken candidates that meet the constraints
  std::vector<char> skipped(mine.size(), 0);
  std::vector<double> skipped_cost(mine.size(), 0);  // a skipped layout's cost bound (InstanceTally)
  int64_t infeasible = 0;
  const auto time_lb = [&](const Work& w) { return w.bound_s * steps; };
  const auto cost_lb = [&](const Work& w) {
    return w.usd_per_hour ? std::optional<double>(time_lb(w) * *w.usd_per_hour / 3600) : std::nullopt;
  };
  const auto cannot_meet = [&](const Work& w) {
    const std::optional<double> c_lb = cost_lb(w);
    return (o.deadline_s && time_lb(w) * kBoundSlack > *o.deadline_s) ||
           (o.budget_usd && c_lb && *c_lb * kBoundSlack > *o.budget_usd);
  };
  const auto bound_skips = [&](const Work& w) {
    if (o.exhaustive) return false;
    const double threshold = kept.size() < keep ? kInf : kept[keep - 1];
    if (!o.pareto_exact) return w.bound_obj * kBoundSlack > threshold;
    // --pareto-exact: also the layouts that may join the front, but never one that may join the
    // leading ranks.
    if (w.bound_obj * kBoundSlack <= threshold) return false;
    const std::optional<double> c_lb = cost_lb(w);
    if (!c_lb) return true;
    for (const auto& [t, c] : front)
      if (t <= time_lb(w) * kBoundSlack && c <= *c_lb * kBoundSlack) return true;
    return false;
  };
  const auto skip = [&](size_t k) {
    const Work& w = *mine[k];
    skipped[k] = 1;
    // A Capacity Block bills whole windows: its bound is the windows the time bound needs.
    const auto price = out.node_prices.find(w.c.instance);
    if (w.usd_per_hour && price != out.node_prices.end())
      skipped_cost[k] = billed_seconds(price->second.pricing, time_lb(w)) * *w.usd_per_hour / 3600;
  };
  const size_t window_size = 2 * std::max<size_t>(1, o.jobs);
  std::vector<size_t> window;
  std::vector<Evaluated> results;
  int64_t runs = 0;  // simulations run (progress)
  progress.stage(PlanProgress::Stage::Simulating, int64_t(mine.size()));
  for (size_t next = 0; next < mine.size();) {
    {  // still able to win: those left whose bound is not above the threshold (mine is in bound order)
      const double threshold = kept.size() < keep ? kInf : kept[keep - 1];
      const auto left = std::upper_bound(mine.begin() + ptrdiff_t(next), mine.end(), threshold / kBoundSlack,
                                         [](double t, const Work* w) { return t < w->bound_obj; });
      progress.set(runs, runs + (left - (mine.begin() + ptrdiff_t(next))), kept.empty() ? kInf : kept.front());
    }
    window.clear();
    for (; next < mine.size() && window.size() < window_size; ++next) {
      if (cannot_meet(*mine[next])) {
        ++infeasible;
        skipped[next] = 2;  // cannot meet the constraints: the audit checks these too
      } else if (bound_skips(*mine[next])) {
        skip(next);
      } else {
        window.push_back(next);
      }
    }
    results.assign(window.size(), Evaluated{});
    parallel_for(window.size(), o.jobs, [&](size_t i) {
      results[i] = simulate(*mine[window[i]], steps);
      progress.step();
    });
    runs += int64_t(window.size());
    for (size_t i = 0; i < window.size(); ++i) {
      const size_t k = window[i];
      if (bound_skips(*mine[k])) {  // a layout simulated earlier in the window made it skippable
        skip(k);
        continue;
      }
      Work& w = *mine[k];
      w.result = std::move(results[i]);
      w.done = true;
      if (!w.result.meets(o)) continue;
      const double obj = objective_of(w.result, o.objective);
      kept.insert(std::upper_bound(kept.begin(), kept.end(), obj), obj);
      if (kept.size() > keep) kept.pop_back();
      if (w.result.cost_usd) front.emplace_back(w.result.train_s, *w.result.cost_usd);
    }
  }
  const double best = kept.empty() ? kInf : kept.front();
  out.infeasible_by_bound = infeasible;
  if (best == kInf) simulate_closest(mine, skipped, o, steps, out);
  std::vector<Evaluated> all;
  for (Work* w : mine)
    if (w->done) {
      ++out.simulated;
      if (w->result.simulated && w->result.error.empty() && w->result.step_s * (1 + 1e-6) < w->bound_s)
        out.audit_bound_violations.push_back(w->result);
      all.push_back(w->result);
    }
  for (size_t k = 0; k < mine.size(); ++k) {
    InstanceTally& tally = out.by_instance[mine[k]->c.instance];
    tally.simulated += mine[k]->done;
    tally.failed += mine[k]->done && !mine[k]->result.error.empty();
    tally.skipped_by_bound += skipped[k] == 1;
    tally.infeasible_by_bound += skipped[k] == 2;
    if (skipped_cost[k] > 0 && (tally.skipped_cost_bound_usd == 0 || skipped_cost[k] < tally.skipped_cost_bound_usd))
      tally.skipped_cost_bound_usd = skipped_cost[k];
  }
  for (char s : skipped) out.skipped_by_bound += s == 1;
  rank(std::move(all), o, out);

  if (o.audit) {  // every skipped candidate simulated: none may beat the winner
    std::vector<size_t> todo;
    for (size_t k = 0; k < mine.size(); ++k)
      if (skipped[k]) todo.push_back(k);
    std::vector<Evaluated> audited(todo.size());
    progress.stage(PlanProgress::Stage::Auditing, int64_t(todo.size()));
    parallel_for(todo.size(), o.jobs, [&](size_t i) {
      Work& w = *mine[todo[i]];
      audited[i] = simulate(w, steps);
      progress.step();
    });
    out.audited = int64_t(audited.size());
    for (const auto& e : audited) {
      if (e.error.empty() && e.step_s * (1 + 1e-6) < e.step_bound_s) out.audit_bound_violations.push_back(e);
      if (!out.ranked.empty() && e.meets(o) &&
          objective_of(e, o.objective) < objective_of(out.ranked.front(), o.objective))
        out.audit_beats_winner.push_back(e);
    }
  }
  return out;
}

}  // namespace models::plan
