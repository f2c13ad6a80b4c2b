// Catalog instance or custom node, with the topo file import and its consistency checks.
#include "models/topology/resolve.hpp"

#include "models/error.hpp"
#include "models/hw/instance.hpp"
#include "models/readers/smi_topo.hpp"

namespace models::topology {

hw::NodeSpec node_from_matrix(const CustomNodeSpec& spec, const hw::SmiMatrix& m) {
  CustomNodeSpec s = spec;
  if (s.gpus > 0 && s.gpus != m.gpus)
    throw SpecError("cluster.node.gpus", "gpus = " + std::to_string(s.gpus) + " but the topo file shows " +
                                             std::to_string(m.gpus) + " GPUs (expected the same count)");
  s.gpus = m.gpus;
  if (m.nics > 0 && s.nics != m.nics)
    throw SpecError("cluster.node.nics", "nics = " + std::to_string(s.nics) + " but the topo file shows " +
                                             std::to_string(m.nics) +
                                             " NICs (expected nics and the NIC bandwidth to match the file)");
  int max_links = 0;
  for (const auto& row : m.nv_links)
    for (int n : row) max_links = std::max(max_links, n);
  if (max_links > 0 && s.nvlink.empty())
    s.nvlink = "nvlink" + std::to_string(std::max(2, hw::find_gpu(s.gpu).nvlink_gen));
  if (max_links > 0 && s.nvlink_links == 0) s.nvlink_links = max_links;
  int numa = 1;
  for (int x : m.gpu_numa) numa = std::max(numa, x + 1);
  s.numa_nodes = std::max(s.numa_nodes, numa);
  hw::NodeSpec n = hw::custom_node(s);
  n.imported = m;
  n.citation = "nvidia-smi topo -m: " + spec.topo_file;
  return n;
}

hw::NodeSpec resolve_node(const ClusterSpec& cluster) {
  if (cluster.node) {
    if (!cluster.instance.empty())
      throw SpecError("cluster.instance", "both cluster.instance and [cluster.node] given (expected one of them)");
    if (!cluster.node->topo_file.empty())
      return node_from_matrix(*cluster.node, readers::read_smi_topo_file(cluster.node->topo_file));
    hw::NodeSpec n = hw::custom_node(*cluster.node);
    // node_graph.cpp puts each NIC of such a node on a host bridge of its own, as each GPU: no GPU
    // is within NCCL's default NCCL_NET_GDR_LEVEL (PXB) of a NIC, so NET runs without GPUDirect RDMA.
    if (n.nics > 0 && n.nic_kind != hw::NicKind::Eth && n.nics_per_switch == 0) n.network_note = kCustomNicNote;
    return n;
  }
  if (cluster.instance.empty())
    throw SpecError("cluster.instance",
                    "no machine given (expected cluster.instance, e.g. \"p4d.24xlarge\", or [cluster.node])");
  return hw::find_instance(cluster.instance);
}

}  // namespace models::topology
