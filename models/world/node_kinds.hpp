#pragma once
// The kinds of node a World holds: one, or one per [[cluster.groups]] entry (a mixed cluster,
// e.g. 2 x p5.48xlarge then 2 x p4d.24xlarge, ranks placed in order over the groups' nodes).
//
// Each kind is a machine (catalog instance), its node graph and NCCL's transport rules on it.
// Between ranks of one node, that node's kind decides everything (P2P, SHM, NET as on a cluster of
// that instance alone). Between nodes, NCCL's choice is the sender's (its plugin, NIC, GDR or PXN;
// the receiver's side of the path is the receiver's: models/world/world.cpp path), so each pair
// crosses its own nodes' NICs and the slowest NIC on a ring sets the ring's pace. NCCL's
// communicator-wide values are the minimum over its ranks (src/init.cc: nChannels, bwIntra,
// bwInter are allgathered and the minimum kept), which the tuner's view takes over the kinds
// (models/comm_plan/graph_search.cpp).
// Required alike across groups (a SpecError naming cluster.groups.<i>.instance otherwise): the GPU
// count per node (one placement of pods and GPUs over every node) and the NIC kind (one network).
// Compute: each rank's GPU is its node's (models/run/mixed_gpus.hpp).
// Tests: tests/models/world/node_kinds_test.cpp.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/hw/node.hpp"
#include "models/nccl/env.hpp"
#include "models/nccl/transport.hpp"
#include "models/spec.hpp"
#include "models/topology/node_graph.hpp"
#include "models/topology/placement.hpp"

namespace models {

struct NodeKind {
  explicit NodeKind(hw::NodeSpec n) : node(std::move(n)), graph(node) {}
  hw::NodeSpec node;
  topology::NodeGraph graph;
  std::optional<nccl::TransportModel> transports;  // refers to node and graph: a NodeKind never moves
};

// Built in the order errors are reported: the machines (and their graphs), then, after the World
// parsed [nccl.env], the placement and NCCL's transport rules per kind.
class NodeKinds {
 public:
  // Resolves the scenario's machines (cluster.instance or [cluster.node], or each group's
  // instance) and checks them alike where they must be. Throws SpecError.
  explicit NodeKinds(const ScenarioSpec& spec);
  // Places the ranks (topology::make_placement on the GPU count every kind shares).
  topology::Placement place(const ScenarioSpec& spec) const;
  void build_transports(const PlacementSpec& placement, const topology::Placement& layout, const nccl::NcclEnv& env);

  int count() const { return static_cast<int>(kinds_.size()); }
  const NodeKind& kind(int k) const { return *kinds_[k]; }
  int kind_of_node(int n) const { return kind_of_node_.empty() ? 0 : kind_of_node_[n]; }
  const NodeKind& of_node(int n) const { return *kinds_[kind_of_node(n)]; }
  // "2 x p5.48xlarge + 2 x p4d.24xlarge" (groups), or "" for one kind.
  const std::string& groups_text() const { return groups_text_; }

 private:
  std::vector<std::unique_ptr<NodeKind>> kinds_;
  std::vector<int> kind_of_node_;  // per World node (empty: one kind)
  std::string groups_text_;
};

}  // namespace models
