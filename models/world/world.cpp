// models::World: placement, per-node topology and transport tables, and the sim::FlowNetwork
// links every transfer crosses. Per-node structures only: transports are computed on demand, so
// 16k ranks need a few MB (links of 2k nodes), not 268M pair entries.
//
// Links per node (names "node<i>/..."): per GPU "gpu<g>/nvlink.tx|rx" (its NVLink ports to the
// NVSwitch or peers, all links together) and "gpu<g>/pcie.up|down" (its slot); per PCIe switch
// "pcisw<s>/pcie.up|down" (the uplink to the root complex, shared by the GPUs and NICs below);
// "hostmem" (DRAM); per NIC group "nic<n>.tx|rx" ("nic<a>-<b>" when a GPU spreads over several);
// "eth.tx|rx" (the ordinary interface NET/Socket uses between hosts) and "loopback" (TCP between
// pods of one host). The fabric between nodes ([cluster.fabric], models/topology/fabric.hpp) adds
// its shared switch links ("fabric/pod<p>/...") between the sender's and receiver's NIC links;
// the default, non-blocking, adds none.
#include "models/world/world.hpp"

#include <cmath>
#include <cstdio>
#include <optional>

#include "models/error.hpp"
#include "models/hw/links.hpp"
#include "models/nccl/env.hpp"
#include "models/nccl/transport.hpp"
#include "models/params.hpp"
#include "models/topology/fabric.hpp"
#include "models/topology/node_graph.hpp"
#include "models/topology/resolve.hpp"
#include "sim/check.hpp"

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

struct NodeLinks {
  std::vector<sim::LinkId> nvl_tx, nvl_rx, pcie_up, pcie_down, sw_up, sw_down, nic_tx, nic_rx;
  std::vector<sim::LinkId> proxy;  // per GPU: its rank's proxy thread (Socket without helper threads)
  sim::LinkId hostmem, eth_tx, eth_rx, loopback;
};

class WorldImpl final : public World {
 public:
  WorldImpl(const ScenarioSpec& spec, sim::FlowNetwork& net, const ClusterSlot& slot)
      : node_(topology::resolve_node(spec.cluster)),
        graph_(node_),
        env_(nccl::parse_nccl_env(spec.nccl_env)),
        layout_(topology::make_placement(spec.cluster, spec.placement, node_.gpus)),
        transports_(node_, graph_, spec.placement, layout_, env_) {
    ranks_.reserve(layout_.size());
    for (int r = 0; r < layout_.size(); ++r) ranks_.push_back(layout_.rank(r));
    first_node_ = slot.first_node;
    build_links(spec, net, slot);
  }

  int size() const override { return static_cast<int>(ranks_.size()); }
  int nodes() const override { return layout_.nodes; }
  const RankInfo& rank(int r) const override { return ranks_.at(r); }
  Transport transport(int a, int b) const override { return transports_.choose(ranks_.at(a), ranks_.at(b)); }

  void path(int a, int b, std::vector<sim::LinkId>& out) const override { path_impl(a, b, out, nullptr); }

  std::optional<std::size_t> path_split(int a, int b, std::vector<sim::LinkId>& out) const override {
    std::optional<std::size_t> split;
    path_impl(a, b, out, &split);
    return split;
  }

  std::optional<int> fabric_pod(int node) const override {
    if (!fabric_ || !fabric_->by_pod()) return std::nullopt;
    return fabric_->kind() == topology::FabricKind::NonBlocking ? 0 : fabric_->pod_of(node + first_node_);
  }

