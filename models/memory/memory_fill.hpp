#pragma once
// The GPU memory estimate of a training step on its World: builds memory_peak.hpp's inputs for
// every rank (its pipeline stage, its communicators' NCCL buffers) and keeps the largest peak.
// NCCL buffers of a rank: for each communicator of two or more ranks it belongs to, the
// channels NCCL's tuner gives a large all-reduce on it (CollectiveEngine::choose) x 2 ring
// peers x nccl_buffer_bytes (memory_terms.hpp); for each point-to-point peer (pipeline
// neighbours) kP2pChannelsPerPeer channels x NCCL_BUFFSIZE (send/recv use the Simple protocol).
#include <vector>

#include "models/collectives/collective.hpp"
#include "models/result.hpp"
#include "models/memory/memory_peak.hpp"
#include "models/spec.hpp"
#include "models/workload/steps/strategy.hpp"
#include "models/world/world.hpp"

namespace models {

// NCCL_NCHANNELS_PER_NET_PEER's default (NCCL environment variable documentation): 2.
inline constexpr int kP2pChannelsPerPeer = 2;

struct MemoryFill {
  MemoryResult memory;
  std::vector<double> rank_peak_bytes;  // one per World rank
};

// memory_peak.hpp's inputs for a rank of `layout` on stage 0, its NCCL buffers left at 0 (the
// caller sets stage and nccl_bytes): the strategy, degrees, recompute, micro-batches, dtypes,
// ZeRO settings and the framework's overhead as the step runs them.
memory::MemoryInputs step_memory_inputs(const ScenarioSpec& spec, const model::ModelShape& shape,
                                        const workload::ParallelLayout& layout);

// Empty (memory.estimated false) for a bare collective.
MemoryFill estimate_step_memory(const ScenarioSpec& spec, const World& world, const workload::StepPlan& plan,
                                const collectives::CollectiveEngine& engine);

}  // namespace models
