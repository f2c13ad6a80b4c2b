#pragma once
// A small planning problem the planner's tests share: Llama-3-8B at seq 2048, global batch 32, on
// p5.48xlarge nodes (H100 80 GB), small enough that every candidate is simulated in seconds.
#include "models/plan/search.hpp"
#include "models/spec.hpp"

namespace plan_test {

inline models::ScenarioSpec small_base() {
  models::ScenarioSpec s;
  s.name = "plan test: llama-3-8b";
  s.cluster.instance = "p5.48xlarge";
  s.cluster.nodes = 1;
  models::ModelSpec m;
  m.preset = "llama-3-8b";
  m.seq = 2048;
  s.model = m;
  s.training.global_batch = 32;
  s.training.micro_batch = 1;
  s.training.steps = 100;
  s.parallel.strategy = "megatron";
  return s;
}

// 8 or 16 GPUs, a few strategies, micro-batch 1 or 2, recompute none or full.
inline models::plan::PlanOptions small_options() {
  models::plan::PlanOptions o;
  o.space.min_gpus = 8;
  o.space.max_gpus = 16;
  o.space.strategies = {"megatron", "zero1", "zero3", "fsdp", "ddp"};
  o.space.micro_batches = {1, 2};
  o.space.cp = {1};
  o.space.max_pp = 4;
  o.space.max_vp = 2;
  o.jobs = 2;
  return o;
}

}  // namespace plan_test
