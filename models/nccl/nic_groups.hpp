#pragma once
// Which NICs each pod sees and which NICs each GPU sends through, on one node (every node is
// placed alike). Two steps, both pure functions of the node graph and the placement:
//  1. pods' NICs: a single pod sees every NIC; several pods each get the NICs closest to their
//     GPUs among those no earlier pod holds (the device plugin hands each pod its own EFA, as the
//     seeds' pods ask: "vpc.amazonaws.com/efa: 1" each), a fair share per GPU (p5: 32 EFAs for
//     8 GPUs -> 4; p4d: 4 for 8 -> 1); with fewer NICs than pods, pods share the one next to
//     their GPU.
//  2. GPUs' groups: among its pod's NICs, the set at the shortest path from the GPU (p4d: one EFA
//     shared by two GPUs; p5: four EFAs per GPU); traffic is spread over the group. The NIC's
//     index as the pod sees it is NCCL's device number in "NET/<plugin>/<dev>".
// `nics_per_pod` > 0 (placement.nics_per_pod, Kubernetes "vpc.amazonaws.com/efa: N") replaces
// the fair share of step 1: the pod holds that many NICs, taken round-robin over its GPUs, each
// GPU taking the closest one left (a p5 pod with 1 EFA: every GPU sends through that one NIC).
#include <vector>

#include "models/topology/node_graph.hpp"
#include "models/topology/placement.hpp"

namespace models::nccl {

struct NicGroup {
  std::vector<int> nics;  // physical NIC indices on the node
  int pcie_switch = -1;   // the switch they sit under (-1: own root ports)
};

struct NicAssignment {
  std::vector<std::vector<int>> pod_nics;  // per pod of a node: the NICs it sees, sorted
  std::vector<NicGroup> groups;            // the node's distinct groups, in first-use order
  std::vector<int> gpu_group;              // per local GPU: index into groups, -1 when its pod has no NIC
  std::vector<int> gpu_nic_label;          // per local GPU: its group's first NIC as the pod numbers it
};

// Throws SpecError("placement.nics_per_pod") when the node cannot give every pod that many NICs.
NicAssignment assign_nics(const topology::NodeGraph& graph, const topology::Placement& layout, int nics_per_pod = 0);

}  // namespace models::nccl
