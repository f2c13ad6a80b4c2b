#pragma once
// The node a scenario's cluster describes: a catalog instance, or a custom node whose
// `nvidia-smi topo -m` file (cluster.node.topo_file) is imported and checked against the
// numbers the scenario gives.
#include "models/hw/node.hpp"
#include "models/spec.hpp"

namespace models::topology {

// Throws SpecError ("cluster.instance", "cluster.node.*") or ParseError (the topo file).
hw::NodeSpec resolve_node(const ClusterSpec& cluster);
// A custom node from an already-parsed matrix (tests; `commsim topo` on a pasted matrix).
hw::NodeSpec node_from_matrix(const CustomNodeSpec& spec, const hw::SmiMatrix& m);

}  // namespace models::topology
