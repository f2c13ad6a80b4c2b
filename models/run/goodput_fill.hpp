#pragma once
// A training run's failures, checkpoints, expected wall time, goodput and cost
// (RunResult::goodput), from the scenario, the World's GPU and host counts and the step time
// (models/goodput/README.md states the equations and sources).
#include "models/goodput/goodput.hpp"
#include "models/result.hpp"
#include "models/spec.hpp"

namespace models {

// Fills result.goodput for a training step (nothing for a bare collective or a partial run): its
// GPUs and hosts are the result's ranks and their nodes, the host's PCIe the scenario's node. The
// step used is the sampled mean when result.variability was sampled, else result.step_time_s.
void fill_goodput(RunResult& result, const ScenarioSpec& spec);

// Daly's estimate for `work_s` of steps of `step_s` under a filled goodput's failure rate,
// checkpoint and restart (the planner's training target over a candidate's step).
goodput::GoodputEstimate goodput_over(const GoodputResult& g, double work_s, double step_s);

// Checkpoint bytes per parameter: checkpoint.bytes_per_param, else the weights in their training
// format (4 B in fp32, else 2) + Adam's 12 B (fp32 master, m, v); fp32 weights are their own master: 4 + 8.
double checkpoint_bytes_per_param(const ScenarioSpec& spec);

}  // namespace models
