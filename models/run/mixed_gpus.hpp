#pragma once
// [[cluster.groups]] of different GPUs (e.g. p5.48xlarge's H100 beside p4d.24xlarge's A100): each
// rank computes at its own GPU's rates. plan_step prices every op on one GPU (the first group's);
// for each other GPU of the cluster the same step is planned again on that GPU's node, and the
// ranks on its nodes take those programs: the same ops, groups and peers in the same order, only
// the compute durations differ (each by the GPU's own laws, models/compute: not one factor for
// the whole step, since a GEMM and a memory-bound kernel scale differently between GPUs).
// Ranks that wait for slower GPUs show it as barrier wait, as with [[stragglers]].
#include "models/spec.hpp"
#include "models/workload/steps/strategy.hpp"
#include "models/world/world.hpp"

namespace models {

void give_ranks_their_gpus(const ScenarioSpec& spec, const World& world, workload::StepPlan& plan);

}  // namespace models
