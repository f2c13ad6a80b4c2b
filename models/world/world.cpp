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
// the default, non-blocking, adds none. A mixed cluster ([[cluster.groups]], node_kinds.hpp) lays
// each node out as its own kind does: nodes of one kind alike.
#include "models/world/world.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <optional>

#include "models/error.hpp"
#include "models/hw/links.hpp"
#include "models/nccl/env.hpp"
#include "models/nccl/transport.hpp"
#include "models/params.hpp"
#include "models/topology/fabric.hpp"
#include "models/topology/node_graph.hpp"
#include "models/topology/resolve.hpp"
#include "models/world/link_rates.hpp"
#include "models/world/link_stragglers.hpp"
#include "models/world/node_kinds.hpp"
#include "sim/check.hpp"

namespace models {

namespace {

struct NodeLinks {
  std::vector<sim::LinkId> nvl_tx, nvl_rx, pcie_up, pcie_down, sw_up, sw_down, nic_tx, nic_rx;
  std::vector<sim::LinkId> proxy;  // per GPU: its rank's proxy thread (Socket without helper threads)
  sim::LinkId hostmem, eth_tx, eth_rx, loopback;
  const topology::NodeGraph* graph = nullptr;  // its kind's (NodeKinds): which PCIe switch each GPU sits under
};

// The environment NCCL runs with: the network plugin's variables (hw::NodeSpec::net_plugin_env:
// aws-ofi-nccl sets them at load, without overwriting) under the scenario's [nccl.env]. One
// environment per World, as [nccl.env] is: a mixed cluster takes its first node kind's.
std::map<std::string, std::string> env_with_plugin(std::map<std::string, std::string> env, const hw::NodeSpec& node) {
  for (const auto& [name, value] : node.net_plugin_env) env.emplace(name, value);
  return env;
}

class WorldImpl final : public World {
 public:
  WorldImpl(const ScenarioSpec& spec, sim::FlowNetwork& net, const ClusterSlot& slot)
      : kinds_(spec),
        node_(kinds_.kind(0).node),
        env_(nccl::parse_nccl_env(env_with_plugin(spec.nccl_env, node_), spec.nccl_version, spec.nccl_tuner_config)),
        layout_(kinds_.place(spec)) {
    kinds_.build_transports(spec.placement, layout_, env_);
    if (kinds_.count() > 1 && slot.cluster_nodes > 0)
      throw SpecError("cluster.groups",
                      "cluster.groups: mixed instance groups beside [[jobs]] are not modelled yet (expected one "
                      "cluster.instance for a cluster shared by several jobs)");
    ranks_.reserve(layout_.size());
    for (int r = 0; r < layout_.size(); ++r) ranks_.push_back(layout_.rank(r));
    first_node_ = slot.first_node;
    const auto first_link = static_cast<uint32_t>(net.link_count());
    build_links(spec, net, slot);
    apply_link_stragglers(spec, net, first_link, raw_, added_latency_);  // [[stragglers]] link = "..."
  }

  int size() const override { return static_cast<int>(ranks_.size()); }
  int nodes() const override { return layout_.nodes; }
  const RankInfo& rank(int r) const override { return ranks_.at(r); }
  Transport transport(int a, int b) const override {
    const RankInfo& ra = ranks_.at(a);
    return transports_of(ra.node).choose(ra, ranks_.at(b));  // between nodes: the sender's rules
  }
  Transport route(int a, int b) const override {
    const RankInfo& ra = ranks_.at(a);
    return transports_of(ra.node).route(ra, ranks_.at(b));
  }

  void path(int a, int b, std::vector<sim::LinkId>& out) const override { path_impl(a, b, out, nullptr); }

  std::optional<std::size_t> path_split(int a, int b, std::vector<sim::LinkId>& out) const override {
    std::optional<std::size_t> split;
    path_impl(a, b, out, &split);
    return split;
  }

  std::optional<int> fabric_pod(int node) const override {
    if (!fabric_) return std::nullopt;
    // A non-blocking fabric adds no links (fabric.cpp), so no hash can pick among them: one pod,
    // whatever its spreading says about uplinks it does not build.
    if (fabric_->kind() == topology::FabricKind::NonBlocking) return 0;
    if (!fabric_->by_pod()) return std::nullopt;
    return fabric_->pod_of(node + first_node_);
  }

