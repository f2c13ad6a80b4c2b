#pragma once
// What NCCL's graph search (src/graph/search.cc) reports to its tuner for one communicator: the
// intra-node graph's speed and channels, the network's speed and the NICs a node's ranks leave
// by. A step of build_plan (comm_plan.cpp), apart because it follows NCCL's topology rating rules.
#include <vector>

#include "models/nccl/tuning.hpp"
#include "models/world/world.hpp"
#include "sim/flow_network.hpp"

namespace models::collectives {

// `members[k]`: the World ranks of NCCL node k in ring order (at least one node, none empty);
// `nranks`: all of them. Fills every CommView field the tuner reads.
nccl::CommView tuner_view(const World& world, const sim::FlowNetwork& net, const std::vector<std::vector<int>>& members,
                          int nranks);

}  // namespace models::collectives