  // path(), and where it changes hands (path_split: set when it splits, left empty otherwise).
  void path_impl(int a, int b, std::vector<sim::LinkId>& out, std::optional<std::size_t>* split) const {
    const std::size_t start = out.size();
    auto mark = [&] {
      if (split) *split = out.size() - start;
    };
    const RankInfo &ra = ranks_.at(a), &rb = ranks_.at(b);
    const Transport t = transports_.choose(ra, rb);
    const NodeLinks &la = links_[ra.node], &lb = links_[rb.node];
    const int ga = ra.local_gpu, gb = rb.local_gpu;
    switch (t.kind) {
      case TransportKind::P2P:
        if (t.link_class == LinkClass::NVLink) {
          out.push_back(la.nvl_tx[ga]);
          mark();
          out.push_back(lb.nvl_rx[gb]);
        } else {
          out.push_back(la.pcie_up[ga]);
          up_to(la, ga, graph_.gpu_switch(gb), out);
          mark();
          down_from(lb, gb, graph_.gpu_switch(ga), out);
          out.push_back(lb.pcie_down[gb]);
        }
        return;
      case TransportKind::SHM:
        out.push_back(la.pcie_up[ga]);
        up_to(la, ga, -1, out);
        out.push_back(la.hostmem);
        mark();
        down_from(lb, gb, -1, out);
        out.push_back(lb.pcie_down[gb]);
        return;
      case TransportKind::NET: break;
    }
    // PXN: over NVLink to the NIC's local GPU, then that GPU's PCIe to the NIC (GPUDirect RDMA).
    const int ga_pci = t.pxn_gpu.value_or(ga);
    if (t.pxn_gpu) {
      out.push_back(la.nvl_tx[ga]);
      out.push_back(la.nvl_rx[*t.pxn_gpu]);
    }
    out.push_back(la.pcie_up[ga_pci]);
    const bool same_node = ra.node == rb.node;
    if (t.net_plugin == NetPlugin::Socket) {
      // Staged in host memory on both sides; the kernel's TCP stack over the node's interface
      // (or loopback between pods of one host); both ranks' proxy threads move it.
      if (!la.proxy.empty()) out.push_back(la.proxy[ga]);
      if (!lb.proxy.empty()) out.push_back(lb.proxy[gb]);
      up_to(la, ga, -1, out);
      out.push_back(la.hostmem);
      if (same_node) {
        out.push_back(la.loopback);
      } else {
        out.push_back(la.eth_tx);
        out.push_back(lb.eth_rx);
        out.push_back(lb.hostmem);
      }
      down_from(lb, gb, -1, out);
      out.push_back(lb.pcie_down[gb]);
      return;
    }
    const int na = transports_.nic_group_of(ga), nb = transports_.nic_group_of(gb);
    SIM_CHECK(na >= 0 && nb >= 0, "NET over a NIC plugin without a NIC");
    const auto& groups = transports_.nic_groups();
    // The receiver's side decides its own GDR, on its own path (NCCL uses PXN to send only).
    const Transport back = transports_.choose(rb, ra);
    const bool gdr_b = back.gdr && !back.pxn_gpu;
    if (t.gdr) {
      up_to(la, ga_pci, groups[na].pcie_switch, out);
    } else {
      up_to(la, ga, -1, out);
      out.push_back(la.hostmem);
    }
    out.push_back(la.nic_tx[na]);
    const std::size_t before_fabric = out.size();
    if (fabric_) fabric_->path(ra.node + first_node_, na, rb.node + first_node_, nb, out);
    // The fabric's links come in pairs, up at the sender's side then down at the receiver's.
    if (split) *split = before_fabric - start + (out.size() - before_fabric) / 2;
    out.push_back(lb.nic_rx[nb]);
    if (gdr_b) {
      down_from(lb, gb, groups[nb].pcie_switch, out);
    } else {
      if (!(same_node && !t.gdr)) out.push_back(lb.hostmem);
      down_from(lb, gb, -1, out);
    }
    out.push_back(lb.pcie_down[gb]);
  }

  LinkRange node_links(int n) const override { return node_links_.at(n); }

  void host_to_gpu(int r, std::vector<sim::LinkId>& out) const override {
    const RankInfo& ri = ranks_.at(r);
    const NodeLinks& l = links_[ri.node];
    out.push_back(l.hostmem);
    down_from(l, ri.local_gpu, -1, out);
    out.push_back(l.pcie_down[ri.local_gpu]);
  }
  void gpu_to_host(int r, std::vector<sim::LinkId>& out) const override {
    const RankInfo& ri = ranks_.at(r);
    const NodeLinks& l = links_[ri.node];
    out.push_back(l.pcie_up[ri.local_gpu]);
    up_to(l, ri.local_gpu, -1, out);
    out.push_back(l.hostmem);
  }

