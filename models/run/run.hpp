#pragma once
// models::run_scenario: the one entry point from a scenario to a result. Builds the World, the
// collective engine and the workload (training step, or a bare collective), runs the simulator,
// and fills RunResult. Throws SpecError for what the user asked that cannot be done.
#include <optional>

#include "models/result.hpp"
#include "models/spec.hpp"

namespace models {

struct RunOptions {
  bool audit = false;                  // --check: verify conservation and capacity invariants
  std::optional<double> time_limit_s;  // --time-limit: wall-clock budget; partial results
  bool timeline = true;                // record the timeline of one step
  // --full: simulate every rank and every flow. Default: ranks of one class (workload/symmetry.hpp)
  // simulated once, collectives on idle links in closed form (sim::FlowNetwork::start_block).
  // Same results either way (tests/scenarios/closed_forms_test.cpp); only the cost differs.
  bool full = false;
  // Off: Megatron's alike data-parallel replicas are each simulated (workload/replicas.hpp), as
  // before they could be simulated once; for benches comparing the two. Same results.
  bool replicas = true;
};

RunResult run_scenario(const ScenarioSpec& spec, const RunOptions& options = {});

}  // namespace models
