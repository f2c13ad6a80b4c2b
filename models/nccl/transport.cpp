// NCCL's P2P -> SHM -> NET decision per rank pair, NIC groups and network plugins.
#include "models/nccl/transport.hpp"

#include <algorithm>
#include <cmath>

#include "models/error.hpp"
#include "models/hw/links.hpp"

namespace models::nccl {

namespace {
// NCCL has no NODE: nvidia-smi's NODE is NCCL's PHB (crossing host bridges of one CPU).
PathType nccl_type(PathType t) { return t == PathType::NODE ? PathType::PHB : t; }
bool is_nvlink(PathType t) { return t == PathType::NVL || t == PathType::NVB; }
}  // namespace

NetPlugin choose_net_plugin(hw::NicKind nic_kind, bool efa_plugin_ok, bool pod_has_nic, const NcclEnv& env) {
  const std::optional<NetPlugin>& forced = env.net;
  const std::string key = "nccl.env.NCCL_NET";
  switch (nic_kind) {
    case hw::NicKind::Efa: {
      const bool ok = efa_plugin_ok && pod_has_nic;
      if (forced == NetPlugin::IB)
        throw SpecError(key, "NCCL_NET=IB but the node's NICs are EFA (no InfiniBand device)");
      if (forced == NetPlugin::Libfabric && !ok)
        throw SpecError(key,
                        "NCCL_NET=Libfabric but aws-ofi-nccl cannot initialise (no EFA for the pod, or "
                        "placement.efa_plugin_ok = false)");
      return ok && forced != NetPlugin::Socket ? NetPlugin::Libfabric : NetPlugin::Socket;
    }
    case hw::NicKind::Ib:
    case hw::NicKind::Roce:
      if (forced == NetPlugin::Libfabric) throw SpecError(key, "NCCL_NET=Libfabric but the node has no EFA");
      if (forced == NetPlugin::IB && env.ib_disable)
        throw SpecError(key, "NCCL_NET=IB together with NCCL_IB_DISABLE=1");
      return !env.ib_disable && pod_has_nic && forced != NetPlugin::Socket ? NetPlugin::IB : NetPlugin::Socket;
    default:
      if (forced == NetPlugin::IB || forced == NetPlugin::Libfabric)
        throw SpecError(key, std::string("NCCL_NET=") + net_plugin_name(*forced) + " but the node has no " +
                                 (forced == NetPlugin::IB ? "InfiniBand" : "EFA") + " NIC");
      return NetPlugin::Socket;
  }
}

TransportModel::TransportModel(const hw::NodeSpec& node, const topology::NodeGraph& graph,
                               const PlacementSpec& placement, const topology::Placement& layout, const NcclEnv& env)
    : node_(node),
      graph_(graph),
      placement_(placement),
      layout_(layout),
      env_(env),
      nics_(assign_nics(graph, layout, placement.nics_per_pod)) {
  for (int pod = 0; pod < layout_.pods_per_node; ++pod)
    pod_plugin_.push_back(
        choose_net_plugin(node_.nic_kind, placement_.efa_plugin_ok, !nics_.pod_nics[pod].empty(), env_));
  // src/init.cc: ncclMnnvlCheck runs when nNodes > 1 and NCCL_MNNVL_ENABLE != 0 and the P2P level
  // is not 0; it needs cuMem (src/mnnvl.cc). The placement spans hosts of the domain when the GPUs
  // it uses on a node reach past the first host.
  const int used = layout_.pods_per_node * layout_.gpus_per_pod;
  mnnvl_ = node_.host_gpus > 0 && node_.nvswitch && used > node_.host_gpus && env_.mnnvl_enable &&
           env_.cumem_enable && !env_.p2p_disable;
}

bool TransportModel::same_host_hash(const RankInfo& a, const RankInfo& b) const {
  return a.node == b.node && node_.host_of(a.local_gpu) == node_.host_of(b.local_gpu) &&
         (a.pod == b.pod || placement_.host_network || !env_.hostid.empty());
}

int TransportModel::nccl_nodes() const {
  // MNNVL fuses a domain's hosts into one NCCL node (src/graph/topo.cc, clique as local ranks).
  if (mnnvl_) return layout_.nodes;
  bool shared = placement_.host_network || !env_.hostid.empty();
  if (node_.host_gpus <= 0) return layout_.nodes * (shared ? 1 : layout_.pods_per_node);
  // A multi-host node without MNNVL: one NCCL node per host, or per (pod, host) when pods do not
  // share a host hash.
  int count = 0, last_pod = -1, last_host = -1;
  for (int g = 0; g < layout_.pods_per_node * layout_.gpus_per_pod; ++g) {
    const int pod = shared ? 0 : g / layout_.gpus_per_pod, host = node_.host_of(g);
    if (pod != last_pod || host != last_host) ++count;
    last_pod = pod;
    last_host = host;
  }
  return layout_.nodes * count;
}

PathType TransportModel::p2p_level(const RankInfo& a) const {
  if (env_.p2p_disable) return PathType::LOC;
  if (env_.p2p_level) return *env_.p2p_level;
  // GPUs in this rank's NCCL topology: its pod's, or the node's used GPUs when pods share a host hash.
  int gpus = (placement_.host_network || !env_.hostid.empty()) ? layout_.pods_per_node * layout_.gpus_per_pod
                                                               : layout_.gpus_per_pod;
  (void)a;
  // paths.cc: PXB by default; SYS between pairs of GPUs on AMD hosts.
  if (node_.cpu == hw::CpuVendor::Amd && gpus <= 2) return PathType::SYS;
  return PathType::PXB;
}

bool TransportModel::net_faster(int ga, int gb, bool p2p) const {
  // paths.cc ncclTopoCheckNet: use NET inside a host when both GPUs reach a NIC at PXB or closer
  // faster than they reach each other.
  if (env_.net_disable_intra) return false;
  double speed = p2p ? graph_.gpu_gpu(ga, gb).nccl_bytes_per_s : graph_.nccl_via_cpu_bytes_per_s(ga, gb);
  auto net_speed = [&](int g) {
    double s = 0;
    if (nics_.gpu_group[g] < 0) return s;
    for (int n : nics_.groups[nics_.gpu_group[g]].nics) {
      const auto& p = graph_.gpu_nic(g, n);
      if (nccl_type(p.type) <= PathType::PXB) s = std::max(s, p.nccl_bytes_per_s);
    }
    return s;
  };
  return net_speed(ga) > speed && net_speed(gb) > speed;
}

Transport TransportModel::choose(const RankInfo& a, const RankInfo& b) const { return decide(a, b, true); }
Transport TransportModel::route(const RankInfo& a, const RankInfo& b) const { return decide(a, b, false); }

Transport TransportModel::decide(const RankInfo& a, const RankInfo& b, bool labelled) const {
  const int ga = a.local_gpu, gb = b.local_gpu;
  const bool same_host = same_host_hash(a, b);
  const bool same_shm = a.pod == b.pod || (a.node == b.node && placement_.host_ipc);
  Transport t;
  if (same_host && same_shm && a.pod == b.pod && ga != gb) {
    const topology::PathInfo& path = graph_.gpu_gpu(ga, gb);
    bool ok = nccl_type(path.type) <= p2p_level(a);
    if (ok && !is_nvlink(path.type) && !node_.pcie_p2p_ok) ok = false;  // NVML P2P status not OK
    if (ok && net_faster(ga, gb, true)) ok = false;
    if (ok) {
      t.kind = TransportKind::P2P;
      t.path = path.type;
      t.link_class = is_nvlink(path.type) ? LinkClass::NVLink : LinkClass::PCIe;
      // paths.cc: read only for NVLink between SM80 GPUs; p2p.cc: NCCL_P2P_READ_ENABLE overrides.
      t.p2p_read = path.type == PathType::NVL && node_.gpu.sm == 80;
      if (env_.p2p_read_enable) t.p2p_read = *env_.p2p_read_enable;
      if (!labelled) return t;
      if (placement_.single_process && !env_.p2p_use_cuda_memcpy)
        t.label = "P2P/direct pointer";
      else  // p2p.cc: a communicator with MNNVL on logs every cuMem P2P connection as "P2P/MNNVL"
        t.label = mnnvl_ ? "P2P/MNNVL" : env_.cumem_enable ? "P2P/CUMEM" : "P2P/IPC";
      if (t.p2p_read) t.label += "/read";
      if (env_.p2p_use_cuda_memcpy) t.label += "/CE";
      return t;
    }
  }
  if (!same_host && mnnvl_ && a.node == b.node && ga != gb) {
    // MNNVL: P2P to a GPU of another host of the domain, through the NVLink switches (paths.cc
    // ncclTopoCheckP2p; write mode, p2p.cc logs "P2P/MNNVL").
    t.kind = TransportKind::P2P;
    t.path = graph_.gpu_gpu(ga, gb).type;
    t.link_class = LinkClass::NVLink;
    t.p2p_read = node_.gpu.sm == 80 && t.path == PathType::NVL;
    if (env_.p2p_read_enable) t.p2p_read = *env_.p2p_read_enable;
    if (!labelled) return t;
    t.label = "P2P/MNNVL";
    if (t.p2p_read) t.label += "/read";
    if (env_.p2p_use_cuda_memcpy) t.label += "/CE";
    return t;
  }
  if (!env_.shm_disable && same_host && same_shm && ga != gb && !net_faster(ga, gb, false)) {
    t.kind = TransportKind::SHM;
    t.link_class = LinkClass::SHM;
    t.path = graph_.gpu_gpu(ga, gb).type;
    if (labelled) t.label = "SHM/direct/direct";
    return t;
  }
  t.kind = TransportKind::NET;
  t.path = PathType::NET;
  const int pod_in_node = a.pod - a.node * layout_.pods_per_node;
  const NetPlugin plugin = pod_plugin_[pod_in_node];
  t.net_plugin = plugin;
  int dev = 0;
  if (plugin == NetPlugin::Socket) {
    t.link_class = LinkClass::Socket;
  } else {
    t.link_class = plugin == NetPlugin::IB ? LinkClass::IB : LinkClass::EFA;
    int group = nics_.gpu_group[ga];
    PathType level = env_.net_gdr_level.value_or(PathType::PXB);
    t.gdr = group >= 0 && nccl_type(graph_.gpu_nic(ga, nics_.groups[group].nics.front()).type) <= level;
    dev = nics_.gpu_nic_label[ga];
    if (group >= 0 && !t.gdr) t.pxn_gpu = pxn_relay(a, nics_.groups[group].nics.front());
    if (t.pxn_gpu) t.gdr = true;
  }
  if (!labelled) return t;
  t.label = std::string("NET/") + net_plugin_name(plugin) + "/" + std::to_string(dev);
  if (t.pxn_gpu) {  // the relay rank, as net.cc logs it: "NET/<plugin>/<dev>(<rank>)"
    t.label += '(';
    t.label += std::to_string(a.rank + *t.pxn_gpu - ga);
    t.label += ')';
  }
  if (t.gdr) t.label += "/GDRDMA";
  return t;
}

std::optional<int> TransportModel::pxn_relay(const RankInfo& a, int nic) const {
  // paths.cc (ncclTopoComputePaths, "Update paths for NICs"): GPU g reaches NIC n through the
  // NIC's local GPU p when PXN is on (NCCL_PXN_DISABLE != 1) and p (1) is at PXB or closer to n
  // with GDR, (2) joins g over NVLink, (3) is on g's host (here: in g's pod, a rank of g's NCCL
  // node), and (4) g's own path to n goes through the CPU (type > PXN). Send direction only
  // ("favor receiving locally and sending remotely"): a receive stays on g's own path.
  if (env_.pxn_disable) return std::nullopt;
  const int ga = a.local_gpu;
  if (nccl_type(graph_.gpu_nic(ga, nic).type) <= PathType::PXN) return std::nullopt;
  const int first = ga - a.pod_rank;
  const PathType level = env_.net_gdr_level.value_or(PathType::PXB);
  for (int p = first; p < first + layout_.gpus_per_pod; ++p) {
    if (p == ga) continue;
    const PathType to_nic = nccl_type(graph_.gpu_nic(p, nic).type);
    if (to_nic <= PathType::PXB && to_nic <= level && graph_.gpu_gpu(ga, p).type == PathType::NVL) return p;
  }
  return std::nullopt;
}

int TransportModel::p2p_channels(const RankInfo& a, const RankInfo& b) const {
  Transport t = choose(a, b);
  int n = 2;
  if (t.kind == TransportKind::P2P && t.path == PathType::NVL) {
    // 2 x (path bandwidth / one NVLink's bandwidth), NCCL's own per-link figures.
    double per_link = hw::nvlink(node_.nvlink_gen).nccl_bytes_per_s;
    n = 2 * std::max(1, static_cast<int>(graph_.gpu_gpu(a.local_gpu, b.local_gpu).nccl_bytes_per_s / per_link));
  } else if (t.kind == TransportKind::NET && !same_host_hash(a, b)) {
    // At least one channel per NIC, more to reach the NICs' bandwidth at 14 GB/s per channel
    // (NCCL_P2P_PER_CHANNEL_NET_BW).
    int group = nics_.gpu_group[a.local_gpu];
    if (group >= 0 && t.net_plugin != NetPlugin::Socket) {
      int count = static_cast<int>(nics_.groups[group].nics.size());
      double gbs = count * node_.nic_bytes_per_s / 1e9;
      n = std::max(count, static_cast<int>(std::ceil(gbs / 14.0)));
    }
  }
  // seeds/000 (1 EFA per pod) and seeds/004 (Socket) both log "2 p2p channels per peer": NCCL
  // never goes below the 2 a communicator starts with.
  n = std::max(n, 2);
  // The communicator's channel limits (NCCL_MIN/MAX_NCHANNELS with NCCL_MIN/MAX_CTAS, env.cpp):
  // p2pnChannels is at most comm->nChannels, which they bound (paths.cc ncclTopoComputeP2pChannels).
  if (env_.tuning.max_channels) n = std::min(n, *env_.tuning.max_channels);
  if (env_.tuning.min_channels) n = std::max(n, *env_.tuning.min_channels);
  return std::min(n, max_channels_of(env_.version));
}

}  // namespace models::nccl
