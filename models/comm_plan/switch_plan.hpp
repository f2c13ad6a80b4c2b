#pragma once
// The parts of a communicator's plan that NVLS and CollNet read (comm_plan.hpp: nvls_ports,
// collnet_ports, *_sharp, chain_merged), laid out by complete_plan (comm_plan.cpp) when an
// algorithm first needs them. Internal to models/collectives.
#include <vector>

#include "models/comm_plan/comm_plan.hpp"

namespace models::collectives {

// NVLS (nvls.cpp): every rank's NVLink port to and from the switch, with the share of S it heads
// (view.nvls_heads heads per node); across nodes (NVLS over CollNet) each head's NIC to and from
// the SHARP switches.
void plan_nvls(const World& world, const sim::FlowNetwork& net, CommPlan& plan);
// CollNetDirect (collnet.cpp): the same ports with view.collnet_heads heads per node, and the heads' NICs.
void plan_collnet_direct(const World& world, const sim::FlowNetwork& net, CommPlan& plan);
// CollNetChain (collnet.cpp): the tree sets' chains (plan.trees, built with their chains) merged,
// and each set leader's NIC to and from the SHARP switches.
void plan_collnet_chain(const World& world, const sim::FlowNetwork& net, CommPlan& plan);

}  // namespace models::collectives
