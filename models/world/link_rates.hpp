#pragma once
// One kind of node's link rates for the World's flow network: each link class's raw bandwidth and
// latency from the catalog (models/hw/links.hpp, the node's NodeSpec), overridden by the scenario's
// [cluster.params] (models/params_links.hpp), and the efficiency a port's capacity carries (NVLink, the
// NICs): flows through one port share that fraction of its raw rate (models/world/world.cpp).
#include "models/hw/node.hpp"
#include "models/spec.hpp"
#include "models/topology/node_graph.hpp"

namespace models {

struct NodeLinkRates {
  int gpus = 0;
  double nvl_bw = 0, nvl_lat = 0, nvl_eff = 1;
  double pcie_bw = 0, pcie_lat = 0, mem_bw = 0, nic_bw = 0, nic_lat = 0, eth_bw = 0, eth_lat = 0;
  double host_pcie_bw = 0;  // a PCIe switch's uplink to the CPU (NodeSpec::host_link_gen); pcie_bw where the same
  double nic_eff = 1;
  // What nic.latency and eth.latency add to each network step: the scenario's value less the
  // catalog's (0 unless set). NCCL's per-step latencies (`efa.hop_latency.*`, `ib.hop_latency.*`,
  // `socket.hop_latency.*`) already hold the catalog's wire, so a changed wire moves them by the
  // difference, never below 0 per step (world.cpp).
  double nic_lat_added = 0, eth_lat_added = 0;
  const char* nic_kind = "eth";  // the NIC links' kind as `run --json` names it: "efa", "ib", "eth"
};

NodeLinkRates node_link_rates(const ScenarioSpec& spec, const hw::NodeSpec& node, const topology::NodeGraph& graph);

}  // namespace models
