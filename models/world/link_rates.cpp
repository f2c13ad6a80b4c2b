// One kind of node's link rates (link_rates.hpp).
#include "models/world/link_rates.hpp"

#include <algorithm>

#include "models/hw/efa_generations.hpp"
#include "models/hw/links.hpp"
#include "models/params.hpp"

namespace models {

namespace {
const char* nic_link_kind(hw::NicKind k) {
  switch (k) {
    case hw::NicKind::Efa: return "efa";
    case hw::NicKind::Ib:
    case hw::NicKind::Roce: return "ib";
    default: return "eth";
  }
}
}  // namespace

NodeLinkRates node_link_rates(const ScenarioSpec& spec, const hw::NodeSpec& node, const topology::NodeGraph& graph) {
  NodeLinkRates k;
  const int ng = k.gpus = graph.gpus();
  if (node.nvlink_gen) {
    hw::LinkTech nvl = hw::nvlink(node.nvlink_gen);
    // A GPU's NVLink port: all its links (through NVSwitch every peer shares them).
    int links = node.nvlink_links;
    if (node.imported)
      for (int b = 1; b < ng; ++b) links = std::max(links, graph.gpu_gpu(0, b).nv_links);
    k.nvl_bw = param_or(spec.cluster.params, "nvlink.bandwidth", links * nvl.bytes_per_s);
    // NCCL's Simple protocol moves at most this fraction of a port's raw bandwidth, whatever the
    // number of flows through it (a ring's one edge per direction, all-to-all's n-1, a Tree
    // chain's two): 4 x H200 ring all-reduce 354 of 450 GB/s (ar_g4.txt), and NCCL reaches the
    // same fraction with all-to-all. So the port's capacity carries the efficiency
    // and the per-flow caps (models/collectives/flow_cap.hpp) keep the protocol's and channels'
    // terms; raw_capacity() keeps the physical bandwidth for the tuner and calibrate. By NVLink
    // generation unless set (hw::nvlink_simple_efficiency; the engine's caps follow the same rule).
    k.nvl_eff = param_or(spec.cluster.params, "nvlink.efficiency.simple",
                         hw::nvlink_simple_efficiency(node.nvlink_gen, param_default("nvlink.efficiency.simple")));
    k.nvl_lat = param_or(spec.cluster.params, "nvlink.latency",
                         nvl.latency_s + (node.nvswitch ? hw::nvswitch(4).latency_s : 0));
  }
  hw::LinkTech pci = hw::pcie(node.pcie_gen, node.pcie_lanes);
  k.pcie_bw = param_or(spec.cluster.params, "pcie.bandwidth", pci.bytes_per_s);
  k.host_pcie_bw =
      param_or(spec.cluster.params, "pcie.bandwidth", hw::pcie(node.host_link_gen(), node.pcie_lanes).bytes_per_s);
  k.pcie_lat = param_or(spec.cluster.params, "pcie.latency", pci.latency_s);
  k.mem_bw = param_or(spec.cluster.params, "hostmem.bandwidth", node.host_mem_bytes_per_s);
  hw::LinkTech nic = node.nic_kind == hw::NicKind::Efa    ? hw::efa(node.efa_generation, node.nic_bytes_per_s * 8 / 1e9)
                     : node.nic_kind == hw::NicKind::Roce ? hw::roce(node.nic_bytes_per_s * 8 / 1e9)
                     : node.nic_kind == hw::NicKind::Ib ? hw::infiniband(hw::infiniband_rate_for(node.nic_bytes_per_s))
                                                        : hw::infiniband(node.nic_bytes_per_s > 25e9 ? "ndr" : "hdr");
  k.nic_bw = param_or(spec.cluster.params, "nic.bandwidth", node.nic_bytes_per_s);
  k.nic_lat = param_or(spec.cluster.params, "nic.latency", nic.latency_s);
  k.nic_lat_added = k.nic_lat - nic.latency_s;
  hw::LinkTech eth = node.eth_driver == "virtio" ? hw::virtio_nic(node.eth_bytes_per_s * 8 / 1e9)
                                                 : hw::ena(node.eth_bytes_per_s * 8 / 1e9);
  k.eth_bw = param_or(spec.cluster.params, "eth.bandwidth", node.eth_bytes_per_s);
  k.eth_lat = param_or(spec.cluster.params, "eth.latency", eth.latency_s);
  k.eth_lat_added = k.eth_lat - eth.latency_s;
  k.nic_kind = nic_link_kind(node.nic_kind);
  // A NIC moves at most NCCL's Simple efficiency of its line rate, whatever the number of flows
  // through it, as an NVLink port does (above): so its capacity carries that efficiency, and flows
  // that converge on it (a tree's interior node, all-to-all, concurrent collectives) share
  // eta x line rate, not the line rate. Each flow's own cap (flow_cap.hpp) is unchanged. The
  // efficiency is the engine's (LinkParams::for_node): EFA by generation (efa_generations.cpp),
  // InfiniBand and RoCE ib.efficiency.simple (the machine's own where its transport has one:
  // hw::NodeSpec::link_params); a scenario's [cluster.params] or profile overrides.
  if (node.nic_kind == hw::NicKind::Efa) {
    const hw::EfaGenerationParams* g = hw::efa_generation_params(node.efa_generation);
    const double catalog = g ? g->efficiency[2] : param_default("efa.efficiency.simple");
    k.nic_eff = param_or(spec.cluster.params, "efa.efficiency.simple", catalog);
  } else if (node.nic_kind == hw::NicKind::Ib || node.nic_kind == hw::NicKind::Roce) {
    k.nic_eff = param_or(spec.cluster.params, "ib.efficiency.simple",
                         node.link_param_or("ib.efficiency.simple", param_default("ib.efficiency.simple")));
  }
  return k;
}

}  // namespace models
