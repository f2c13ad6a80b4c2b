// The tuner's view of a communicator, as NCCL's graph search would rate it (graph_search.hpp).
#include "models/comm_plan/graph_search.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "models/comm_plan/comm_plan.hpp"
#include "models/topology/fabric.hpp"

namespace models::collectives {

namespace {
// NCCL's graph search (src/graph/search.cc) tries per-channel speeds from a list, highest first.
constexpr double kSpeedsSm90[] = {60, 50, 40, 30, 24, 20, 15, 12, 11, 6, 3, 2.4, 1.2, 0.24, 0.12};
constexpr double kSpeedsSm80[] = {40, 30, 20, 18, 15, 12, 10, 9, 7, 6, 5, 4, 3, 2.4, 1.2, 0.24, 0.12};

// Per-link bandwidth NCCL assumes for NVLink (src/graph/topo.h) and the raw one the catalog
// uses (models/hw/links.cpp: 25 GB/s per NVLink 3/4 link, 50 for NVLink 5), to count links.
// (nvidia-smi's 26.562 GB/s per NVLink-4 link would count 17 of an H200's 18 links, and the
// graph would settle on 14 x 24 GB/s instead of the 12 x 30 that NCCL logged on 4xH200.)
double nccl_nvlink_per_link(int sm) { return sm >= 100 ? 40.1 : sm >= 90 ? 20.6 : 20.0; }
double raw_nvlink_per_link(int sm) { return sm >= 100 ? 50.0 : 25.0; }

// PCIe as NCCL rates it (src/graph/topo.h): 0.76 of the raw bandwidth, at most 48 GB/s.
constexpr double kPciRating = 0.76;
constexpr double kPciMaxGbs = 48.0;

// Channels x speed for an intra-node graph whose paths allow `max_bw` GB/s per GPU. Observed:
// 12 x 30 GB/s on 4xH200 NVSwitch (scenarios/validation/h200x4/measured/nccl-tests/ar_g4_info.txt), so
// the search settles on the fastest speed that still gives 12 channels on NVLink; on PCI
// paths it keeps 2 channels (the PCI graphs of the seeds' logs run 2-4 coll channels).
void intra_graph(double max_bw, int sm, bool nvlink, double& speed, int& channels) {
  const double* list = sm >= 90 ? kSpeedsSm90 : kSpeedsSm80;
  const int count = sm >= 90 ? std::size(kSpeedsSm90) : std::size(kSpeedsSm80);
  const int want = nvlink ? 12 : 2;
  for (int i = 0; i < count; ++i) {
    if (std::floor(max_bw / list[i] + 1e-9) >= want) {
      speed = list[i];
      channels = std::min(16, static_cast<int>(std::floor(max_bw / list[i] + 1e-9)));
      if (!nvlink) channels = want;
      return;
    }
  }
  speed = list[count - 1];
  channels = 1;
}

// The network link class of a FlowNetwork link kind, as models/world/world.cpp names its links
// ("efa"; "ib" for InfiniBand and RoCE NICs; "eth" for the interface NET/Socket uses and the
// loopback between pods); nullopt for the links inside a host ("nvlink", "pcie", "hostmem").
std::optional<LinkClass> network_link_class(std::string_view kind) {
  if (kind == "efa") return LinkClass::EFA;
  if (kind == "ib" || kind == "roce") return LinkClass::IB;
  if (kind == "eth" || kind == "nic") return LinkClass::Socket;
  return std::nullopt;
}

// The intra-node graph: NVLink counted in links at NCCL's per-link speed, NET and PCIe as NCCL
// rates them; the first NCCL node with two ranks stands for all (they are alike).
void rate_intra_node_graph(const World& world, const sim::FlowNetwork& net,
                           const std::vector<std::vector<int>>& members, nccl::CommView& v) {
  for (const auto& m : members) {
    if (m.size() < 2) continue;
    const Edge e = make_edge(world, net, m[0], m[1]);
    const Transport t = world.transport(m[0], m[1]);
    double max_bw;
    if (t.kind == TransportKind::P2P && t.link_class == LinkClass::NVLink) {
      v.intra_nvlink = true;
      const double links = std::round(e.raw_bandwidth / 1e9 / raw_nvlink_per_link(v.sm));
      max_bw = std::max(1.0, links) * nccl_nvlink_per_link(v.sm);
    } else if (t.kind == TransportKind::NET) {
      max_bw = t.link_class == LinkClass::Socket ? kSocketReportedGbs
                                                 : e.raw_bandwidth / 1e9;  // the graph runs at NIC speed
    } else {
      max_bw = std::min(kPciMaxGbs, e.raw_bandwidth / 1e9 * kPciRating);
    }
    intra_graph(max_bw, v.sm, v.intra_nvlink, v.bw_intra_gbs, v.graph_channels);
    if (t.kind == TransportKind::NET) v.graph_channels = 1;
    return;
  }
}

// NICs node 0's ranks leave it by towards node 1: on each rank's path, the first network link.
int count_nics_leaving_node(const World& world, const sim::FlowNetwork& net,
                            const std::vector<std::vector<int>>& members) {
  std::set<uint32_t> nics;
  std::vector<sim::LinkId> p;
  for (int r : members[0]) {
    p.clear();
    world.path(r, members[1][0], p);
    for (sim::LinkId l : p)
      if (network_link_class(net.link_kind(l))) {
        nics.insert(l.index);
        break;
      }
  }
  return static_cast<int>(nics.size());
}

constexpr int kMaxRingGraphChannels = 32;  // src/init.cc ringGraph->maxChannels = MAXCHANNELS / 2

// NCCL's rating of an x16 PCIe link (src/graph/topo.cc ncclTopoAddPci: width x per-lane speed in
// 100 Mb/s (kvDictPciGen: Gen3 60, Gen4 120, Gen5 240, Gen6 480) / 80): Gen4 24, Gen5 48 GB/s.
double nccl_pcie_x16_gbs(int gen) { return 16.0 * (gen >= 6 ? 480 : gen == 5 ? 240 : gen == 4 ? 120 : 60) / 80.0; }

// The NVLS graph (tuning.hpp CommView::nvls): the node's NVSwitch multicast, NCCL_NVLS_ENABLE not
// 0, NVLink inside every NCCL node of two or more ranks, compute capability 9.0+ (search.cc).
// Across nodes, heads: one per NIC group a node leaves by, at most its ranks (search.cc, NVLS
// pattern: "NIC:GPU combinations ... heads"), at the network's speed. On one node every GPU is a
// head (minChannels = maxChannels: "pull evenly from all GPUs", <= NCCL_MAX_NVLS_ARITY 32), and
// the search (ncclTopoSearchTryNvls) loads each GPU's NVLink to the switch with bw per channel,
// 2 bw for the channel it heads, both ways: the fastest speed of the intra-node list with
// (heads + 1) x bw <= the GPU's NVLink bandwidth (H100/H200: 9 x 40 <= 18 x 20.6; B200:
// 9 x 80 <= 18 x 40.1). Pass 2 then raises bwInter alone while it is below 2 x bwIntra (60 and 90).
constexpr double kSpeedsSm100[] = {90, 80, 70, 60, 50, 40, 30, 24, 20, 19, 18};  // sm100SpeedArrayIntra
constexpr int kMaxNvlsArity = 32;                                                // NCCL_MAX_NVLS_ARITY

void rate_nvls(const World& world, const sim::FlowNetwork& net, const std::vector<std::vector<int>>& members,
               nccl::CommView& v) {
  std::size_t min_ppn = members[0].size();
  for (const auto& m : members) min_ppn = std::min(min_ppn, m.size());
  const hw::NodeSpec& node = world.node_of(world.rank(members[0][0]).node);
  v.nvls = node.nvls && world.nccl_env().nvls_enable && v.intra_nvlink && v.sm >= 90 && min_ppn > 1;
  // nvls.cc: NVLS_NCHANNELS 16 on Hopper; Blackwell 24 on one node, 32 across nodes.
  v.nvls_channels = v.sm >= 100 ? (members.size() > 1 ? 32 : 24) : 16;
  if (!v.nvls) {
    v.nvls_heads = 0;
    return;
  }
  if (members.size() > 1) {
    // One head per NIC the NVLS graph finds, at most NCCL_MAX_NVLS_ARITY (search.cc: the NVLS
    // graph's maxChannels = min(NCCL_MAX_NVLS_ARITY, GPUs); a GB200 NVL72 rack: 72 NICs, 32 heads).
    v.nvls_heads = std::min({v.graph_channels, static_cast<int>(min_ppn), kMaxNvlsArity});
    v.nvls_bw_intra_gbs = v.nvls_bw_inter_gbs = v.bw_inter_gbs;
    return;
  }
  const int heads = std::min(kMaxNvlsArity, static_cast<int>(min_ppn));
  const Edge e = make_edge(world, net, members[0][0], members[0][1]);
  const double links = std::max(1.0, std::round(e.raw_bandwidth / 1e9 / raw_nvlink_per_link(v.sm)));
  const double gpu_bw = links * nccl_nvlink_per_link(v.sm);
  const double* list = v.sm >= 100 ? kSpeedsSm100 : kSpeedsSm90;
  const int count = v.sm >= 100 ? static_cast<int>(std::size(kSpeedsSm100)) : static_cast<int>(std::size(kSpeedsSm90));
  int i = 0;
  while (i < count - 1 && (heads + 1) * list[i] > gpu_bw + 1e-9) ++i;
  v.nvls_heads = heads;
  v.nvls_bw_intra_gbs = list[i];
  int j = i;
  while (j > 0 && list[j] < 2 * list[i]) --j;
  v.nvls_bw_inter_gbs = list[j];
}

// CollNet (tuning.hpp CommView::collnet): NCCL_COLLNET_ENABLE=1, a SHARP fabric ([cluster.fabric]
// sharp; topology::Fabric refuses it off InfiniBand) and InfiniBand NICs, several NCCL nodes.
// Heads: one per NIC a node leaves by (the COLLNET_DIRECT graph stops at NCCL_MAX_DIRECT_ARITY + 1
// = 8), at most the ranks per node. bwIntra: pass 2 of the search raises it alone up the speed
// list while below 2 x bwInter ("increase bwIntra for trees (2 nodes or collnet)"), as for a tree
// on 2 nodes (tuning.cpp).
void rate_collnet(const World& world, const std::vector<std::vector<int>>& members, nccl::CommView& v) {
  std::size_t min_ppn = members[0].size();
  for (const auto& m : members) min_ppn = std::min(min_ppn, m.size());
  const hw::NodeSpec& node = world.node_of(world.rank(members[0][0]).node);
  v.nvswitch = node.nvswitch;
  // NCCL takes the collnet of the plugin whose net it uses (src/net.cc, ncclNetInit): over NET/Socket
  // (NCCL_NET=Socket, NCCL_IB_DISABLE=1) there is none (collnet_note in nccl/env_names.hpp says so).
  v.collnet = world.nccl_env().collnet_enable && world.fabric() && world.fabric()->sharp() &&
              node.nic_kind == hw::NicKind::Ib && members.size() > 1 &&
              world.transport(members[0][0], members[1][0]).net_plugin != NetPlugin::Socket;
  v.collnet_heads = v.collnet ? std::min({v.graph_channels, static_cast<int>(min_ppn), 8}) : 0;
  v.collnet_bw_intra_gbs = v.collnet ? std::min(2 * v.bw_inter_gbs, v.sm >= 100 ? 96.0 : 48.0) : 0;
}

// Across nodes: the speed NCCL's net plugin reports, and one graph channel per NIC used.
void rate_network(const World& world, const sim::FlowNetwork& net, const std::vector<std::vector<int>>& members,
                  nccl::CommView& v) {
  const Edge e = make_edge(world, net, members[0][0], members[1][0]);
  const Transport t = world.transport(members[0][0], members[1][0]);
  const hw::NodeSpec& node = world.node_of(world.rank(members[0][0]).node);
  // What NCCL's graph search rates the network at: the speed its net plugin reports. The
  // Socket plugin reads /sys/class/net/IF/speed and, where it cannot (lo, most virtual NICs:
  // "Could not get speed from /sys/class/net/lo/speed. Defaulting to 10 Gbps", sock_n4 log),
  // takes 10 Gb/s, whatever TCP really moves. A NIC plugin's device is reached over PCIe, and a
  // channel gets no more than that path's rating (search.cc getMaxBw: the GPU->NET path's
  // narrowest link). aws-ofi-nccl's RDMA protocol reports a GPU's group of EFAs as one device
  // (p5: 4 x 100 Gb/s -> 400 Gb/s, nccl_ofi_rdma.cpp get_properties "Scale speed by the total
  // number of rails") and writes its PCIe link scaled up to the GPU's (nccl_ofi_topo.cpp
  // write_nic), so on p5 the path is the GPU's Gen5 x16: 48 GB/s, under the device's 50.
  if (t.kind == TransportKind::NET && t.link_class == LinkClass::Socket) {
    v.bw_inter_gbs = kSocketReportedGbs;
  } else {
    v.bw_inter_gbs = e.raw_bandwidth / 1e9;
    if (t.kind == TransportKind::NET) v.bw_inter_gbs = std::min(v.bw_inter_gbs, nccl_pcie_x16_gbs(node.pcie_gen));
  }
  v.inter_gdr_near = t.gdr;
  v.net_latency_us = t.net_plugin == NetPlugin::Libfabric ? node.net_plugin_latency_us : 0.0;
  // The machine's own plugin offloads receives to the GPU (GPUDirect-TCPX); NCCL's Socket plugin,
  // where NCCL_NET=Socket forces it, is a host one.
  v.net_device_unpack = node.net_device_unpack && t.kind == TransportKind::NET && t.net_plugin != NetPlugin::Socket;
  // aws-ofi-nccl's tuner comes with its net plugin, on the hosts it knows (nccl/ofi_tuner.hpp).
  v.ofi_tuner =
      t.net_plugin == NetPlugin::Libfabric ? nccl::ofi_tuner_platform(node.name) : nccl::OfiTunerPlatform::None;
  // One graph channel per NIC, at most the ring graph's maxChannels = MAXCHANNELS / 2 = 32
  // (src/init.cc; MAXCHANNELS 64): a GB200 NVL72 rack leaves by 72 NICs, its graphs by 32.
  v.graph_channels = std::clamp(count_nics_leaving_node(world, net, members), 1, kMaxRingGraphChannels);
  if (v.bw_intra_gbs == 0) v.bw_intra_gbs = v.bw_inter_gbs;
  rate_collnet(world, members, v);
}
}  // namespace

namespace {
// The view as the NCCL node holding members[0] rates its own graph (the first node of two or more
// ranks for the intra-node graph, members[0] -> members[1] across the network).
nccl::CommView own_view(const World& world, const sim::FlowNetwork& net, const std::vector<std::vector<int>>& members,
                        int nranks) {
  nccl::CommView v;
  const int nnodes = static_cast<int>(members.size());
  v.nranks = nranks;
  v.nnodes = std::max(1, nnodes);
  v.sm = world.node_of(world.rank(members[0][0]).node).gpu.sm;  // the catalog's compute capability
  // The host's CPU vendor picks NCCL's multi-node LL ceiling and its network overhead (tuning.cpp).
  v.cpu_amd = world.node_of(world.rank(members[0][0]).node).cpu == hw::CpuVendor::Amd;
  v.cpu_arm = world.node_of(world.rank(members[0][0]).node).cpu == hw::CpuVendor::Arm;
  v.nccl_version = world.nccl_env().version;
  v.example_tuner = world.nccl_env().tuning.example_tuner;
  v.intra_nvlink = false;
  v.bw_intra_gbs = 0;
  v.graph_channels = 1;
  rate_intra_node_graph(world, net, members, v);
  if (nnodes > 1) rate_network(world, net, members, v);
  rate_nvls(world, net, members, v);
  if (v.bw_intra_gbs == 0) v.bw_intra_gbs = 1;
  return v;
}
}  // namespace

nccl::CommView tuner_view(const World& world, const sim::FlowNetwork& net, const std::vector<std::vector<int>>& members,
                          int nranks) {
  nccl::CommView v = own_view(world, net, members, nranks);
  if (!world.mixed() || members.size() < 2) return v;
  // Nodes of several instances ([[cluster.groups]]): each rank's NCCL rates its own node's graph,
  // and the communicator keeps the minimum over ranks of channels and speeds (src/init.cc
  // ncclTopoPostset after the allgather of every rank's graph info): one view per kind, combined.
  std::set<std::string> seen{world.node_of(world.rank(members[0][0]).node).name};
  for (std::size_t i = 1; i < members.size(); ++i) {
    if (!seen.insert(world.node_of(world.rank(members[i][0]).node).name).second) continue;
    std::vector<std::vector<int>> rotated(members.begin() + static_cast<std::ptrdiff_t>(i), members.end());
    rotated.insert(rotated.end(), members.begin(), members.begin() + static_cast<std::ptrdiff_t>(i));
    const nccl::CommView w = own_view(world, net, rotated, nranks);
    v.sm = std::min(v.sm, w.sm);
    v.cpu_amd = v.cpu_amd || w.cpu_amd;  // NCCL's mixed vendors take the AMD row of llMaxBws
    v.cpu_arm = v.cpu_arm || w.cpu_arm;
    v.intra_nvlink = v.intra_nvlink && w.intra_nvlink;
    v.bw_intra_gbs = std::min(v.bw_intra_gbs, w.bw_intra_gbs);
    v.bw_inter_gbs = std::min(v.bw_inter_gbs, w.bw_inter_gbs);
    v.graph_channels = std::min(v.graph_channels, w.graph_channels);
    v.inter_gdr_near = v.inter_gdr_near && w.inter_gdr_near;
    v.net_latency_us = std::max(v.net_latency_us, w.net_latency_us);
    // Each rank's NCCL reads its own plugin; PAT is taken as off where any rank's is off.
    v.net_device_unpack = v.net_device_unpack || w.net_device_unpack;
    if (v.ofi_tuner != w.ofi_tuner) v.ofi_tuner = nccl::OfiTunerPlatform::None;  // no one platform
    v.nvls = v.nvls && w.nvls;
    v.nvls_heads = v.nvls ? std::min(v.nvls_heads, w.nvls_heads) : 0;
    v.nvls_bw_intra_gbs = std::min(v.nvls_bw_intra_gbs, w.nvls_bw_intra_gbs);
    v.nvls_bw_inter_gbs = std::min(v.nvls_bw_inter_gbs, w.nvls_bw_inter_gbs);
    v.nvls_channels = std::min(v.nvls_channels, w.nvls_channels);
    v.nvswitch = v.nvswitch && w.nvswitch;
    v.collnet = v.collnet && w.collnet;
    v.collnet_heads = v.collnet ? std::min(v.collnet_heads, w.collnet_heads) : 0;
    v.collnet_bw_intra_gbs = std::min(v.collnet_bw_intra_gbs, w.collnet_bw_intra_gbs);
  }
  return v;
}

}  // namespace models::collectives
