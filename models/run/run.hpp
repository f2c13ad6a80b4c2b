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
};

RunResult run_scenario(const ScenarioSpec& spec, const RunOptions& options = {});

}  // namespace models