  // path(), and where it changes hands (path_split: set when it splits, left empty otherwise).
  void path_impl(int a, int b, std::vector<sim::LinkId>& out, std::optional<std::size_t>* split) const {
    const std::size_t start = out.size();
    auto mark = [&] {
      if (split) *split = out.size() - start;
    };
    const RankInfo &ra = ranks_.at(a), &rb = ranks_.at(b);
    const Transport t = transports_of(ra.node).route(ra, rb);
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
          up_to(la, ga, la.graph->gpu_switch(gb), out);
          mark();
          down_from(lb, gb, lb.graph->gpu_switch(ga), out);
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
    const nccl::TransportModel &ta = transports_of(ra.node), &tb = transports_of(rb.node);
    const int na = ta.nic_group_of(ga), nb = tb.nic_group_of(gb);
    SIM_CHECK(na >= 0 && nb >= 0, "NET over a NIC plugin without a NIC");
    // The receiver's side decides its own GDR, on its own path (NCCL uses PXN to send only).
    const Transport back = tb.route(rb, ra);
    const bool gdr_b = back.gdr && !back.pxn_gpu;
    if (t.gdr) {
      up_to(la, ga_pci, ta.nic_groups()[na].pcie_switch, out);
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
      down_from(lb, gb, tb.nic_groups()[nb].pcie_switch, out);
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
  double added_latency_s(sim::LinkId l) const override {
    return l.index < added_latency_.size() ? added_latency_[l.index] : 0.0;
  }

  const topology::Placement& placement() const override { return layout_; }
  const hw::NodeSpec& node() const override { return node_; }
  const hw::NodeSpec& node_of(int n) const override { return kinds_.of_node(n).node; }
  bool mixed() const override { return kinds_.count() > 1; }
  const nccl::NcclEnv& nccl_env() const override { return env_; }
  const topology::Fabric* fabric() const override { return fabric_; }
  const NodeKinds* node_kinds() const override { return &kinds_; }

  std::string describe() const override {
    // "N x instance (machine)", or per group joined by " + " ([[cluster.groups]]).
    std::string s;
    for (int k = 0, first = 0; k < kinds_.count(); ++k) {
      int count = 0;
      for (int n = first; n < layout_.nodes && kinds_.kind_of_node(n) == k; ++n) ++count;
      first += count;
      s += (k ? " + " : "") + std::to_string(kinds_.count() > 1 ? count : layout_.nodes) + " x " +
           machine_text(kinds_.kind(k).node);
    }
    s += "; " + std::to_string(layout_.pods_per_node) + " pod(s) x " + std::to_string(layout_.gpus_per_pod) +
         " GPU(s) per node; NCCL nNodes " + std::to_string(kinds_.kind(0).transports->nccl_nodes());
    if (fabric_ && !fabric_->describe().empty()) s += "; fabric: " + fabric_->describe();
    return s;
  }

 private:
  static std::string machine_text(const hw::NodeSpec& node) {
    std::string s = node.name + " (" + std::to_string(node.gpus) + " x " + node.gpu.name;
    if (node.nvlink_gen) s += ", NVLink" + std::to_string(node.nvlink_gen) + (node.nvswitch ? " NVSwitch" : "");
    s += ", PCIe gen" + std::to_string(node.pcie_gen);
    if (node.host_link_gen() != node.pcie_gen) s += " (gen" + std::to_string(node.host_link_gen()) + " to the CPU)";
    if (node.nics) {
      char rate[32];
      std::snprintf(rate, sizeof rate, "%g", node.nic_bytes_per_s * 8 / 1e9);
      s += std::string(", ") + std::to_string(node.nics) + " x " + hw::nic_kind_name(node.nic_kind) + " " + rate +
           " Gb/s";
    }
    return s + ")";
  }
  const nccl::TransportModel& transports_of(int node) const { return *kinds_.of_node(node).transports; }

  // The switch uplink a GPU's traffic climbs unless its destination sits under the same switch.
  void up_to(const NodeLinks& l, int g, int dest_switch, std::vector<sim::LinkId>& out) const {
    int s = l.graph->gpu_switch(g);
    if (s >= 0 && s != dest_switch) out.push_back(l.sw_up[s]);
  }
  void down_from(const NodeLinks& l, int g, int src_switch, std::vector<sim::LinkId>& out) const {
    int s = l.graph->gpu_switch(g);
    if (s >= 0 && s != src_switch) out.push_back(l.sw_down[s]);
  }

  // What a pipeline step over link `id` pays beyond the step latencies (added_latency_s(): the
  // scenario's nic.latency or eth.latency less the catalog's, then [[stragglers]] links').
  void add_latency(sim::LinkId id, double s) {
    if (s == 0) return;
    if (added_latency_.size() <= id.index) added_latency_.resize(id.index + 1, 0.0);
    added_latency_[id.index] += s;
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
    std::vector<NodeLinkRates> rates;
    for (int k = 0; k < kinds_.count(); ++k) rates.push_back(node_link_rates(spec, kinds_.kind(k).node, kinds_.kind(k).graph));
    hw::LinkTech lo = hw::tcp_loopback();
    // NCCL's Socket transport (src/transport/net_socket.cc ncclNetSocketGetNsockNthread): without
    // helper threads (autoNt=0 unless the NIC is AWS's or GCP's) the rank's proxy thread moves all
    // of its Socket traffic, every channel and both directions: a thread moves T per direction
    // when it sends and receives and T / d when it only sends or receives (d =
    // socket.thread_duplex, measured 0.61 through NCCL on one H200 VM). So one edge is capped at T / d (tcp_edge(), Simple)
    // and each GPU gets a "proxy" link of raw 2 T that its Socket flows cross both ways, carrying
    // the Socket protocol's efficiency on its total like an NVLink port: a ring rank (both ways)
    // keeps eta T per direction, a rank that only sends gets eta T / d. With helper threads each
    // connection has its own: no shared budget, an edge moves up to threads x T / d.
    const nccl::SocketThreads threads = nccl::socket_threads(env_, node_.eth_driver, !spec.placement.host_network);
    const double duplex = param_or(spec.cluster.params, "socket.thread_duplex", param_default("socket.thread_duplex"));
    tcp_edge_.both_way = std::max(1, threads.threads) * hw::kTcpThreadBytesPerS;
    tcp_edge_.one_way = tcp_edge_.both_way / duplex;
    const bool proxy_budget = threads.threads == 0;
    const double sock_eff =
        param_or(spec.cluster.params, "socket.efficiency.simple", param_default("socket.efficiency.simple"));
    const double lo_bw = param_or(spec.cluster.params, "loopback.bandwidth", lo.bytes_per_s);
    // [[stragglers]] nic_bandwidth_factor: per node and NIC group, the fraction of line rate left.
    std::vector<std::vector<double>> nic_factor(layout_.nodes);
    for (int n = 0; n < layout_.nodes; ++n) nic_factor[n].assign(transports_of(n).nic_groups().size(), 1.0);
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
        const int g = transports_of(ranks_[r].node).nic_group_of(ranks_[r].local_gpu);
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
      const NodeKind& kind = kinds_.of_node(n);
      const NodeLinkRates& k = rates[kinds_.kind_of_node(n)];
      const auto& groups = kind.transports->nic_groups();
      // Each direction of a GPU<->X transfer crosses two of these links: half the latency each.
      const Time nvl_half = Time::from_seconds(k.nvl_lat / 2), pcie_half = Time::from_seconds(k.pcie_lat / 2);
      NodeLinks& l = links_[n];
      // Names are built in one buffer: the node's prefix, then each part's (no string per link).
      name.assign("node").append(std::to_string(n + first_node_)).push_back('/');
      const std::size_t p = name.size();
      l.graph = &kind.graph;
      // A GPU on a root port of its own runs at the older of its and the CPU's generation.
      const double gpu_pcie_bw = kind.graph.pcie_switches() > 0 ? k.pcie_bw : std::min(k.pcie_bw, k.host_pcie_bw);
      node_links_[n].first = static_cast<uint32_t>(net.link_count());
      for (int g = 0; g < k.gpus; ++g) {
        name.resize(p);
        name.append("gpu").append(std::to_string(g)).push_back('/');
        const std::size_t gp = name.size();
        if (k.nvl_bw > 0) {
          l.nvl_tx.push_back(add_port(net, named(gp, "nvlink.tx"), "nvlink", k.nvl_bw, k.nvl_eff, nvl_half));
          l.nvl_rx.push_back(add_port(net, named(gp, "nvlink.rx"), "nvlink", k.nvl_bw, k.nvl_eff, nvl_half));
        }
        if (proxy_budget)
          l.proxy.push_back(
              add_port(net, named(gp, "proxy"), "proxy", 2 * hw::kTcpThreadBytesPerS, sock_eff, Time::zero()));
        l.pcie_up.push_back(net.add_link(named(gp, "pcie.up"), "pcie", gpu_pcie_bw, pcie_half));
        l.pcie_down.push_back(net.add_link(named(gp, "pcie.down"), "pcie", gpu_pcie_bw, pcie_half));
      }
      for (int s = 0; s < kind.graph.pcie_switches(); ++s) {
        name.resize(p);
        name.append("pcisw").append(std::to_string(s)).push_back('/');
        const std::size_t sp = name.size();
        l.sw_up.push_back(net.add_link(named(sp, "pcie.up"), "pcie", k.host_pcie_bw, Time::zero()));
        l.sw_down.push_back(net.add_link(named(sp, "pcie.down"), "pcie", k.host_pcie_bw, Time::zero()));
      }
      l.hostmem = net.add_link(named(p, "hostmem"), "hostmem", k.mem_bw, Time::zero());
      for (std::size_t gi = 0; gi < groups.size(); ++gi) {
        const auto& grp = groups[gi];
        name.resize(p);
        name.append("nic").append(std::to_string(grp.nics.front()));
        if (grp.nics.size() > 1) name.append("-").append(std::to_string(grp.nics.back()));
        const std::size_t np = name.size();
        double bw = k.nic_bw * static_cast<double>(grp.nics.size()) * nic_factor[n][gi];
        const Time half = Time::from_seconds(k.nic_lat / 2);
        l.nic_tx.push_back(add_port(net, named(np, ".tx"), k.nic_kind, bw, k.nic_eff, half));
        l.nic_rx.push_back(add_port(net, named(np, ".rx"), k.nic_kind, bw, k.nic_eff, half));
        add_latency(l.nic_tx.back(), k.nic_lat_added / 2);
        add_latency(l.nic_rx.back(), k.nic_lat_added / 2);
      }
      l.eth_tx = net.add_link(named(p, "eth.tx"), "eth", k.eth_bw, Time::from_seconds(k.eth_lat / 2));
      l.eth_rx = net.add_link(named(p, "eth.rx"), "eth", k.eth_bw, Time::from_seconds(k.eth_lat / 2));
      add_latency(l.eth_tx, k.eth_lat_added / 2);
      add_latency(l.eth_rx, k.eth_lat_added / 2);
      l.loopback = net.add_link(named(p, "loopback"), "eth", lo_bw, Time::from_seconds(lo.latency_s));
      node_links_[n].count = static_cast<uint32_t>(net.link_count()) - node_links_[n].first;
      if (n == 0 && layout_.nodes > 1) {
        // Room for the other nodes' links, taking node 0's as their size (exact unless
        // [[cluster.groups]] mix instances; a hint either way), names up to 8 bytes longer each.
        std::size_t bytes = 0;
        for (uint32_t i = 0; i < node_links_[0].count; ++i)
          bytes += net.link_name(sim::LinkId{node_links_[0].first + i}).size() + 8;
        const std::size_t others = static_cast<std::size_t>(layout_.nodes - 1);
        net.reserve_links(others * node_links_[0].count, others * bytes);
      }
    }
    // The fabric's shared links, after the nodes' (link ids of the default are unchanged).
    // Rails: per NIC group of a node, its line rate; with groups of other NICs, per node its total.
    auto rails_of = [&](int kind) {
      std::vector<double> r;
      for (const auto& grp : kinds_.kind(kind).transports->nic_groups())
        r.push_back(rates[kind].nic_bw * static_cast<double>(grp.nics.size()));
      return r;
    };
    std::vector<double> rail_bw = rails_of(0), node_bw, node_nic_bw;
    for (int k = 1; k < kinds_.count(); ++k)
      if (rails_of(k) != rail_bw) {
        if (spec.cluster.fabric.topology == "rail")
          throw SpecError("cluster.fabric.topology",
                          "cluster.fabric.topology: a rail-optimized fabric needs the same NIC groups (rails) on "
                          "every node, and [[cluster.groups]] mix " +
                              kinds_.kind(0).node.name + " and " + kinds_.kind(k).node.name +
                              " (expected fat_tree or nonblocking)");
        for (int n = 0; n < layout_.nodes; ++n) {
          const auto r = rails_of(kinds_.kind_of_node(n));
          node_bw.push_back(std::accumulate(r.begin(), r.end(), 0.0));
          node_nic_bw.push_back(r.empty() ? 0.0 : *std::min_element(r.begin(), r.end()));
        }
        break;
      }
    if (slot.fabric) {
      // Another World's fabric (several jobs on one cluster): its rails must be this node's.
      if (slot.fabric->kind() != topology::FabricKind::NonBlocking && slot.fabric->rail_bytes_per_s() != rail_bw)
        throw SpecError("placement",
                        "placement: the NIC groups (rails) differ from the first job's, which the shared "
                        "fabric was built for (expected the same placement.nics_per_pod and pods per "
                        "node, and instances with the same NICs, in every job on a rail or fat_tree fabric)");
      fabric_ = slot.fabric;
      return;
    }
    own_fabric_.emplace(spec.cluster.fabric, std::max(layout_.nodes, slot.cluster_nodes), std::move(rail_bw),
                        node_.nic_kind, node_bw, node_nic_bw);
    own_fabric_->add_links(net);
    fabric_ = &*own_fabric_;
  }

  NodeKinds kinds_;           // the machines: one kind, or one per [[cluster.groups]] entry
  const hw::NodeSpec& node_;  // the first kind's
  nccl::NcclEnv env_;
  topology::Placement layout_;
  std::vector<RankInfo> ranks_;
  std::vector<NodeLinks> links_;
  std::vector<LinkRange> node_links_;  // node_links()
  int first_node_ = 0;                 // ClusterSlot::first_node: where this World's nodes sit on the cluster
  std::optional<topology::Fabric> own_fabric_;
  const topology::Fabric* fabric_ = nullptr;  // own_fabric_, or one shared with other Worlds
  TcpEdge tcp_edge_;                          // tcp_edge()
  std::vector<double> raw_;            // per link index: raw bandwidth where the capacity carries an efficiency, else 0
  std::vector<double> added_latency_;  // per link index: added_latency_s(), or empty (no slow link)
};

}  // namespace

// NVLSTree across EFA nodes with a chunk below the 512 KiB aws-ofi-nccl sets on AWS (a user's
// NCCL_NVLS_CHUNKSIZE or NCCL_NVLSTREE_MAX_CHUNKSIZE, or NCCL's own 64 KiB from 4 nodes where the
// plugin's is not set), from 4 nodes on: 8 x p5 measured a 4 GiB all-reduce at 104 GB/s of bus
// bandwidth with 64 KiB and 280 with 512 KiB (NVIDIA/nccl#1112), a cost the model does not have
// (docs/accuracy.md, "EFA, 4-32 x p5"), so a what-if that lowers the chunk there must say so. Two
// nodes are left out: 2 x p5 with 128 KiB chunks (scenarios/validation/p5_2node_efa) are within 4 %
// from 64 MiB, where NVLSTree runs.
std::string World::network_note() const {
  std::string note = node().network_caveat(nodes());
  const nccl::NcclEnv& env = nccl_env();
  const int64_t cap = env.nvlstree_max_chunksize == -2 ? (nodes() >= 4 ? int64_t{65536} : env.nvls_chunksize)
                                                       : env.nvlstree_max_chunksize;
  const int64_t chunk = std::min(env.nvls_chunksize, cap);
  constexpr int64_t kAwsChunk = int64_t{1} << 19;
  if (nodes() >= 4 && node().nic_kind == hw::NicKind::Efa && node().nvls && env.nvls_enable && chunk < kAwsChunk) {
    if (!note.empty()) note += " ";
    note += "NVLSTree's chunk is " + std::to_string(chunk / 1024) +
            " KiB here, below the 512 KiB aws-ofi-nccl sets on AWS: 8 x p5 ran a 4 GiB all-reduce 2.7x slower "
            "with 64 KiB chunks than with 512 KiB (NVIDIA/nccl#1112; 2 x p5 with 128 KiB showed no such cost), "
            "which the model does not price, so its NVLSTree times over EFA may be optimistic here.";
  }
  return note;
}

std::unique_ptr<World> World::build(const ScenarioSpec& spec, sim::FlowNetwork& net, const ClusterSlot& slot) {
  return std::make_unique<WorldImpl>(spec, net, slot);
}

}  // namespace models