  TcpEdge tcp_edge() const override { return tcp_edge_; }

  double raw_capacity(sim::LinkId l, const sim::FlowNetwork& net) const override {
    return l.index < raw_.size() && raw_[l.index] > 0 ? raw_[l.index] : net.link_capacity(l);
  }

  const topology::Placement& placement() const override { return layout_; }
  const hw::NodeSpec& node() const override { return node_; }
  const nccl::NcclEnv& nccl_env() const override { return env_; }
  const topology::Fabric* fabric() const override { return fabric_; }

  std::string describe() const override {
    std::string s =
        std::to_string(layout_.nodes) + " x " + node_.name + " (" + std::to_string(node_.gpus) + " x " + node_.gpu.name;
    if (node_.nvlink_gen) s += ", NVLink" + std::to_string(node_.nvlink_gen) + (node_.nvswitch ? " NVSwitch" : "");
    s += ", PCIe gen" + std::to_string(node_.pcie_gen);
    if (node_.nics) {
      char rate[32];
      std::snprintf(rate, sizeof rate, "%g", node_.nic_bytes_per_s * 8 / 1e9);
      s += std::string(", ") + std::to_string(node_.nics) + " x " + hw::nic_kind_name(node_.nic_kind) + " " + rate +
           " Gb/s";
    }
    s += "); " + std::to_string(layout_.pods_per_node) + " pod(s) x " + std::to_string(layout_.gpus_per_pod) +
         " GPU(s) per node; NCCL nNodes " + std::to_string(transports_.nccl_nodes());
    if (fabric_ && !fabric_->describe().empty()) s += "; fabric: " + fabric_->describe();
    return s;
  }

 private:
  // The switch uplink a GPU's traffic climbs unless its destination sits under the same switch.
  void up_to(const NodeLinks& l, int g, int dest_switch, std::vector<sim::LinkId>& out) const {
    int s = graph_.gpu_switch(g);
    if (s >= 0 && s != dest_switch) out.push_back(l.sw_up[s]);
  }
  void down_from(const NodeLinks& l, int g, int src_switch, std::vector<sim::LinkId>& out) const {
    int s = graph_.gpu_switch(g);
    if (s >= 0 && s != src_switch) out.push_back(l.sw_down[s]);
  }

  // A link whose usable capacity is `efficiency` of its raw bandwidth (raw_capacity() keeps the raw).
  sim::LinkId add_port(sim::FlowNetwork& net, std::string_view name, const char* kind, double raw, double efficiency,
                       sim::Time latency) {
    const sim::LinkId id = net.add_link(name, kind, raw * efficiency, latency);
    if (raw_.size() <= id.index) raw_.resize(id.index + 1, 0.0);
    raw_[id.index] = raw;
    return id;
  }

