// Custom node descriptions ([cluster.node]) turned into a NodeSpec, with checks.
#include "models/hw/node.hpp"

#include "models/error.hpp"
#include "models/hw/links.hpp"

namespace models::hw {

const char* nic_kind_name(NicKind k) {
  switch (k) {
    case NicKind::None: return "none";
    case NicKind::Efa: return "efa";
    case NicKind::Ib: return "ib";
    case NicKind::Roce: return "roce";
    case NicKind::Eth: return "eth";
  }
  return "?";
}

NicKind parse_nic_kind(const std::string& text, const std::string& key) {
  if (text == "efa") return NicKind::Efa;
  if (text == "ib") return NicKind::Ib;
  if (text == "roce") return NicKind::Roce;
  if (text == "eth") return NicKind::Eth;
  if (text == "none" || text.empty()) return NicKind::None;
  throw SpecError(key, "unknown NIC kind '" + text + "' (expected efa, ib, roce or eth)");
}

NodeSpec custom_node(const CustomNodeSpec& spec) {
  NodeSpec n;
  n.name = "custom";
  n.citation = "scenario [cluster.node]";
  if (spec.gpu.empty())
    throw SpecError("cluster.node.gpu",
                    "a custom node without a GPU model (expected gpu = a catalog name, e.g. \"H200\")");
  n.gpu = find_gpu(spec.gpu, "cluster.node.gpu");
  if (spec.gpus <= 0 && spec.topo_file.empty())
    throw SpecError("cluster.node.gpus",
                    "gpus = " + std::to_string(spec.gpus) + " (expected at least 1, or a topo_file)");
  n.gpus = spec.gpus;
  n.nvlink_gen = parse_nvlink_gen(spec.nvlink, "cluster.node.nvlink");
  n.nvlink_links = n.nvlink_gen ? (spec.nvlink_links > 0 ? spec.nvlink_links : n.gpu.nvlink_links) : 0;
  if (n.nvlink_gen && n.nvlink_links <= 0)
    throw SpecError("cluster.node.nvlink_links",
                    "NVLink is set but the number of links per GPU is not (expected nvlink_links >= 1)");
  n.nvswitch = spec.nvswitch && n.nvlink_gen > 0;
  if (spec.nvswitch && !n.nvlink_gen)
    throw SpecError("cluster.node.nvswitch",
                    "nvswitch = true without NVLink (expected an NVLink generation, e.g. nvlink = \"nvlink4\")");
  n.pcie_gen = parse_pcie_gen(spec.pcie, "cluster.node.pcie");
  pcie(n.pcie_gen, spec.pcie_lanes, "cluster.node.pcie_lanes");  // validates the width
  n.pcie_lanes = spec.pcie_lanes;
  if (spec.numa_nodes < 1)
    throw SpecError("cluster.node.numa_nodes",
                    "numa_nodes = " + std::to_string(spec.numa_nodes) + " (expected at least 1)");
  n.numa_nodes = spec.numa_nodes;
  // Without more detail, each GPU sits on its own root port (nvidia-smi: NODE within a NUMA
  // node, SYS across), the common layout of PCIe-only servers.
  n.gpus_per_switch = 0;
  n.gpus_per_host_bridge = 1;
  n.nic_kind = parse_nic_kind(spec.nic_kind, "cluster.node.nic_kind");
  if (spec.nics < 0)
    throw SpecError("cluster.node.nics", "nics = " + std::to_string(spec.nics) + " (expected 0 or more)");
  n.nics = spec.nics;
  if (n.nics == 0) n.nic_kind = NicKind::None;
  if (n.nics > 0 && n.nic_kind != NicKind::Eth && spec.nic_bytes_per_s <= 0)
    throw SpecError("cluster.node.nic_bandwidth",
                    std::to_string(n.nics) + " NICs but no NIC bandwidth (expected nic_bandwidth, e.g. \"400 Gb/s\")");
  n.nic_bytes_per_s = spec.nic_bytes_per_s;
  // NCCL assumes 10 Gb/s for an interface that reports no speed (src/misc/socket.cc); use that
  // when the scenario gives no Ethernet bandwidth.
  constexpr double kUnreportedEthBytesPerS = 10e9 / 8;
  n.eth_bytes_per_s = spec.eth_bytes_per_s > 0 ? spec.eth_bytes_per_s : kUnreportedEthBytesPerS;
  if (n.nic_kind == NicKind::Eth) {
    // Ethernet NICs have no RDMA plugin: they are NET/Socket's interfaces. The Socket plugin opens
    // one net device per interface it finds (src/transport/net_socket.cc, ncclFindInterfaces), each
    // at its own speed, and channels spread over them, so together they are the node's Socket link:
    // eth rate = nics x nic_bandwidth (10 Gb/s each when not given, as NCCL assumes).
    if (spec.eth_bytes_per_s > 0)
      throw SpecError("cluster.node.eth_bandwidth",
                      "eth_bandwidth together with nic_kind = \"eth\": both describe the interfaces NET/Socket "
                      "uses (expected nics and nic_bandwidth for the Ethernet NICs, or eth_bandwidth and no nics)");
    if (n.nic_bytes_per_s <= 0) n.nic_bytes_per_s = kUnreportedEthBytesPerS;
    n.eth_bytes_per_s = n.nics * n.nic_bytes_per_s;
  }
  if (n.nic_kind == NicKind::Efa) n.efa_generation = 1;
  // aws-ofi-nccl's fall-through default for hosts it does not list (src/platform-aws.cpp).
  if (n.nic_kind == NicKind::Efa) n.net_plugin_latency_us = 75;
  n.eth_driver = "unknown";
  // Default host memory: 8 x DDR4-3200 channels per NUMA node (204.8 GB/s), a common server.
  n.host_mem_bytes_per_s =
      spec.host_mem_bytes_per_s > 0 ? spec.host_mem_bytes_per_s : n.numa_nodes * ddr_bytes_per_s(8, 3200);
  n.cpu_family = "generic";
  return n;
}

}  // namespace models::hw
