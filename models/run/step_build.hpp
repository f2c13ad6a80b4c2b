#pragma once
// The one pipeline from a scenario (one job's) to a step ready to simulate, shared by
// run_scenario (run.cpp) and every job of [[jobs]] (jobs.cpp):
//   scenario -> World (placement, topology, NCCL's transports, the links) -> collective engine ->
//   what every rank runs (StepPlan; the layout validated there, once) -> GPU memory estimate.
// The run's own memory budget is checked first, on the scenario alone (ram_budget.hpp).
#include <memory>
#include <optional>

#include "models/collectives/collective.hpp"
#include "models/memory/memory_fill.hpp"
#include "models/run/run.hpp"
#include "models/run/wall_budget.hpp"
#include "models/spec.hpp"
#include "models/workload/steps/strategy.hpp"
#include "models/world/world.hpp"
#include "sim/flow_network.hpp"
#include "sim/simulator.hpp"

namespace models {

struct BuiltStep {
  std::unique_ptr<World> world;
  std::unique_ptr<collectives::CollectiveEngine> engine;
  workload::StepPlan plan;
  MemoryFill memory;
};

// `slot`: the job's nodes on a shared cluster ({}: a World of its own). `run_notes`: add the
// run-wide notes ([nccl.env] variables not modelled, CollNet) to the plan's (a job's run adds
// them once, at the top). nullopt: --time-limit passed during set-up (`budget` says where).
std::optional<BuiltStep> build_step(const ScenarioSpec& spec, sim::Simulator& sim, sim::FlowNetwork& net,
                                    const RunOptions& options, WallBudget& budget, const ClusterSlot& slot = {},
                                    bool run_notes = true);

// The set-up stages of a run (World, programs, fold) reported through `options.progress` as
// (stage, -1); empty when no one listens.
WallBudget::Progress setup_progress(const RunOptions& options);

}  // namespace models
