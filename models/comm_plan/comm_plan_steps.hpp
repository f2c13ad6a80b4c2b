#pragma once
// The named steps of a communicator's plan (comm_plan.cpp) that the NVLSTree layout folded by the
// GPU rotation (comm_plan_fold.cpp) shares; internal to models/collectives.
#include <vector>

#include "models/comm_plan/comm_plan.hpp"
#include "models/scale/gpu_rotation.hpp"
#include "models/world/world.hpp"
#include "sim/flow_network.hpp"

namespace models::collectives::plan_steps {

// Ring (tree set) r of `rings` starts each node's GPU order this far in.
int rotation(int r, int rings, int node_size);
// Tree sets over `members` (NCCL nodes); `built`: the sets laid out (all but folded: set 0 alone).
void build_tree_sets(const World& world, const sim::FlowNetwork& net, const std::vector<std::vector<int>>& members,
                     int rings, bool chains, CommPlan& plan, int built);
std::vector<Edge*> tree_edges(CommPlan::TreeSet& ts);
// Per set, its chain edges' bottlenecks that change an inter-node edge's rings_sharing (folded:
// set 0's only).
std::vector<std::vector<sim::LinkId>> chain_bottlenecks_shared(const World& world, const sim::FlowNetwork& net,
                                                               const std::vector<std::vector<int>>& members, int rings,
                                                               const CommPlan& plan, const scale::GpuRotation* rot);
// NVLSTree's inter-node and switch-port edges (folded > 0: each node's first `folded` GPUs' ports).
void plan_nvls_tree(const World& world, const sim::FlowNetwork& net, const std::vector<std::vector<int>>& members,
                    CommPlan& plan, int folded);

// The folded layout (comm_plan_fold.cpp): whether the NVLSTree part may be built folded by `rot`,
// and that part built folded (false: nothing kept, lay it out whole).
bool may_fold(const World& world, const CommPlan& plan, const scale::GpuRotation& rot);
bool plan_nvls_tree_folded(const World& world, const sim::FlowNetwork& net, CommPlan& plan,
                           const scale::GpuRotation& rot);

}  // namespace models::collectives::plan_steps
