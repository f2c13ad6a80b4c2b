#pragma once
// models::run_scenario: the one entry point from a scenario to a result. Builds the World, the
// collective engine and the workload (training step, or a bare collective), runs the simulator,
// and fills RunResult. Throws SpecError for what the user asked that cannot be done.
#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>
#include <vector>

#include "models/result.hpp"
#include "models/spec.hpp"

namespace models {

struct RunOptions {
  bool audit = false;                  // --check: verify conservation and capacity invariants
  std::optional<double> time_limit_s;  // --time-limit: wall-clock budget; partial results
  bool timeline = true;                // record the timeline of one step
  // --full: simulate every rank and every flow. Default: the folds of models/scale/README.md
  // (ranks of one class simulated once, collectives on idle links in closed form, ...).
  // Same results either way (tests/scenarios/scale/fold_equals_full_test.cpp); only the cost differs.
  bool full = false;
  // Off: no fold that owns the network's folded links (data-parallel replicas, alike nodes, node
  // orbits, the GPU rotation): rank classes only; for benches comparing the two. Same results.
  bool replicas = true;
  // Off: no approximate fold (ECMP orbits, within 2 % of --full) where it would apply; the other
  // folds are exact. The straggler-free step runs with it off when the step with [[stragglers]]
  // ran exact, so that their cost compares two exact steps (an approximate baseline could make
  // it negative).
  bool approximate = true;
  // --explain-mode: RunResult::scale_mode lists every mechanism, whether it applied, and why.
  bool explain_mode = false;
  // --samples N --seed S: the step over N seeded draws of every GPU's speed (variability.hpp);
  // 0: the deterministic step only (every GPU at its nominal speed).
  int samples = 0;
  uint64_t seed = 1;
  bool seed_given = false;  // --seed was on the command line (without --samples it does nothing: a note says so)
  // Set by the sampler for each sample: every rank's compute time multiplied by its factor
  // (empty: none), and whether [[stragglers]]' cost is simulated again (the sampler's own runs: no).
  std::vector<double> rank_compute_scale;
  bool straggler_cost = true;
  // Progress of a long run (`--progress`; empty: none): called with `stage` set and `fraction` < 0
  // after each set-up stage, then with the share of the step's operations simulated so far
  // (0..1, every 1,024 operations and once at the end). A second simulation of the same run (a
  // fold's guard failed, the straggler-free step, a variability sample) starts again from 0.
  // Called on the simulating thread; it should return quickly.
  std::function<void(std::string_view stage, double fraction)> progress;
};

RunResult run_scenario(const ScenarioSpec& spec, const RunOptions& options = {});

}  // namespace models
