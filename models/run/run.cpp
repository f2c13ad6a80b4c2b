// models::run_scenario, the pipeline: scenario -> World -> collective engine -> strategy (what
// every rank runs) -> StepExecutor -> RunResult. One training step is simulated (steps are
// identical in steady state, each ends with the optimizer); run_time = step_time x training.steps.
#include "models/run/run.hpp"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>
#include <variant>

#include "models/collectives/collective.hpp"
#include "models/memory/memory_fill.hpp"
#include "models/params.hpp"
#include "models/run/breakdown.hpp"
#include "models/run/cost.hpp"
#include "models/run/goodput_fill.hpp"
#include "models/run/jobs.hpp"
#include "models/run/layout_line.hpp"
#include "models/run/result_fill.hpp"
#include "models/run/step_build.hpp"
#include "models/run/stragglers.hpp"
#include "models/run/throughput.hpp"
#include "models/run/variability.hpp"
#include "models/run/wall_budget.hpp"
#include "models/scale/ecmp_orbits.hpp"
#include "models/scale/step/mode.hpp"
#include "models/workload/executor.hpp"
#include "models/workload/steps/strategy.hpp"
#include "sim/check.hpp"

namespace models {

namespace {
// A run whose --time-limit passed during set-up: nothing was simulated (exit 3 like any run the
// limit stopped), and the notes say where it stopped.
RunResult stopped_in_setup(const ScenarioSpec& spec, const WallBudget& budget) {
  RunResult res;
  res.scenario = spec.name;
  res.partial = true;
  res.steps = std::max(1, spec.training.steps);
  res.breakdown["simulated_fraction"] = 0;
  char when[64];
  std::snprintf(when, sizeof when, "%.3g s", budget.elapsed_s());
  res.notes.push_back(std::string("stopped by --time-limit after ") + when + " of set-up, while " +
                      budget.stopped_in() + ": no operation simulated");
  return res;
}

// One simulated step, in the mode the cascade's attempt allows (models/scale/step/mode.hpp):
// the result, or what a guard abandoned (the caller then runs the next attempt).
std::variant<RunResult, scale::Abandoned> simulate_step(const ScenarioSpec& spec, const RunOptions& options,
                                                      scale::Attempt attempt, WallBudget& budget) {
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  if (options.audit) net.set_audit(true);
  net.set_closed_forms(!options.full);
  check_params(spec.cluster.params);

  // Scenario -> World -> collective engine -> every rank's program -> memory (step_build.hpp).
  std::optional<BuiltStep> built = build_step(spec, sim, net, options, budget);
  if (!built) return stopped_in_setup(spec, budget);
  auto& [world, engine, plan, memory] = *built;

  // -> which fold simulates the step (before the programs move into the executor).
  scale::StepMode mode = scale::choose_mode(
      {.attempt = attempt, .full = options.full, .audit = options.audit, .replicas = options.replicas}, *world, net,
      plan, *engine);
  if (mode.refused) return *mode.refused;
  // -> the executor.
  workload::StepExecutor exec(sim, net, *engine, world.get(), std::move(plan.programs), std::move(plan.groups),
                              std::move(plan.ranks));
  exec.overlap_slowdown = plan.overlap_slowdown;
  exec.comm_overlap_slowdown = plan.comm_overlap_slowdown;
  std::vector<int> recorded;
  if (options.timeline) exec.record_timeline(recorded = timeline_ranks(exec));
  scale::start_mode(mode, *engine, exec, recorded, world->size(), plan.notes);
  if (budget.spent("finding the rank classes")) return stopped_in_setup(spec, budget);
  exec.set_wall_limit(options.time_limit_s, budget.start());
  if (options.progress) exec.set_progress([&options](double fraction) { options.progress({}, fraction); });
  exec.run();
  if (auto abandoned = scale::finish_mode(mode, *engine, net, sim, *world, exec, plan.notes)) return *abandoned;
  SIM_CHECK(exec.all_done() || exec.stopped(), "step programs deadlocked: a rank waits for a peer that never comes");
  // Audit: every flow ends (a run stopped by --time-limit leaves its flows in flight on purpose).
  if (options.audit && !exec.stopped())
    SIM_CHECK(net.active_flows() == 0, "flows still in flight after every rank finished its program");

  net.settle_blocks();  // link totals of repeated closed-form collectives
  // -> the result.
  RunResult result = fill_result(exec, net, *world, spec, options);
  complete_result(result, spec, *world, plan, std::move(memory));
  result.events = sim.events_run();
  if (options.explain_mode) result.scale_mode = std::move(mode.lines);
  return result;
}

// The simulation itself (run_scenario adds what it ran on).
RunResult simulate_scenario(const ScenarioSpec& spec, const RunOptions& options) {
  if (!spec.jobs.empty()) return run_jobs(spec, options);  // several jobs on one fabric (jobs.hpp)
  // --time-limit counts the set-up too: checked between its stages (wall_budget.hpp).
  WallBudget budget(options.time_limit_s, WallBudget::Clock::now(), setup_progress(options));
  // The cascade of attempts (models/scale/step/mode.hpp): a fold whose guard fails is abandoned
  // and the step simulated again by the next attempt, which cannot fail the same way.
  scale::ModeCascade cascade(options.replicas, options.approximate);
  RunResult result;
  for (;;) {
    auto step = simulate_step(spec, options, cascade.attempt(), budget);
    if (auto* done = std::get_if<RunResult>(&step)) {
      result = std::move(*done);
      break;
    }
    SIM_CHECK(cascade.attempt() != scale::Attempt::RankClassesOnly, "rank classes alone have no guard to fail");
    cascade.failed(std::get<scale::Abandoned>(step));
  }
  cascade.finish(result);
  if (cascade.approximate_ran()) result.caveats.push_back(scale::ecmp_orbits_caveat());
  if (!spec.stragglers.empty() && !result.partial && options.straggler_cost) {  // what they cost: the same step without them
    RunOptions calm = options;
    calm.timeline = false;
    if (options.time_limit_s) calm.time_limit_s = *options.time_limit_s - budget.elapsed_s();
    calm.samples = 0;
    // One kind of step on both sides: exact unless the step with stragglers ran approximate.
    calm.approximate = options.approximate && cascade.approximate_ran();
    add_straggler_cost(result, run_scenario(without_stragglers(spec), calm));
    add_straggler_stages(result, spec);
  }
  if (options.samples > 0 && !result.partial) {  // --samples, within what is left of --time-limit
    // The samples run exact where the step did: a sample's own mode never moves its statistics.
    RunOptions sampling = options;
    sampling.approximate = options.approximate && cascade.approximate_ran();
    add_variability(result, spec, sampling, [&budget] { return budget.elapsed_s(); });
  }
  return result;
}

}  // namespace

RunResult run_scenario(const ScenarioSpec& spec, const RunOptions& options) {
  RunResult result = simulate_scenario(spec, options);
  // A run stopped by --time-limit simulated part of a step: tokens/s and MFU over that part would
  // be rates of work never finished (an MFU over 1000 %), so none is given.
  if (result.partial) result.throughput = ThroughputResult{};
  const LayoutSummary layout = describe_layout(spec);
  result.gpus = layout.gpus;
  result.nodes = layout.nodes;
  result.pods = layout.pods;
  result.layout = layout.line;
  apply_token_target(spec, result);  // the run's length from training.tokens
  result.cost = make_cost(spec, result);  // and its price (cost.hpp)
  for (const std::string& caveat : {price_caveat(spec), capacity_block_caveat(spec)})
    if (!caveat.empty()) {
      result.notes.push_back(caveat);
      result.caveats.push_back(caveat);
    }
  // Failures, checkpoints, goodput (not per sample): over the run's steps and at its price.
  if (options.straggler_cost) fill_goodput(result, spec);
  return result;
}

}  // namespace models
