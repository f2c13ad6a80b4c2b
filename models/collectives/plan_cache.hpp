#pragma once
// What the collective engine computes once per communicator instead of at every launch: the plan
// (build_plan), NCCL's choice per (op, bytes) (nccl::choose is a pure function of the plan's view,
// the tuning environment, the op and the size), and the pipeline latency terms ring.cpp and
// tree.cpp read from the plan's edges per (protocol, channels). Cached values are computed by the
// same code, in the same order, as computing them at every launch: the same doubles.
// Plans are found by Group::id (groups are fixed for a run) in O(1), checked against the group's
// ranks; a group id reused with other ranks falls back to a lookup by rank list.
#include <cstdint>
#include <map>
#include <unordered_map>
#include <utility>
#include <vector>

#include "models/collectives/collective.hpp"
#include "models/comm_plan/comm_plan.hpp"
#include "models/nccl/tuning.hpp"

namespace models::collectives {

struct PlanEntry {
  CommPlan plan;
  std::unordered_map<uint64_t, nccl::Choice> choices;                 // key: (op, bytes)
  std::unordered_map<uint32_t, std::pair<double, double>> ring_hops;  // (sum, largest step floor)
  std::unordered_map<uint32_t, std::pair<double, double>> tree_hops;  // (intra, inter) maxima
  std::unordered_map<uint32_t, double> tree_inter_hop;                // inter alone (NVLSTree)
  // key: (op, bytes, in_place): the block shape naming this collective's flows for
  // sim::FlowNetwork::start_cached_block (the flows are a function of the plan and the key).
  std::unordered_map<uint64_t, uint64_t> block_shapes;
};

class PlanCache {
 public:
  // The entry of `group`, its plan built on first use (without its parts: complete_plan).
  PlanEntry& get(const World& world, const sim::FlowNetwork& net, const Group& group);

  static uint64_t choice_key(CollOp op, int64_t bytes) {
    return (static_cast<uint64_t>(op) << 56) ^ static_cast<uint64_t>(bytes);  // bytes < 2^56
  }
  static uint32_t latency_key(Proto p, int channels) {
    return (static_cast<uint32_t>(p) << 24) ^ static_cast<uint32_t>(channels);
  }

 private:
  using ByRanks = std::map<std::vector<int>, PlanEntry>;  // map nodes never move
  ByRanks by_ranks_;
  std::vector<ByRanks::value_type*> by_id_;  // nullptr: not seen yet
};

}  // namespace models::collectives