  void build_links(const ScenarioSpec& spec, sim::FlowNetwork& net, const ClusterSlot& slot) {
    using sim::Time;
    const int ng = graph_.gpus();
    double nvl_bw = 0, nvl_lat = 0, nvl_eff = 1;
    if (node_.nvlink_gen) {
      hw::LinkTech nvl = hw::nvlink(node_.nvlink_gen);
      // A GPU's NVLink port: all its links (through NVSwitch every peer shares them).
      int links = node_.nvlink_links;
      if (node_.imported)
        for (int b = 1; b < ng; ++b) links = std::max(links, graph_.gpu_gpu(0, b).nv_links);
      nvl_bw = param_or(spec.cluster.params, "nvlink.bandwidth", links * nvl.bytes_per_s);
      // NCCL's Simple protocol moves at most this fraction of a port's raw bandwidth, whatever the
      // number of flows through it (a ring's one edge per direction, all-to-all's n-1, a Tree
      // chain's two): 4 x H200 ring all-reduce 354 of 478 GB/s (ar_g4.txt), and NCCL reaches the
      // same fraction with all-to-all (issue 18). So the port's capacity carries the efficiency
      // and the per-flow caps (models/collectives/flow_cap.hpp) keep the protocol's and channels'
      // terms; raw_capacity() keeps the physical bandwidth for the tuner and calibrate.
      nvl_eff = param_or(spec.cluster.params, "nvlink.efficiency.simple", param_default("nvlink.efficiency.simple"));
      nvl_lat = param_or(spec.cluster.params, "nvlink.latency",
                         nvl.latency_s + (node_.nvswitch ? hw::nvswitch(4).latency_s : 0));
    }
    hw::LinkTech pci = hw::pcie(node_.pcie_gen, node_.pcie_lanes);
    const double pcie_bw = param_or(spec.cluster.params, "pcie.bandwidth", pci.bytes_per_s);
    const double pcie_lat = param_or(spec.cluster.params, "pcie.latency", pci.latency_s);
    const double mem_bw = param_or(spec.cluster.params, "hostmem.bandwidth", node_.host_mem_bytes_per_s);
    hw::LinkTech nic =
        node_.nic_kind == hw::NicKind::Efa    ? hw::efa(node_.efa_generation, node_.nic_bytes_per_s * 8 / 1e9)
        : node_.nic_kind == hw::NicKind::Roce ? hw::roce(node_.nic_bytes_per_s * 8 / 1e9)
        : node_.nic_kind == hw::NicKind::Ib   ? hw::infiniband(hw::infiniband_rate_for(node_.nic_bytes_per_s))
                                              : hw::infiniband(node_.nic_bytes_per_s > 25e9 ? "ndr" : "hdr");
    const double nic_bw = param_or(spec.cluster.params, "nic.bandwidth", node_.nic_bytes_per_s);
    const double nic_lat = param_or(spec.cluster.params, "nic.latency", nic.latency_s);
    hw::LinkTech eth = node_.eth_driver == "virtio" ? hw::virtio_nic(node_.eth_bytes_per_s * 8 / 1e9)
                                                    : hw::ena(node_.eth_bytes_per_s * 8 / 1e9);
    const double eth_bw = param_or(spec.cluster.params, "eth.bandwidth", node_.eth_bytes_per_s);
    const double eth_lat = param_or(spec.cluster.params, "eth.latency", eth.latency_s);
    hw::LinkTech lo = hw::tcp_loopback();
    // NCCL's Socket transport (src/transport/net_socket.cc ncclNetSocketGetNsockNthread): without
    // helper threads (autoNt=0 unless the NIC is AWS's or GCP's) the rank's proxy thread moves all
    // of its Socket traffic, every channel and both directions: a thread moves T per direction
    // when it sends and receives and T / d when it only sends or receives (d =
    // socket.thread_duplex, measured 0.77). So one edge is capped at T / d (tcp_edge(), Simple)
    // and each GPU gets a "proxy" link of raw 2 T that its Socket flows cross both ways, carrying
    // the Socket protocol's efficiency on its total like an NVLink port: a ring rank (both ways)
    // keeps eta T per direction, a rank that only sends gets eta T / d. With helper threads each
    // connection has its own: no shared budget, an edge moves up to threads x T / d.
    const nccl::SocketThreads threads = nccl::socket_threads(env_, node_.eth_driver);
    const double duplex = param_or(spec.cluster.params, "socket.thread_duplex", param_default("socket.thread_duplex"));
    tcp_edge_.both_way = std::max(1, threads.threads) * hw::kTcpThreadBytesPerS;
    tcp_edge_.one_way = tcp_edge_.both_way / duplex;
    const bool proxy_budget = threads.threads == 0;
    const double sock_eff =
        param_or(spec.cluster.params, "socket.efficiency.simple", param_default("socket.efficiency.simple"));
    const double lo_bw = param_or(spec.cluster.params, "loopback.bandwidth", lo.bytes_per_s);
    // Each direction of a GPU<->X transfer crosses two of these links: half the latency each.
    const Time nvl_half = Time::from_seconds(nvl_lat / 2), pcie_half = Time::from_seconds(pcie_lat / 2);
    const char* nic_kind = nic_link_kind(node_.nic_kind);
    const auto& groups = transports_.nic_groups();
    // [[stragglers]] nic_bandwidth_factor: per node and NIC group, the fraction of line rate left.
    std::vector<std::vector<double>> nic_factor(layout_.nodes, std::vector<double>(groups.size(), 1.0));
    for (std::size_t i = 0; i < spec.stragglers.size(); ++i) {
      const StragglerSpec& st = spec.stragglers[i];
      if (st.nic_bandwidth_factor == 1) continue;
      const std::string key = "stragglers." + std::to_string(i);
      if (!(st.nic_bandwidth_factor > 0 && st.nic_bandwidth_factor <= 1))
        throw SpecError(key + ".nic_bandwidth_factor",
                        key + ".nic_bandwidth_factor: " + std::to_string(st.nic_bandwidth_factor) +
                            " (expected a fraction of the line rate in (0, 1])");
      if (st.node) {
        if (*st.node < 0 || *st.node >= layout_.nodes)
          throw SpecError(key + ".node", key + ".node: " + std::to_string(*st.node) + " (expected a node in 0.." +
                                             std::to_string(layout_.nodes - 1) + ")");
        for (double& f : nic_factor[*st.node]) f *= st.nic_bandwidth_factor;
      }
      for (int r : st.ranks) {
        if (r < 0 || r >= size())
          throw SpecError(key + ".ranks", key + ".ranks: rank " + std::to_string(r) + " (expected 0.." +
                                              std::to_string(size() - 1) + ")");
        const int g = transports_.nic_group_of(ranks_[r].local_gpu);
        if (g >= 0) nic_factor[ranks_[r].node][g] *= st.nic_bandwidth_factor;
      }
    }
    links_.resize(layout_.nodes);
    node_links_.resize(layout_.nodes);
    std::string name;
    // `name` cut back to its first `keep` characters, then `tail`.
    auto named = [&name](std::size_t keep, std::string_view tail) -> std::string_view {
      name.resize(keep);
      name.append(tail);
      return name;
    };
    for (int n = 0; n < layout_.nodes; ++n) {
      NodeLinks& l = links_[n];
      // Names are built in one buffer: the node's prefix, then each part's (no string per link).
      name.assign("node").append(std::to_string(n + first_node_)).push_back('/');
      const std::size_t p = name.size();
      node_links_[n].first = static_cast<uint32_t>(net.link_count());
      for (int g = 0; g < ng; ++g) {
        name.resize(p);
        name.append("gpu").append(std::to_string(g)).push_back('/');
        const std::size_t gp = name.size();
        if (nvl_bw > 0) {
          l.nvl_tx.push_back(add_port(net, named(gp, "nvlink.tx"), "nvlink", nvl_bw, nvl_eff, nvl_half));
          l.nvl_rx.push_back(add_port(net, named(gp, "nvlink.rx"), "nvlink", nvl_bw, nvl_eff, nvl_half));
        }
        if (proxy_budget)
          l.proxy.push_back(
              add_port(net, named(gp, "proxy"), "proxy", 2 * hw::kTcpThreadBytesPerS, sock_eff, Time::zero()));
        l.pcie_up.push_back(net.add_link(named(gp, "pcie.up"), "pcie", pcie_bw, pcie_half));
        l.pcie_down.push_back(net.add_link(named(gp, "pcie.down"), "pcie", pcie_bw, pcie_half));
      }
      for (int s = 0; s < graph_.pcie_switches(); ++s) {
        name.resize(p);
        name.append("pcisw").append(std::to_string(s)).push_back('/');
        const std::size_t sp = name.size();
        l.sw_up.push_back(net.add_link(named(sp, "pcie.up"), "pcie", pcie_bw, Time::zero()));
        l.sw_down.push_back(net.add_link(named(sp, "pcie.down"), "pcie", pcie_bw, Time::zero()));
      }
      l.hostmem = net.add_link(named(p, "hostmem"), "hostmem", mem_bw, Time::zero());
      for (std::size_t gi = 0; gi < groups.size(); ++gi) {
        const auto& grp = groups[gi];
        name.resize(p);
        name.append("nic").append(std::to_string(grp.nics.front()));
        if (grp.nics.size() > 1) name.append("-").append(std::to_string(grp.nics.back()));
        const std::size_t np = name.size();
        double bw = nic_bw * static_cast<double>(grp.nics.size()) * nic_factor[n][gi];
        l.nic_tx.push_back(net.add_link(named(np, ".tx"), nic_kind, bw, Time::from_seconds(nic_lat / 2)));
        l.nic_rx.push_back(net.add_link(named(np, ".rx"), nic_kind, bw, Time::from_seconds(nic_lat / 2)));
      }
      l.eth_tx = net.add_link(named(p, "eth.tx"), "eth", eth_bw, Time::from_seconds(eth_lat / 2));
      l.eth_rx = net.add_link(named(p, "eth.rx"), "eth", eth_bw, Time::from_seconds(eth_lat / 2));
      l.loopback = net.add_link(named(p, "loopback"), "eth", lo_bw, Time::from_seconds(lo.latency_s));
      node_links_[n].count = static_cast<uint32_t>(net.link_count()) - node_links_[n].first;
      if (n == 0 && layout_.nodes > 1) {
        // Every node has the same links: room for the others' (names up to 8 bytes longer each,
        // a larger node number in the prefix).
        std::size_t bytes = 0;
        for (uint32_t i = 0; i < node_links_[0].count; ++i)
          bytes += net.link_name(sim::LinkId{node_links_[0].first + i}).size() + 8;
        const std::size_t others = static_cast<std::size_t>(layout_.nodes - 1);
        net.reserve_links(others * node_links_[0].count, others * bytes);
      }
    }
    // The fabric's shared links, after the nodes' (link ids of the default are unchanged).
    std::vector<double> rail_bw;
    for (const auto& grp : groups) rail_bw.push_back(nic_bw * static_cast<double>(grp.nics.size()));
    if (slot.fabric) {
      // Another World's fabric (several jobs on one cluster): its rails must be this node's.
      if (slot.fabric->kind() != topology::FabricKind::NonBlocking && slot.fabric->rail_bytes_per_s() != rail_bw)
        throw SpecError("placement",
                        "placement: the NIC groups (rails) differ from the first job's, which the shared "
                        "fabric was built for (expected the same placement.nics_per_pod and pods per "
                        "node in every job on a rail or fat_tree fabric)");
      fabric_ = slot.fabric;
      return;
    }
    own_fabric_.emplace(spec.cluster.fabric, std::max(layout_.nodes, slot.cluster_nodes), std::move(rail_bw),
                        node_.nic_kind);
    own_fabric_->add_links(net);
    fabric_ = &*own_fabric_;
  }

  hw::NodeSpec node_;
  topology::NodeGraph graph_;
  nccl::NcclEnv env_;
  topology::Placement layout_;
  nccl::TransportModel transports_;
  std::vector<RankInfo> ranks_;
  std::vector<NodeLinks> links_;
  std::vector<LinkRange> node_links_;  // node_links()
  int first_node_ = 0;                 // ClusterSlot::first_node: where this World's nodes sit on the cluster
  std::optional<topology::Fabric> own_fabric_;
  const topology::Fabric* fabric_ = nullptr;  // own_fabric_, or one shared with other Worlds
  TcpEdge tcp_edge_;                          // tcp_edge()
  std::vector<double> raw_;  // per link index: raw bandwidth where the capacity carries an efficiency, else 0
};

}  // namespace

std::unique_ptr<World> World::build(const ScenarioSpec& spec, sim::FlowNetwork& net, const ClusterSlot& slot) {
  return std::make_unique<WorldImpl>(spec, net, slot);
}

}  // namespace models
