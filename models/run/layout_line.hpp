#pragma once
// What a run ran on, in one readable line: the GPU count, the nodes (and their instance), the pods
// and the parallel layout, e.g.
//   "4 GPUs: 1 node p4d.24xlarge, 4 pods x 1 GPU; zero3, dp 4"
//   "512 GPUs: 64 nodes dgx-a100-80gb, 64 pods x 8 GPUs; megatron tp 8 pp 8 dp 8 (vp 3)"
//   "128 GPUs: 2 nodes gb200-nvl72, 2 pods x 64 GPUs (8 of 72 GPUs per node idle); megatron ..."
// Every output that shows a run's numbers (run, compare, sweep rows, plan, the HTML pages, the
// JSON summary the Python package reads) states this line, so a what-if whose override changed
// the GPU count says so beside its numbers. Computed from the scenario alone (no simulation).
#include <string>

#include "models/spec.hpp"

namespace models {

struct LayoutSummary {
  int gpus = 0, nodes = 0, pods = 0;
  std::string line;  // the whole sentence above
};

// Throws SpecError as make_placement does for a layout that does not tile the node.
LayoutSummary describe_layout(const ScenarioSpec& spec);

// The parallel layout of one job on `gpus` GPUs, the line's last part ("megatron tp 4 pp 4 dp 8 ep 8",
// "zero3, dp 4"), or the collective's ("all_reduce of 1 GiB").
std::string parallel_text(const ParallelSpec& p, const std::optional<CollectiveSpec>& collective, int gpus);

}  // namespace models
