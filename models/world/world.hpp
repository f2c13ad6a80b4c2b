#pragma once
// models::World: one scenario's machines as the simulator sees them. It places ranks on
// nodes/pods/GPUs, decides per rank pair what NCCL would decide (P2P read/write, SHM, NET with
// which plugin, GDR or not), and owns the ids of the sim::FlowNetwork links every transfer crosses.
// Built once per run by models/topology + models/nccl/transport; read by collectives and workloads.
// The vocabulary it speaks lives below it: PathType and LinkClass (models/hw), RankInfo
// (models/topology/placement.hpp), Transport (models/nccl/transport_choice.hpp).
#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "models/hw/links.hpp"
#include "models/hw/node.hpp"
#include "models/nccl/env.hpp"
#include "models/nccl/transport_choice.hpp"
#include "models/spec.hpp"
#include "models/topology/placement.hpp"
#include "sim/flow_network.hpp"

namespace models {

namespace topology {
class Fabric;
}

// Where a World sits on a larger cluster shared by several jobs (models/run/jobs.hpp): its
// nodes are the cluster's first_node .. first_node + spec.cluster.nodes - 1 (link names carry
// the cluster's numbers; RankInfo::node stays the World's own), and the fabric spans
// cluster_nodes. The first job's World builds the fabric (fabric null); the others cross it.
struct ClusterSlot {
  int first_node = 0;
  int cluster_nodes = 0;                     // 0: spec.cluster.nodes (a World of its own)
  const topology::Fabric* fabric = nullptr;  // a fabric another World built, or null: build one
};

class NodeKinds;  // node_kinds.hpp

class World {
 public:
  // Builds placement, topology, transports and the links in `net`. Throws SpecError on an
  // impossible layout or a bad NCCL variable.
  static std::unique_ptr<World> build(const ScenarioSpec& spec, sim::FlowNetwork& net, const ClusterSlot& slot = {});
  virtual ~World() = default;

