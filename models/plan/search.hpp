#pragma once
// The planner's search: the space (space.hpp) filtered by the layout's own checks and the memory
// lower bound (bounds.hpp), ordered by the lower bound of the objective, and simulated best first
// with run_scenario (the normal engine, as `commsim run` would run the candidate's scenario) on
// `jobs` threads until no candidate left can beat the best found (exactness argument: README.md).
//   work           steps x step_s, steps = ceil(training.tokens / (global_batch x seq)), else
//                  training.steps (the same for every candidate: the global batch is fixed);
//   time to train  the expected wall time of that work with the candidate's failures, checkpoints
//                  and restarts (models/goodput: Daly's law at the candidate's GPU and host
//                  counts, as `commsim run` reports it), never less than the work;
//   cost           time to train x the cluster's $/hour / 3600 (models/run/cost.hpp).
// Objective time: the fastest candidate whose cost <= budget and time <= deadline; cost: the
// cheapest under the same constraints. A candidate is skipped (never simulated) only when its
// lower bound already breaks a constraint or cannot beat the best found so far (the bound is the
// work's, and the wall time is never below the work, so it bounds the time to train too):
//   time objective:  steps x bound_s > best time;   cost objective: bound cost > best cost.
// With pareto_exact, only when a simulated candidate is at least as fast and as cheap as its
// bounds (so the time/cost Pareto front is exact too). audit simulates every skipped candidate
// afterwards and reports any that beats the winner or whose step is below its bound.
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "models/plan/candidate.hpp"
#include "models/plan/progress.hpp"
#include "models/plan/space.hpp"
#include "models/result.hpp"
#include "models/spec.hpp"

namespace models::plan {

enum class Objective { Time, Cost };

struct PlanOptions {
  SpaceOptions space;
  Objective objective = Objective::Time;
  std::optional<double> budget_usd;  // the whole training run
  std::optional<double> deadline_s;  // time to train
  unsigned jobs = 1;
  size_t shard_index = 0, shard_count = 1;  // this shard: candidates k with k % count == index
  bool pareto_exact = false;
  bool audit = false;
  bool exhaustive = false;  // simulate every candidate that fits (the test of the bounds)
  // The leading ranks made exact: a candidate is skipped only when its bound cannot beat the
  // exact_rows-th best layout simulated, so no skipped layout belongs among them (the rows a
  // table shows, the scenarios --emit writes).
  size_t exact_rows = 1;
  // Off: the step bound counts compute alone at unstretched rates, without the power limit's
  // stretch and the tensor-parallel collectives the compute stream waits for (bounds.hpp); for
  // bench_plan's before/after comparison. Same winner, more candidates simulated.
  bool tight_bound = true;
  // Off: an MoE layer's blocking all-to-alls are left out of the step bound (bounds.hpp), as before
  // they were counted; for bench_plan's before/after comparison.
  bool moe_comm_bound = true;
  // Off: the data-parallel communication's bound (dp_comm_bound.hpp) is left out of the step
  // bound, as before it was counted; for bench_plan's before/after comparison.
  bool dp_comm_bound = true;
  // Where the search stands (progress.hpp), called from one thread at a time; empty: none.
  PlanProgressFn progress;
};

// One candidate as the search saw it.
struct Evaluated {
  Candidate candidate;
  double step_bound_s = 0, memory_bound_bytes = 0;
  bool simulated = false, fits = false;
  std::string error;  // the run's error (a layout the engine refused)
  double step_s = 0, tokens_per_s = 0, mfu = 0;
  double work_s = 0;   // failure-free: steps x step_s
  double train_s = 0;  // expected wall time: work_s with failures, checkpoints, restarts (infinite: never finishes)
  double goodput = 1;  // work_s / train_s
  double memory_peak_bytes = 0, memory_capacity_bytes = 0;
  std::optional<double> usd_per_hour, cost_usd;  // cost_usd: of train_s; nullopt: no price for the instance
  std::optional<double> work_cost_usd;           // of work_s
  std::string pricing;  // how the price is sold (CostResult::pricing: on-demand, capacity block, given); "" without
  RankBreakdown breakdown;                       // the mean rank's step
  std::vector<std::string> caveats;        // RunResult::caveats: where the machine at this size is known to differ
  bool meets(const PlanOptions& o) const;  // fits, finishes, cost <= budget, time <= deadline
};

// What became of one instance's candidates (an instance with no row says why).
struct InstanceTally {
  int64_t candidates = 0, refused = 0, over_memory = 0, simulated = 0, skipped_by_bound = 0, ranked = 0;
  int64_t infeasible_by_bound = 0;  // not simulated: over the budget or the deadline even at their bound
  int64_t failed = 0;               // simulated, and the engine refused the layout (Evaluated::error)
  // The lowest cost bound (time bound x price) of its layouts skipped by the time bound, in $; 0:
  // none skipped or no price. A skip on time says nothing of cost: where this is below the
  // cheapest simulated row, the front may miss this instance (the report says so).
  double skipped_cost_bound_usd = 0;
};

struct PlanResult {
  SpaceStats space;
  int64_t candidates = 0;                            // after the arithmetic
  std::map<std::string, int64_t> invalid;            // make_layout's refusals, by the key at fault
  std::map<std::string, std::string> invalid_why;    // the key at fault -> its first refusal's message
  int64_t over_memory = 0;                           // memory lower bound above the GPU's memory
  int64_t in_shard = 0;                              // candidates this shard owns
  int64_t simulated = 0, skipped_by_bound = 0, infeasible_by_bound = 0;
  int64_t did_not_fit = 0, failed = 0;               // simulated: over memory, or refused by the engine
  std::string first_failure, first_failure_layout;   // one refusal's message and its layout (the first by layout)
  std::vector<Evaluated> ranked;                     // simulated, fit, meet the constraints; best first
  std::vector<Evaluated> rejected;                   // simulated but over budget or deadline (for messages)
  std::vector<size_t> pareto;                        // indices into ranked: the time/cost front, fastest first
  double steps = 0, tokens_per_step = 0;             // the training target
  std::vector<std::string> missing_prices;           // instances with no price
  std::map<std::string, PriceSpec> node_prices;      // the others: one node's price, how it is sold, its source
  std::map<std::string, InstanceTally> by_instance;  // every instance asked for (this shard's share)
  // audit
  int64_t audited = 0;
  std::vector<Evaluated> audit_beats_winner;         // skipped candidates better than ranked[0]
  std::vector<Evaluated> audit_bound_violations;     // simulated step below its bound
};

// Steps of the training target: ceil(training.tokens / tokens per step), else training.steps.
double target_steps(const ScenarioSpec& base, double tokens_per_step);

PlanResult plan_layouts(const ScenarioSpec& base, const PlanOptions& options);

// Evaluates one scenario as the planner ranks its candidates (for --include: the user's own layout).
// `steps`: the run's steps to train (the plan's target over the candidate's batch); nullopt: the
// scenario's own (its training.tokens or training.steps, as `commsim run` counts them).
Evaluated evaluate_scenario(const ScenarioSpec& spec, const Candidate& described, std::optional<double> steps);

// Ranks `all` (already simulated) as plan_layouts does: fits and constraints, objective, Pareto,
// and each instance's ranked rows (by_instance).
void rank(std::vector<Evaluated> all, const PlanOptions& options, PlanResult& out);

// Indices of the time/cost Pareto front of `rows` (rows with a cost only), fastest first: no other
// row is at least as fast and as cheap and better in one.
std::vector<size_t> pareto_front(const std::vector<Evaluated>& rows);

}  // namespace models::plan
