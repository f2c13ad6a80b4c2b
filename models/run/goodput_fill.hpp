#pragma once
// A training run's failures, checkpoints, expected wall time, goodput and cost
// (RunResult::goodput), from the scenario, the World's GPU and host counts and the step time
// (models/goodput/README.md states the equations and sources).
#include <string>

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

// Checkpoint bytes per parameter: checkpoint.bytes_per_param, else the model states the strategy
// keeps between steps, in the dtypes the memory model holds them in (memory/checkpoint_state.hpp:
// weights, an fp32 master where the framework keeps one, Adam's m and v; DeepSpeed and Megatron-LM
// in bf16 14 B, FSDP and DDP with bf16 parameters 6 B). `gpus` ranks, `node_ranks` of them per node
// (HSDP's shard group), as the step ran.
struct CheckpointBytes {
  double per_param = 0;
  std::string parts;  // "weights 2 + fp32 master 4 + Adam m, v 8", or "checkpoint.bytes_per_param"
};
CheckpointBytes checkpoint_bytes_per_param(const ScenarioSpec& spec, int gpus, int node_ranks);

}  // namespace models