  virtual int size() const = 0;
  virtual int nodes() const = 0;
  virtual const RankInfo& rank(int r) const = 0;
  // NCCL's choice between ranks a and b (a != b), computed on demand (16k ranks have 268M pairs:
  // nothing per pair is stored), and the links a flow a->b crosses, appended to `out`.
  virtual Transport transport(int a, int b) const = 0;
  // transport() without its label (a string per call): for paths and edges, built per pair.
  virtual Transport route(int a, int b) const { return transport(a, b); }
  virtual void path(int a, int b, std::vector<sim::LinkId>& out) const = 0;
  // Where path(a, b) changes hands (the all-to-all fold, models/collectives/all_to_all_fold.hpp):
  // the number of its leading links on a's side (a's GPU and node, its NIC, the fabric's up
  // links; a host memory both cross counts there once), the rest being b's (the fabric's down
  // links, b's NIC, node and GPU). nullopt: the path has no such split (NET/Socket: both ranks'
  // proxy links come first), or the World does not say.
  // Appends path(a, b) to `out` as path() does.
  virtual std::optional<std::size_t> path_split(int a, int b, std::vector<sim::LinkId>& out) const {
    path(a, b, out);
    return std::nullopt;
  }
  // The fabric pod of a node when flows between nodes cross fabric links that depend on the two
  // nodes only through their pods (a pod's nodes reach every other node over links of the same
  // roles); nullopt where they depend on the pair itself (ECMP hashing over several uplinks), or
  // the World does not say.
  virtual std::optional<int> fabric_pod(int node) const {
    (void)node;
    return std::nullopt;
  }
  // The physical (catalog or [cluster.params]) bandwidth of link `l`, bytes/s. A link's
  // FlowNetwork capacity is what traffic can use of it, which for some links is less than the
  // hardware moves: a GPU's NVLink port carries NCCL's Simple efficiency, because the protocol's
  // overhead is paid on the port's total, however many flows share it (world.cpp build_links).
  // NCCL's tuner and `commsim calibrate` reason in physical bandwidths; they read this.
  virtual double raw_capacity(sim::LinkId l, const sim::FlowNetwork& net) const { return net.link_capacity(l); }
  // Latency a [[stragglers]] link entry added to link `l` (latency_factor: link_stragglers.hpp),
  // seconds; 0 for every other link. A collective's hop latency adds it (comm_plan.cpp fill_edge).
  virtual double added_latency_s(sim::LinkId l) const {
    (void)l;
    return 0;
  }
  // What one Socket edge (one peer, one direction, all its channels) moves, raw, bytes/s: the
  // rank's proxy thread, or NCCL's helper threads (NCCL_SOCKET_NTHREADS, AWS/GCP defaults) that
  // many times it. `both_way`: per direction when the thread also receives (kTcpThreadBytesPerS,
  // the basis of the fitted socket efficiencies); `one_way`: when it only sends or receives
  // (both_way / socket.thread_duplex). Where the proxy thread moves the data, a per-GPU "proxy"
  // link that all of the rank's Socket traffic crosses both ways bounds the rank's total
  // (world.cpp build_links).
  struct TcpEdge {
    double both_way = hw::kTcpThreadBytesPerS, one_way = hw::kTcpThreadBytesPerS;
  };
  virtual TcpEdge tcp_edge() const { return {}; }
  // Host-side links of a rank's GPU, for CPU offload traffic: pinned host->GPU and GPU->host
  // copies (PCIe, then host memory), appended to `out`.
  // The links of node `n` (its GPUs' ports, PCIe, host memory, NICs, Ethernet): ids first ..
  // first + count - 1, laid out alike on every node of one kind (link first + i of one node is the
  // same part as link first + i of another; [[cluster.groups]] of other instances differ). The fabric's shared links
  // belong to no node. None known: {}.
  struct LinkRange {
    uint32_t first = 0, count = 0;
  };
  virtual LinkRange node_links(int n) const { return {}; }
  virtual void host_to_gpu(int r, std::vector<sim::LinkId>& out) const = 0;
  virtual void gpu_to_host(int r, std::vector<sim::LinkId>& out) const = 0;
  // Physical parameters the collectives need, by link class (from the catalog, overrides and
  // the calibration profile): see models/comm_plan/link_params.hpp.
  // Where the ranks sit (nodes x pods per node x GPUs per pod) and what one node is: facts the
  // World was built from, for the workloads (CPU-Adam shares a node, torchrun starts a pod).
  virtual const topology::Placement& placement() const = 0;
  virtual const hw::NodeSpec& node() const = 0;
  // The machine of World node n: node() unless [[cluster.groups]] mixes instances (node() is then
  // the first group's).
  virtual const hw::NodeSpec& node_of(int n) const {
    (void)n;
    return node();
  }
  virtual bool mixed() const { return false; }  // nodes of several instances ([[cluster.groups]])
  // The run's NCCL environment, parsed once when the World was built (models/nccl/env.hpp): the
  // collective engine and NCCL's tuner read it from here.
  virtual const nccl::NcclEnv& nccl_env() const = 0;
  // The fabric between nodes this World's NET flows cross (shared with other Worlds of a ClusterSlot).
  virtual const topology::Fabric* fabric() const { return nullptr; }
  // The machines, their node graphs and NCCL's rules on them, as this World built them (what
  // `commsim topo` renders); null for a World of no catalog machine (tests' fakes).
  virtual const NodeKinds* node_kinds() const { return nullptr; }
  // Name of the GPU model (catalog key) and its node's description, for reports.
  const std::string& gpu_name() const { return node().gpu.name; }
  virtual std::string describe() const = 0;
  // hw::NodeSpec::network_caveat and nvlink_caveat for this World's nodes and GPUs per node, and
  // what the model misses of this World's NCCL environment on its network (world.cpp). Said by
  // `run` and `nccl-tests` alike.
  std::string network_note() const;
  std::string nvlink_note() const { return node().nvlink_caveat(nodes() > 0 ? size() / nodes() : 0); }
};

}  // namespace models
