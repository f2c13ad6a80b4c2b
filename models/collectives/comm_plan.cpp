// Builds a communicator's plan: NCCL nodes, ring order, tree edges, and the view NCCL's graph
// search would have produced (channels and per-channel bandwidth), from the World's links.
#include "models/collectives/comm_plan.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace models::collectives {

Edge make_edge(const World& world, const sim::FlowNetwork& net, int from, int to) {
  Edge e;
  e.from = from;
  e.to = to;
  world.path(from, to, e.path);
  const Transport t = world.transport(from, to);
  e.link_class = t.link_class;
  e.p2p_read = t.kind == TransportKind::P2P && t.p2p_read;
  e.raw_bandwidth = 0;
  for (sim::LinkId l : e.path) {
    const double c = net.link_capacity(l);
    if (e.raw_bandwidth == 0 || c < e.raw_bandwidth) {
      e.raw_bandwidth = c;
      e.bottleneck = l;
    }
  }
  if (e.raw_bandwidth == 0) e.raw_bandwidth = 1e12;  // no shared link: same GPU
  // TCP is CPU-bound: one connection moves ~5 GB/s whatever the link (single-stream iperf3 over
  // lo or a 100G NIC on current x86, ~40 Gb/s; models/hw/links.cpp tcp_loopback). The socket
  // efficiency is relative to that, so it carries from a loopback VM to a 100G ENA host.
  if (e.link_class == LinkClass::Socket) e.raw_bandwidth = std::min(e.raw_bandwidth, kTcpStreamBytesPerS);
  return e;
}

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
}  // namespace

