#pragma once
// NCCL's choice of transport between two ranks, computed on demand from per-node tables (nothing
// per rank pair is stored). Where ranks sit is models/topology/placement.hpp.
//
// NCCL tries P2P, then SHM, then NET (src/transport.cc) and takes the first that connects:
//  - P2P (src/transport/p2p.cc, src/graph/paths.cc ncclTopoCheckP2p): same host hash, same
//    /dev/shm, the peer GPU visible (here: same pod; a pod sees only its own GPUs), path type <=
//    NCCL_P2P_LEVEL (default PXB; SYS on AMD hosts with <= 2 GPUs; NCCL_P2P_DISABLE=1 -> LOC),
//    NVML P2P OK, and the network not faster (ncclTopoCheckNet). Read mode: NVLink between two
//    SM80 GPUs, or NCCL_P2P_READ_ENABLE. Label: "P2P/direct pointer" (one process), "P2P/CUMEM"
//    (cuMem, default), "P2P/IPC" (NCCL_CUMEM_ENABLE=0), then "/read", "/CE".
//  - SHM (src/transport/shm.cc): NCCL_SHM_DISABLE not 1, same host hash and /dev/shm (same pod,
//    or pods sharing the host IPC namespace), network not faster: "SHM/direct/direct".
//  - NET (src/transport/net.cc): "NET/<plugin>/<dev>[/GDRDMA]". Plugin: aws-ofi-nccl
//    ("Libfabric") on EFA when it initialises (placement.efa_plugin_ok and the pod has an EFA),
//    IB verbs on IB/RoCE unless NCCL_IB_DISABLE=1, else Socket; NCCL_NET forces one. GDRDMA when
//    the plugin supports it and the GPU-NIC path is <= NCCL_NET_GDR_LEVEL (default PXB).
// Host hash (src/misc/utils.cc getHostHash): hostname + boot id, or NCCL_HOSTID. Pods have their
// own hostname unless placement.host_network, so pods of one host count as separate nodes
// (seeds/000: 4 pods x 1 GPU on one p4d -> nNodes 4, NET/Libfabric/0/GDRDMA). NCCL_HOSTID is
// taken as set per node (pods of a node share it), the only way it is useful.
// Multi-node NVLink (MNNVL): a node of several hosts (hw::NodeSpec::host_gpus, e.g. an NVL72 rack
// of 4-GPU trays) is one NVLink domain. Hosts are told apart as above (each tray its own host
// hash). NCCL (src/init.cc, src/mnnvl.cc ncclMnnvlCheck) turns MNNVL on when the communicator spans
// hosts, NCCL_MNNVL_ENABLE is not 0, NCCL_P2P_DISABLE is not 1 and cuMem is on (fabric handles,
// exported through IMEX channels); then ranks of different hosts in one clique (one domain) connect
// over P2P (src/graph/paths.cc ncclTopoCheckP2p: a different host hash allows P2P only within the
// MNNVL clique), logged "P2P/MNNVL", the clique's topologies are fused into one NCCL node
// (src/graph/topo.cc: nLocalRanks = clique.size) and NET joins domains. Without MNNVL the trays
// are separate NCCL nodes joined by NET.
#include <memory>
#include <optional>
#include <vector>

#include "models/hw/node.hpp"
#include "models/nccl/env.hpp"
#include "models/nccl/nic_groups.hpp"
#include "models/nccl/transport_choice.hpp"
#include "models/spec.hpp"
#include "models/topology/node_graph.hpp"
#include "models/topology/placement.hpp"

namespace models::nccl {

class TransportModel {
 public:
  // Assigns NICs to pods and GPUs (nic_groups.hpp) and picks each pod's network plugin
  // (choose_net_plugin); SpecError("nccl.env.NCCL_NET") when NCCL_NET forces one the node lacks.
  TransportModel(const hw::NodeSpec& node, const topology::NodeGraph& graph, const PlacementSpec& placement,
                 const topology::Placement& layout, const NcclEnv& env);

  Transport choose(const RankInfo& a, const RankInfo& b) const;
  // choose() without the label: the route every edge's path and rating need (the label, a string
  // built per call, cost a heap allocation per pair at 131,072 ranks).
  Transport route(const RankInfo& a, const RankInfo& b) const;
  // P2P channels NCCL wants to a peer (src/graph/paths.cc ncclTopoGetNchannels: NVLink 2 x links,
  // other local peers 2, network peers max(NICs, NIC GB/s / 14)), clamped by NCCL_MIN/MAX_NCHANNELS.
  // NCCL then rounds to a power of two and caps by the communicator's channel count
  // (ncclTopoComputeP2pChannels), which the collective engine owns.
  int p2p_channels(const RankInfo& a, const RankInfo& b) const;
  // Ranks NCCL counts as separate hosts (nNodes).
  int nccl_nodes() const;
  bool same_host_hash(const RankInfo& a, const RankInfo& b) const;
  // MNNVL is on: the node is a multi-host NVLink domain, the placement uses more than one of its
  // hosts, and NCCL_MNNVL_ENABLE, NCCL_P2P_DISABLE and NCCL_CUMEM_ENABLE allow it.
  bool mnnvl() const { return mnnvl_; }
  // NIC group of a local GPU (index into nic_groups()), -1 when its pod has no NIC.
  int nic_group_of(int local_gpu) const { return nics_.gpu_group[local_gpu]; }
  const std::vector<NicGroup>& nic_groups() const { return nics_.groups; }
  // Plugin of a pod (index within its node).
  NetPlugin plugin_of_pod(int pod_in_node) const { return pod_plugin_[pod_in_node]; }
  PathType p2p_level(const RankInfo& a) const;
  // PXN: the local GPU of `a`'s pod that NIC `nic` hangs off and that `a` reaches over NVLink,
  // when `a`'s own path to the NIC crosses the CPU (no GDR); nullopt otherwise or with
  // NCCL_PXN_DISABLE=1.
  std::optional<int> pxn_relay(const RankInfo& a, int nic) const;

 private:
  Transport decide(const RankInfo& a, const RankInfo& b, bool labelled) const;
  bool net_faster(int ga, int gb, bool p2p) const;
  const hw::NodeSpec& node_;
  const topology::NodeGraph& graph_;
  PlacementSpec placement_;
  topology::Placement layout_;
  NcclEnv env_;
  NicAssignment nics_;
  std::vector<NetPlugin> pod_plugin_;  // per pod of a node
  bool mnnvl_ = false;
};

// The network plugin a pod's NCCL ends up with: aws-ofi-nccl ("Libfabric") on EFA when it
// initialises (placement.efa_plugin_ok and the pod sees an EFA), IB verbs on IB/RoCE unless
// NCCL_IB_DISABLE=1, else Socket; NCCL_NET forces one, and forcing one the node cannot run is a
// SpecError("nccl.env.NCCL_NET").
NetPlugin choose_net_plugin(hw::NicKind nic_kind, bool efa_plugin_ok, bool pod_has_nic, const NcclEnv& env);

}  // namespace models::nccl
