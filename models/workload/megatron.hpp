#pragma once
// Megatron-style tensor, pipeline and data parallelism as Programs.
//   Rank mapping (Megatron's default order): TP fastest, then DP, then PP:
//     rank = t + tp * (d + dp * s), so a TP group is consecutive ranks (inside a node) and
//     pipeline neighbours are tp*dp ranks apart.
//   TP (Shoeybi et al. 2019): each block is column/row split: attention then MLP, each followed by
//     an all-reduce of the activations (b*s*h, dtype) in forward; in backward two all-reduces of
//     the input gradients; full recompute repeats the forward, all-reduces included. The TP
//     all-reduces sit on the compute stream: the next matrix product needs their result.
//     Embedding and LM head are replicated on every TP rank (as in the calibration runs).
//   PP: 1F1B (Narayanan et al. 2021): stage s runs min(p-s-1, m) warm-up forwards, then
//     alternates one forward and one backward, then drains the backwards. Activations and their
//     gradients (b*s*h, dtype) travel by send/recv on their own streams; bubbles are whatever the
//     schedule leaves idle, not a formula.
//   DP: gradient all-reduce of each rank's parameters after the last backward, then AdamW
//     (torch foreach, memory-bound) on the parameter dtype.
// Slots: group 0 = dp, group 1 = tp; peer 0 = next stage, peer 1 = previous stage.
#include <vector>

#include "models/collectives/collective.hpp"
#include "models/spec.hpp"
#include "models/workload/compute.hpp"
#include "models/workload/model_shape.hpp"
#include "models/workload/program.hpp"

namespace models::workload {

struct MegatronConfig {
  ModelShape model;
  TrainingSpec training;
  int tp = 1, pp = 1, dp = 1;
  int micro_batches = 1;
  ComputeRates rates;
};

inline int megatron_rank(int t, int d, int s, int tp, int dp) { return t + tp * (d + dp * s); }

// One program per pipeline stage (index = stage).
std::vector<Program> build_megatron_programs(const MegatronConfig& c);
// Groups (dp groups, then tp groups) and each rank's slots, for tp*dp*pp ranks.
void megatron_layout(const MegatronConfig& c, std::vector<collectives::Group>& groups, std::vector<RankSetup>& ranks);

}  // namespace models::workload
