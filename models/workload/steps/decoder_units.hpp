#pragma once
// The units a training step walks through (embedding, each decoder block, head), with the
// compute of one micro-batch on each (compute.hpp's FLOPs at the achieved rates) and the
// parameters a sharded strategy gathers for it. Shared by every strategy (data_parallel.hpp,
// megatron.hpp).
#include <cstdint>
#include <string>
#include <vector>

#include "models/model/model_shape.hpp"
#include "models/workload/compute.hpp"
#include "models/workload/layout.hpp"
#include "sim/time.hpp"

namespace models::workload {

// Per-unit compute of one micro-batch, shared by every strategy.
struct Unit {
  std::string name;
  int64_t params = 0;    // all parameters of the unit
  int64_t gathered = 0;  // parameters above stage3_param_persistence_threshold
  sim::Time fwd, bwd, recompute;
  bool block = false;
  // Under gradient checkpointing: parameters the recompute's post-forward hooks release and the
  // backward gathers once more (DeepSpeed keeps a module only if it is reused within
  // stage3_max_reuse_distance parameters of the trace: zero3_regathered_params, zero3_step.cpp).
  int64_t regathered = 0;
};

// DeepSpeed's default stage3_max_reuse_distance (deepspeed/runtime/zero/config.py): nothing is
// released between a checkpointed block's recompute and its backward on Llama-3-8B.
inline constexpr double kDefaultMaxReuseDistance = 1e9;

// Which blocks a step checkpoints and what their backward runs again: nothing (no checkpointing),
// the whole forward (reentrant: DeepSpeed's, Hugging Face transformers' default), or the forward
// up to the last tensor the backward saved (PyTorch's non-reentrant checkpoint: compute.hpp
// BlockSeconds); on every block, or on every N-th, blocks N, 2N, ... counted from 1 (torchtitan's
// selective_ac_option "N": layout.hpp checkpoint_every); or, per op, what torchtitan's per-op
// policy does not keep (BlockSeconds fwd_op_rerun), on every block.
struct Checkpointing {
  enum class Rerun : unsigned char { Nothing, WholeForward, UntilLastSaved, PerOp };
  Rerun rerun = Rerun::Nothing;
  int every = 1;
  bool checkpoints(int block) const { return rerun != Rerun::Nothing && (block + 1) % every == 0; }
};
// What a layout checkpoints (layout.hpp: recompute, recompute_stops_early, checkpoint_every);
// selective recompute (Megatron's attention core) is priced by the strategy itself, not here.
inline Checkpointing checkpointing(const ParallelLayout& l) {
  using R = Checkpointing::Rerun;
  if (l.recompute == Recompute::SelectiveOp) return {R::PerOp, 1};
  if (l.recompute != Recompute::Full) return {};
  return {l.recompute_stops_early ? R::UntilLastSaved : R::WholeForward, l.checkpoint_every};
}

// A module's parameters persist (are never gathered) below `persistence_threshold`; `tp` divides
// every block's compute and the re-gathered parameters (Megatron); `max_reuse_distance` as above.
std::vector<Unit> decoder_units(const model::ModelShape& m, int64_t tokens, const ComputeRates& rates,
                                Checkpointing checkpointing, double persistence_threshold, int tp = 1,
                                double max_reuse_distance = kDefaultMaxReuseDistance);

// A unit's gradient tensors in the order the backward produces them (a block's in reverse of its
// forward, the head's matrix then the final norm), as DeepSpeed's hooks see them one by one; one
// tensor of all the unit's parameters where these tensors do not describe its shape.
std::vector<int64_t> unit_gradient_tensors(const model::ModelShape& m, const Unit& u);

}  // namespace models::workload
