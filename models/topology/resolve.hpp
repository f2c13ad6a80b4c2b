#pragma once
// The node a scenario's cluster describes: a catalog instance, or a custom node whose
// `nvidia-smi topo -m` file (cluster.node.topo_file) is imported and checked against the
// numbers the scenario gives.
#include "models/hw/node.hpp"
#include "models/spec.hpp"

namespace models::topology {

// What a custom node with NICs and no topo_file says in its runs' notes across nodes
// (hw::NodeSpec::network_note): its NICs sit on root ports of their own, so NCCL's NET runs
// without GPUDirect RDMA.
inline constexpr const char* kCustomNicNote =
    "[cluster.node] without topo_file puts each NIC on a PCIe root port of its own, away from every "
    "GPU (NODE or SYS), so NCCL's NET runs without GPUDirect RDMA at its default NCCL_NET_GDR_LEVEL "
    "(PXB): through host memory and the GPUs' PCIe slots (expected topo_file, the node's "
    "`nvidia-smi topo -m`, for NICs beside the GPUs, or the machine's catalog instance: commsim instances)";

// Throws SpecError ("cluster.instance", "cluster.node.*") or ParseError (the topo file). A custom
// node with NICs and no topo_file carries kCustomNicNote.
hw::NodeSpec resolve_node(const ClusterSpec& cluster);
// A custom node from an already-parsed matrix (tests; `commsim topo` on a pasted matrix).
hw::NodeSpec node_from_matrix(const CustomNodeSpec& spec, const hw::SmiMatrix& m);

}  // namespace models::topology
