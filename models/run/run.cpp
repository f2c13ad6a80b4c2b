// models::run_scenario, the pipeline: scenario -> World -> collective engine -> strategy (what
// every rank runs) -> StepExecutor -> RunResult. One training step is simulated (steps are
// identical in steady state, each ends with the optimizer); run_time = step_time x training.steps.
#include "models/run/run.hpp"

#include <algorithm>
#include <chrono>

#include "models/collectives/collective.hpp"
#include "models/nccl/env.hpp"
#include "models/params.hpp"
#include "models/run/breakdown.hpp"
#include "models/run/memory_estimate.hpp"
#include "models/run/memory_fill.hpp"
#include "models/run/result_fill.hpp"
#include "models/run/stragglers.hpp"
#include "models/run/throughput.hpp"
#include "models/topology/placement.hpp"
#include "models/topology/resolve.hpp"
#include "models/workload/executor.hpp"
#include "models/workload/layout.hpp"
#include "models/workload/model_shape.hpp"
#include "models/workload/strategy.hpp"
#include "sim/check.hpp"

namespace models {

RunResult run_scenario(const ScenarioSpec& spec, const RunOptions& options) {
  const auto wall_start = std::chrono::steady_clock::now();  // --time-limit counts the set-up too
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  if (options.audit) net.set_audit(true);
  net.set_closed_forms(!options.full);
  check_params(spec.cluster.params);

  // Refuse what would not fit before anything big is built: the ranks come from the placement
  // alone (the node's GPU count), the operations from the scenario (memory_estimate.hpp).
  check_memory_budget(
      spec, topology::make_placement(spec.cluster, spec.placement, topology::resolve_node(spec.cluster).gpus).size(),
      options.full);
  // Scenario -> World: placement, topology, NCCL's transports, the links (and [nccl.env], parsed once).
  auto world = World::build(spec, net);
  // -> the collective engine on that World.
  auto engine = collectives::make_collective_engine(sim, net, *world, spec);
  // -> what every rank runs (the layout is validated there, once).
  workload::StepPlan plan = workload::plan_step(spec, *world);
  for (auto& note : nccl::unmodelled_nccl_env_notes(spec.nccl_env)) plan.notes.push_back(std::move(note));
  apply_stragglers(spec, *world, plan.ranks);  // [[stragglers]]: slower compute on listed ranks/nodes
  // -> the GPU memory each rank needs (a layout that does not fit still runs, flagged).
  MemoryFill memory = estimate_step_memory(spec, *world, plan, *engine);

  // -> the executor.
  workload::StepExecutor exec(sim, net, *engine, world.get(), std::move(plan.programs), std::move(plan.groups),
                              std::move(plan.ranks));
  exec.overlap_slowdown = plan.overlap_slowdown;
  exec.comm_overlap_slowdown = plan.comm_overlap_slowdown;
  std::vector<int> recorded;
  if (options.timeline) exec.record_timeline(recorded = timeline_ranks(exec));
  if (options.full) {
    plan.notes.push_back("full simulation (--full): every rank and every flow simulated");
  } else if (const auto classes = exec.simulate_classes(recorded); classes.simulated < world->size()) {
    plan.notes.push_back("symmetry: " + std::to_string(classes.simulated) + " of " + std::to_string(world->size()) +
                         " ranks simulated, each for the ranks with its program and communicators (--full: all)");
  }
  exec.set_wall_limit(options.time_limit_s, wall_start);
  exec.run();
  SIM_CHECK(exec.all_done() || exec.stopped(), "step programs deadlocked: a rank waits for a peer that never comes");
  // Audit: every flow ends (a run stopped by --time-limit leaves its flows in flight on purpose).
  if (options.audit && !exec.stopped())
    SIM_CHECK(net.active_flows() == 0, "flows still in flight after every rank finished its program");

  net.settle_blocks();  // link totals of repeated closed-form collectives
  // -> the result.
  RunResult result = fill_result(exec, net, *world, spec, options);
  result.notes.insert(result.notes.begin(), plan.notes.begin(), plan.notes.end());
  result.memory = std::move(memory.memory);
  for (std::size_t r = 0; r < memory.rank_peak_bytes.size() && r < result.ranks.size(); ++r)
    result.ranks[r].memory_peak_bytes = memory.rank_peak_bytes[r];
  if (!spec.collective && spec.model) {
    const workload::ModelShape shape = workload::resolve_model(*spec.model);
    const workload::ParallelLayout layout = workload::make_layout(spec, shape, world->size());
    const int micro_batches = layout.strategy == workload::Strategy::Megatron ? layout.pipeline_micro_batches
                                                                              : std::max(1, spec.training.grad_accum);
    result.throughput = make_throughput(shape, samples_per_step(spec, layout.dp, micro_batches), result.step_time_s,
                                        world->size(), world->node().gpu.bf16_flops, spec.training.grad_checkpointing);
  }
  if (spec.collective) {
    result.step_time_s /= plan.iterations;
    result.run_time_s = result.step_time_s * plan.iterations;
    result.steps = plan.iterations;
    for (auto& r : result.ranks) r.breakdown = scaled(r.breakdown, plan.iterations);
    result.step_breakdown = scaled(result.step_breakdown, plan.iterations);
  }
  result.events = sim.events_run();
  return result;
}

}  // namespace models
