#pragma once
// What every rank runs for one step of a scenario, on a given World: the programs, the
// communicators, each rank's slots, and the model's assumptions in plain words. A bare
// [collective] repeated; or a training step, whose layout (layout.hpp) picks the builder:
// data_parallel.hpp for zero3/fsdp/ddp, megatron.hpp for megatron. Placement facts (ranks per
// node, per pod) and the node's GPU come from the World, never recomputed from ranks.
#include <optional>
#include <string>
#include <vector>

#include "models/collectives/collective.hpp"
#include "models/spec.hpp"
#include "models/workload/layout.hpp"
#include "models/model/model_shape.hpp"
#include "models/workload/program.hpp"
#include "models/world/world.hpp"

namespace models::workload {

struct StepPlan {
  std::vector<Program> programs;
  std::vector<collectives::Group> groups;
  std::vector<RankSetup> ranks;  // one per World rank
  // Per World rank, its data-parallel replica (Megatron: the DP index; replicas.hpp); empty: none.
  std::vector<int> replica;
  std::vector<std::string> notes;
  double overlap_slowdown = 0;       // compute.overlap_slowdown, for training steps
  double comm_overlap_slowdown = 0;  // comm.overlap_slowdown, for training steps
  int iterations = 1;                // a bare collective's repetitions in one simulated "step"
  // A training step's model and layout, built once here for the memory estimate and the
  // throughput (empty for a bare collective).
  std::optional<model::ModelShape> shape;
  std::optional<ParallelLayout> layout;
};

// Throws SpecError for what the scenario asks that cannot be built (layout, model, collective).
// `machine`: price compute on this node's GPU and host (null: the World's node(); a mixed cluster's
// other GPUs, models/run/mixed_gpus.hpp).
StepPlan plan_step(const ScenarioSpec& spec, const World& world, const hw::NodeSpec* machine = nullptr);

}  // namespace models::workload
