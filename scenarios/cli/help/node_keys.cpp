// [cluster.node] keys and defaults (defaults from models/spec.hpp CustomNodeSpec and
// models/hw/node.cpp custom_node, where each one's source is given).
#include "scenarios/cli/help/node_keys.hpp"

#include <fmt/format.h>

#include "models/hw/gpu.hpp"

namespace scenarios {

namespace {
// Every GPU of the catalog, in its order (models/hw/gpu.cpp), so the help never falls behind it.
const std::string& catalog_gpus_line() {
  static const std::string line = [] {
    std::string out = "GPU model from the catalog: ";
    for (const auto& g : models::hw::gpu_catalog()) out += (out.back() == ' ' ? "" : ", ") + g.name;
    return out;
  }();
  return line;
}
}  // namespace

const std::vector<NodeKey>& node_keys() {
  static const std::vector<NodeKey> keys = {
      {"gpu", "required", "\"H200\"", catalog_gpus_line().c_str()},
      {"gpus", "required (or from topo_file)", "8", "GPUs in one node, 1 to 1024"},
      {"nvlink", "\"\" (none)", "\"nvlink4\"", "NVLink generation: nvlink2, nvlink3, nvlink4, nvlink5"},
      {"nvlink_links", "the GPU's own count", "18", "NVLink links per GPU"},
      {"nvswitch", "false", "true", "GPUs joined by NVSwitch (needs nvlink); else NVLink point to point"},
      {"pcie", "\"gen5\"", "\"gen5\"", "PCIe generation of the GPU slots: gen3, gen4, gen5, gen6"},
      {"pcie_lanes", "16", "16", "PCIe lanes per GPU: 1, 2, 4, 8 or 16"},
      {"numa_nodes", "1", "2", "NUMA nodes (CPU sockets); GPUs spread evenly over them"},
      {"nics", "0", "8", "network interfaces for NCCL (EFA, InfiniBand, RoCE or Ethernet) per node"},
      {"nic_bandwidth", "required when nics > 0; \"10 Gb/s\" for eth", "\"400 Gb/s\"",
       "line rate per NIC (also nic_bytes_per_s)"},
      {"nic_kind", "\"efa\"", "\"ib\"",
       "efa, ib, roce or eth (eth: the NICs are NET/Socket's interfaces, nics x nic_bandwidth in all)"},
      {"eth_bandwidth", "\"10 Gb/s\" (NCCL's rate for an interface that reports none)", "\"25 Gb/s\"",
       "the host's ordinary interface, used by NET/Socket; not with eth NICs (also eth_bytes_per_s)"},
      {"host_mem_bandwidth", "204.8 GB/s per NUMA node (8 x DDR4-3200)", "\"400 GB/s\"",
       "host memory bandwidth of the whole node, for CPU offload (also host_mem_bytes_per_s)"},
      {"topo_file", "none", "\"topo.txt\"",
       "`nvidia-smi topo -m` output of the node, relative to the scenario: the PCIe/NVLink layout"},
  };
  return keys;
}

std::string node_keys_text() {
  std::string out =
      "[cluster.node]: a machine not in the instance catalog (commsim instances), instead of cluster.instance.\n"
      "Without topo_file each GPU sits on its own PCIe root port (NODE within a NUMA node, SYS across), and so\n"
      "does each NIC: no GPU is near a NIC, so NCCL runs NET without GPUDirect RDMA (through host memory; the\n"
      "run's notes say so). For NICs beside the GPUs (HGX boards) give topo_file, or use the catalog instance.\n\n";
  out += fmt::format("  {:<20} {:<40} {}\n", "key", "default", "what");
  for (const auto& k : node_keys()) out += fmt::format("  {:<20} {:<40} {}\n", k.name, k.default_value, k.what);
  out +=
      "\nExample:\n"
      "  [cluster]\n  nodes = 2\n  [cluster.node]\n  gpu = \"H200\"\n  gpus = 8\n  nvlink = \"nvlink4\"\n"
      "  nvswitch = true\n  nics = 8\n  nic_kind = \"ib\"\n  nic_bandwidth = \"400 Gb/s\"\n"
      "Without topo_file this node's NICs have root ports of their own (no GPUDirect RDMA); the same machine\n"
      "with NIC i beside GPU i is the catalog's cluster.instance = \"dgx-h200\".\n";
  return out;
}

}  // namespace scenarios