CommPlan build_plan(const World& world, const sim::FlowNetwork& net, const std::vector<int>& ranks) {
  CommPlan plan;
  const int n = static_cast<int>(ranks.size());
  // NCCL nodes: ranks that reach each other without the network. A host's GPUs split into
  // separate nodes where only NET joins them (ncclTopoTrimSystem keeps, per rank, the GPUs its
  // GPU reaches below PATH_NET): pods without a shared IPC namespace, and also GPUs of one process
  // or pod with NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 (the 4xH200 Socket runs log inter-node
  // double binary trees "2/-1/-1->0->-1" and a one-GPU graph "Pattern 4, nChannels 1").
  std::vector<int> order(ranks);
  std::sort(order.begin(), order.end(), [&](int a, int b) {
    const RankInfo &ra = world.rank(a), &rb = world.rank(b);
    if (ra.node != rb.node) return ra.node < rb.node;
    if (ra.pod != rb.pod) return ra.pod < rb.pod;
    return ra.local_gpu < rb.local_gpu;
  });
  std::vector<int> node_first_rank;
  std::map<int, std::vector<int>> nccl_nodes_of_host;  // physical node -> its NCCL nodes
  plan.node_of.resize(n);
  for (int i = 0; i < n; ++i) {
    std::vector<int>& here = nccl_nodes_of_host[world.rank(order[i]).node];
    int nccl_node = -1;
    for (int v : here)
      if (world.transport(node_first_rank[v], order[i]).kind != TransportKind::NET) {
        nccl_node = v;
        break;
      }
    if (nccl_node < 0) {
      nccl_node = static_cast<int>(node_first_rank.size());
      node_first_rank.push_back(order[i]);
      here.push_back(nccl_node);
    }
    plan.node_of[i] = nccl_node;
  }
  // Ring order: by NCCL node, then local GPU (stable sort keeps the GPU order within a node).
  std::vector<int> pos(n);
  for (int i = 0; i < n; ++i) pos[i] = i;
  std::stable_sort(pos.begin(), pos.end(), [&](int a, int b) { return plan.node_of[a] < plan.node_of[b]; });
  plan.ring.resize(n);
  std::vector<int> node_of_sorted(n);
  for (int i = 0; i < n; ++i) {
    plan.ring[i] = order[pos[i]];
    node_of_sorted[i] = plan.node_of[pos[i]];
  }
  plan.node_of = node_of_sorted;
  const int nnodes = static_cast<int>(node_first_rank.size());

  std::vector<std::vector<int>> members(nnodes);
  for (int i = 0; i < n; ++i) members[plan.node_of[i]].push_back(plan.ring[i]);

  // What NCCL's tuner sees.
  nccl::CommView& v = plan.view;
  v.nranks = n;
  v.nnodes = std::max(1, nnodes);
  v.sm = world.node().gpu.sm;  // the catalog's compute capability
  int max_ppn = 0;
  for (const auto& m : members) max_ppn = std::max<int>(max_ppn, static_cast<int>(m.size()));
  v.intra_nvlink = false;
  v.bw_intra_gbs = 0;
  v.graph_channels = 1;
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
      max_bw = std::min(48.0, e.raw_bandwidth / 1e9 * 0.76);  // PCIe as NCCL rates it (topo.h)
    }
    intra_graph(max_bw, v.sm, v.intra_nvlink, v.bw_intra_gbs, v.graph_channels);
    if (t.kind == TransportKind::NET) v.graph_channels = 1;
    break;
  }
  if (nnodes > 1) {
    const Edge e = make_edge(world, net, members[0][0], members[1][0]);
    const Transport t = world.transport(members[0][0], members[1][0]);
    // What NCCL's graph search rates the network at: the speed its net plugin reports. The
    // Socket plugin reads /sys/class/net/IF/speed and, where it cannot (lo, most virtual NICs:
    // "Could not get speed from /sys/class/net/lo/speed. Defaulting to 10 Gbps", sock_n4 log),
    // takes 10 Gb/s, whatever TCP really moves.
    v.bw_inter_gbs =
        t.kind == TransportKind::NET && t.link_class == LinkClass::Socket ? kSocketReportedGbs : e.raw_bandwidth / 1e9;
    v.inter_gdr_near = t.gdr;
    // One graph channel per NIC the node's ranks use to leave it.
    std::set<uint32_t> nics;
    for (int r : members[0]) {
      std::vector<sim::LinkId> p;
      world.path(r, members[1][0], p);
      for (sim::LinkId l : p) {
        const std::string& kind = net.link_kind(l);
        if (kind == "efa" || kind == "ib" || kind == "roce" || kind == "eth" || kind == "nic") {
          nics.insert(l.index);
          break;
        }
      }
    }
    v.graph_channels = std::max<int>(1, static_cast<int>(nics.size()));
    if (v.bw_intra_gbs == 0) v.bw_intra_gbs = v.bw_inter_gbs;
  }
  if (v.bw_intra_gbs == 0) v.bw_intra_gbs = 1;
  plan.channels_ref = nccl::coll_channels(v, nccl::TuningEnv{});

  // Rings: one per NIC group across nodes, each rotating every node's GPU order so that it
  // leaves the node through a different GPU (and so a different NIC).
  if (n > 1) {
    int rings = 1;
    if (nnodes > 1) rings = std::max(1, std::min({v.graph_channels, max_ppn, plan.channels_ref}));
    for (int r = 0; r < rings; ++r) {
      std::vector<int> order_r;
      order_r.reserve(n);
      for (const auto& m : members) {
        const int k = static_cast<int>(m.size());
        const int offset = rings > 1 ? (r * k) / rings : 0;
        for (int j = 0; j < k; ++j) order_r.push_back(m[(offset + j) % k]);
      }
      std::vector<Edge> edges;
      edges.reserve(n);
      for (int i = 0; i < n; ++i) edges.push_back(make_edge(world, net, order_r[i], order_r[(i + 1) % n]));
      plan.rings.push_back(std::move(edges));
    }
    // Tree sets: each rotates the nodes' GPU order like its ring, so its node leader (and the
    // NIC the leader uses) differs from the other sets'.
    for (int r = 0; r < rings; ++r) {
      CommPlan::TreeSet ts;
      std::vector<int> leader(nnodes);
      for (int k = 0; k < nnodes; ++k) {
        const auto& m = members[k];
        const int size = static_cast<int>(m.size());
        const int offset = rings > 1 ? (r * size) / rings : 0;
        leader[k] = m[offset % size];
        for (int j = 1; j < size; ++j) {
          const int child = m[(offset + j) % size], parent = m[(offset + j - 1) % size];
          ts.chain_up.push_back(make_edge(world, net, child, parent));
          ts.chain_down.push_back(make_edge(world, net, parent, child));
        }
      }
      for (int t = 0; t < 2; ++t)
        for (int i = 1; i < nnodes; ++i) {
          // Tree 0 is a heap-ordered binary tree; tree 1 mirrors it (NCCL's ncclGetDtree).
          const int child = t == 0 ? i : nnodes - 1 - i;
          const int parent = t == 0 ? (i - 1) / 2 : nnodes - 1 - (i - 1) / 2;
          ts.up[t].push_back(make_edge(world, net, leader[child], leader[parent]));
          ts.down[t].push_back(make_edge(world, net, leader[parent], leader[child]));
        }
      plan.trees.push_back(std::move(ts));
    }
    // A GPU's NVLink carries every ring (tree set) through it; a NIC only the one leaving by it.
    std::map<uint32_t, std::set<int>> on;
    for (int r = 0; r < static_cast<int>(plan.rings.size()); ++r)
      for (const Edge& e : plan.rings[r]) on[e.bottleneck.index].insert(r);
    for (auto& ring : plan.rings)
      for (Edge& e : ring) e.rings_sharing = static_cast<int>(on[e.bottleneck.index].size());
    on.clear();
    auto tree_edges = [](CommPlan::TreeSet& ts) {
      std::vector<Edge*> all;
      for (auto* list : {&ts.chain_up, &ts.chain_down, &ts.up[0], &ts.up[1], &ts.down[0], &ts.down[1]})
        for (Edge& e : *list) all.push_back(&e);
      return all;
    };
    for (int r = 0; r < static_cast<int>(plan.trees.size()); ++r)
      for (Edge* e : tree_edges(plan.trees[r])) on[e->bottleneck.index].insert(r);
    for (auto& ts : plan.trees)
      for (Edge* e : tree_edges(ts)) e->rings_sharing = static_cast<int>(on[e->bottleneck.index].size());

    // Merge identical pairs (kept in first-seen order, so runs stay deterministic).
    auto merge = [](std::vector<CommPlan::MergedEdge>& out, std::map<std::pair<int, int>, std::size_t>& index,
                    const Edge& e, double bytes_frac, double share_frac) {
      const auto key = std::make_pair(e.from, e.to);
      auto it = index.find(key);
      if (it == index.end()) {
        index.emplace(key, out.size());
        out.push_back({e, bytes_frac, share_frac});
      } else {
        out[it->second].bytes_frac += bytes_frac;
        out[it->second].share_frac += share_frac;
      }
    };
    std::map<std::pair<int, int>, std::size_t> ring_index, tree_index;
    const double nr = static_cast<double>(plan.rings.size()), nt = static_cast<double>(plan.trees.size());
    for (const auto& ring : plan.rings)
      for (const Edge& e : ring) merge(plan.ring_merged, ring_index, e, 1.0 / nr, 1.0 / e.rings_sharing);
    for (const auto& ts : plan.trees) {
      for (const auto* chain : {&ts.chain_up, &ts.chain_down})
        for (const Edge& e : *chain) merge(plan.tree_merged, tree_index, e, 1.0 / nt, 1.0 / e.rings_sharing);
      for (int t = 0; t < 2; ++t)
        for (const auto* list : {&ts.up[t], &ts.down[t]})
          for (const Edge& e : *list) merge(plan.tree_merged, tree_index, e, 0.5 / nt, 0.5 / e.rings_sharing);
    }
  }
  return plan;
}

}  // namespace models::collectives
