// Builds a communicator's plan the way NCCL's initialisation lays it out, in named steps:
//   find_nccl_nodes         which ranks reach each other without the network (ncclTopoTrimSystem)
//   order_ring              the ring by NCCL node, then local GPU
//   tuner_view              what the graph search reports to the tuner (graph_search.cpp)
//   rings_per_nic_group     one ring per NIC group across nodes (src/graph/search.cc)
//   build_rings             each ring rotated to leave every node through a different GPU and NIC
//   build_tree_sets         a chain inside each node, NCCL's double binary tree across nodes
//   count_rings_sharing     how many rings (tree sets) split each bottleneck link's channels
//   merge_*_edges           rotated rings share most pairs: one flow per distinct pair
//   plan_nvls_tree          NVLSTree: the heads' inter-node edges, every rank's port to the switch
//   plan_nvls, plan_collnet_*  NVLS and CollNet: ports to the switch, heads' NICs (switch_plan.cpp)
//   rate_p2p_peers          what NCCL's topology gives a point-to-point peer (p2p_channels.hpp)
// The view, ring order and p2p rating come first; rings, tree sets and NVLSTree's parts are laid
// out by complete_plan, each when an algorithm first needs it (PlanPart, comm_plan.hpp).
// NVLSTree's part folded by the GPU rotation: comm_plan_fold.cpp.
#include "models/comm_plan/comm_plan.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "models/comm_plan/comm_plan_steps.hpp"
#include "models/comm_plan/graph_search.hpp"
#include "models/comm_plan/switch_plan.hpp"

namespace models::collectives {

Edge make_edge(const World& world, const sim::FlowNetwork& net, int from, int to) {
  Edge e;
  e.from = from;
  e.to = to;
  world.path(from, to, e.path);
  fill_edge(world, net, e);
  return e;
}

void fill_edge(const World& world, const sim::FlowNetwork& net, Edge& e) {
  const Transport t = world.route(e.from, e.to);
  e.link_class = t.link_class;
  e.p2p_read = t.kind == TransportKind::P2P && t.p2p_read;
  e.raw_bandwidth = 0;
  for (sim::LinkId l : e.path) {
    if (net.link_kind(l) == "fabric")
      e.fabric_latency_s += net.link_latency(l).seconds();
    else
      e.fabric_latency_s += world.added_latency_s(l);  // a slowed link's excess ([[stragglers]] link)
    const double c = world.raw_capacity(l, net);       // physical: NVLink ports' capacity carries an efficiency
    if (e.raw_bandwidth == 0 || c < e.raw_bandwidth) {
      e.raw_bandwidth = c;
      e.bottleneck = l;
    }
  }
  if (e.raw_bandwidth == 0) e.raw_bandwidth = kSameGpuBytesPerS;
  const double raw_path = e.raw_bandwidth;
  // TCP is CPU-bound: a thread moves ~5 GB/s whatever the link (models/hw/links.hpp
  // kTcpThreadBytesPerS) when it sends and receives, 1/socket.thread_duplex of that when it only
  // sends; World::tcp_edge says how much one edge may move (the rank's proxy thread, or NCCL's
  // helper threads). The socket efficiencies are relative to the both-way rate (they were fitted
  // on rings, whose ranks do both), so they carry from a loopback VM to a 100G ENA host; Simple
  // may reach the one-way rate where the rank's proxy link leaves room (flow_cap.hpp).
  if (e.link_class == LinkClass::Socket) {
    const World::TcpEdge tcp = world.tcp_edge();
    e.raw_bandwidth = std::min(e.raw_bandwidth, tcp.both_way);
    e.simple_raw_factor = std::min(raw_path, tcp.one_way) / e.raw_bandwidth;
  }
}

// The named steps (comm_plan_steps.hpp declares those the folded layout, comm_plan_fold.cpp, uses).
namespace plan_steps {

// NCCL nodes: ranks that reach each other without the network. A host's GPUs split into
// separate nodes where only NET joins them (ncclTopoTrimSystem keeps, per rank, the GPUs its
// GPU reaches below PATH_NET): pods without a shared IPC namespace, and also GPUs of one process
// or pod with NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 (the 4xH200 Socket runs log inter-node
// double binary trees "2/-1/-1->0->-1" and a one-GPU graph "Pattern 4, nChannels 1").
struct NcclNodes {
  std::vector<int> order;    // the ranks by host, pod, local GPU
  std::vector<int> node_of;  // per position in `order`: NCCL node index
  int count = 0;
};

NcclNodes find_nccl_nodes(const World& world, const std::vector<int>& ranks) {
  NcclNodes nodes;
  const int n = static_cast<int>(ranks.size());
  nodes.order = ranks;
  std::sort(nodes.order.begin(), nodes.order.end(), [&](int a, int b) {
    const RankInfo &ra = world.rank(a), &rb = world.rank(b);
    if (ra.node != rb.node) return ra.node < rb.node;
    if (ra.pod != rb.pod) return ra.pod < rb.pod;
    return ra.local_gpu < rb.local_gpu;
  });
  std::vector<int> node_first_rank;
  std::map<int, std::vector<int>> nccl_nodes_of_host;  // physical node -> its NCCL nodes
  nodes.node_of.resize(n);
  for (int i = 0; i < n; ++i) {
    const int r = nodes.order[i];
    std::vector<int>& here = nccl_nodes_of_host[world.rank(r).node];
    int nccl_node = -1;
    for (int v : here)
      if (world.transport(node_first_rank[v], r).kind != TransportKind::NET) {
        nccl_node = v;
        break;
      }
    if (nccl_node < 0) {
      nccl_node = static_cast<int>(node_first_rank.size());
      node_first_rank.push_back(r);
      here.push_back(nccl_node);
    }
    nodes.node_of[i] = nccl_node;
  }
  nodes.count = static_cast<int>(node_first_rank.size());
  return nodes;
}

// Ring order: by NCCL node, then local GPU (a stable sort keeps the GPU order within a node).
// Sets plan.ring and plan.node_of; returns each NCCL node's ranks in that order.
std::vector<std::vector<int>> order_ring(const NcclNodes& nodes, CommPlan& plan) {
  const int n = static_cast<int>(nodes.order.size());
  std::vector<int> pos(n);
  for (int i = 0; i < n; ++i) pos[i] = i;
  std::stable_sort(pos.begin(), pos.end(), [&](int a, int b) { return nodes.node_of[a] < nodes.node_of[b]; });
  plan.ring.resize(n);
  plan.node_of.resize(n);
  for (int i = 0; i < n; ++i) {
    plan.ring[i] = nodes.order[pos[i]];
    plan.node_of[i] = nodes.node_of[pos[i]];
  }
  std::vector<std::vector<int>> members(nodes.count);
  for (int i = 0; i < n; ++i) members[plan.node_of[i]].push_back(plan.ring[i]);
  return members;
}

// Across nodes NCCL's channels do not all follow one ring: each leaves a node through a
// different GPU and so its NIC (src/graph/search.cc), one ring per NIC group, as many as the
// graph's channels, the ranks per node and the default channels allow. One ring on one node.
int rings_per_nic_group(const CommPlan& plan, const std::vector<std::vector<int>>& members) {
  if (members.size() <= 1) return 1;
  int max_ppn = 0;
  for (const auto& m : members) max_ppn = std::max<int>(max_ppn, static_cast<int>(m.size()));
  return std::max(1, std::min({plan.view.graph_channels, max_ppn, plan.channels_ref}));
}

// Ring (tree set) r of `rings` starts each node's GPU order this far in, so that it leaves the
// node through a different GPU than the others.
int rotation(int r, int rings, int node_size) { return rings > 1 ? (r * node_size) / rings : 0; }

void build_rings(const World& world, const sim::FlowNetwork& net, const std::vector<std::vector<int>>& members,
                 int rings, int n, CommPlan& plan) {
  for (int r = 0; r < rings; ++r) {
    std::vector<int> order_r;
    order_r.reserve(n);
    for (const auto& m : members) {
      const int k = static_cast<int>(m.size());
      const int offset = rotation(r, rings, k);
      for (int j = 0; j < k; ++j) order_r.push_back(m[(offset + j) % k]);
    }
    std::vector<Edge> edges;
    edges.reserve(n);
    for (int i = 0; i < n; ++i) edges.push_back(make_edge(world, net, order_r[i], order_r[(i + 1) % n]));
    plan.rings.push_back(std::move(edges));
  }
}

// Tree sets: each rotates the nodes' GPU order like its ring, so its node leader (and the NIC
// the leader uses) differs from the other sets'. Tree 0 across the leaders is a heap-ordered
// binary tree; tree 1 mirrors it (NCCL's ncclGetDtree, src/graph/trees.cc).
// `built`: the sets laid out (all but folded: set 0 alone, the others its rotations).
void build_tree_sets(const World& world, const sim::FlowNetwork& net, const std::vector<std::vector<int>>& members,
                     int rings, bool chains, CommPlan& plan, int built) {
  const int nnodes = static_cast<int>(members.size());
  plan.trees.clear();
  for (int r = 0; r < built; ++r) {
    CommPlan::TreeSet ts;
    std::vector<int> leader(nnodes);
    for (int k = 0; k < nnodes; ++k) {
      const auto& m = members[k];
      const int size = static_cast<int>(m.size());
      const int offset = rotation(r, rings, size);
      leader[k] = m[offset % size];
      if (!chains) continue;
      for (int j = 1; j < size; ++j) {
        const int child = m[(offset + j) % size], parent = m[(offset + j - 1) % size];
        ts.chain_up.push_back(make_edge(world, net, child, parent));
        ts.chain_down.push_back(make_edge(world, net, parent, child));
      }
    }
    for (int t = 0; t < 2; ++t)
      for (int i = 1; i < nnodes; ++i) {
        const int child = t == 0 ? i : nnodes - 1 - i;
        const int parent = t == 0 ? (i - 1) / 2 : nnodes - 1 - (i - 1) / 2;
        ts.up[t].push_back(make_edge(world, net, leader[child], leader[parent]));
        ts.down[t].push_back(make_edge(world, net, leader[parent], leader[child]));
      }
    plan.trees.push_back(std::move(ts));
  }
}

std::vector<Edge*> tree_edges(CommPlan::TreeSet& ts) {
  std::vector<Edge*> all;
  for (auto* list : {&ts.chain_up, &ts.chain_down, &ts.up[0], &ts.up[1], &ts.down[0], &ts.down[1]})
    for (Edge& e : *list) all.push_back(&e);
  return all;
}

// Per link, the number of distinct sets (rings, tree sets) whose edges have it as their
// bottleneck: the size of the set of those sets, counted in one pass because every set's edges
// are counted together, sets in increasing order.
class SetsPerLink {
 public:
  explicit SetsPerLink(std::size_t edges) { per_link_.reserve(edges); }
  void add(sim::LinkId l, int set) {
    auto [it, fresh] = per_link_.try_emplace(l.index, Count{set, 1});
    if (!fresh && it->second.last != set) {
      it->second.last = set;
      ++it->second.sets;
    }
  }
  int sets(sim::LinkId l) const { return per_link_.at(l.index).sets; }

 private:
  struct Count {
    int last = 0, sets = 0;
  };
  std::unordered_map<uint32_t, Count> per_link_;
};

// Without stored chains (an NVLSTree-only plan): the bottlenecks of the chain edges of each set
// that are also the bottleneck of an inter-node edge, the only chain edges that change an
// inter-node edge's rings_sharing. A bottleneck is a link of its path, so a chain edge whose path
// holds no inter-node bottleneck is skipped without rating it.
// Folded (`rotation`, plan.trees set 0 alone): set r's inter-node bottlenecks are set 0's rotated r
// times, and set r's shared chain bottlenecks set 0's rotated (probed for set 0 only).
std::vector<std::vector<sim::LinkId>> chain_bottlenecks_shared(const World& world, const sim::FlowNetwork& net,
                                                               const std::vector<std::vector<int>>& members, int rings,
                                                               const CommPlan& plan, const scale::GpuRotation* rot) {
  std::unordered_set<uint32_t> inter;
  for (const auto& ts : plan.trees)
    for (int t = 0; t < 2; ++t)
      for (const auto* list : {&ts.up[t], &ts.down[t]})
        for (const Edge& e : *list) {
          inter.insert(e.bottleneck.index);
          for (uint32_t x = e.bottleneck.index, r = 1; rot && r < static_cast<uint32_t>(rot->order); ++r) {
            x = rot->rotate_link(x);
            if (x == scale::GpuRotation::kNone) break;  // count_folded_sets_sharing then refuses the fold
            inter.insert(x);
          }
        }
  if (rot) rings = 1;
  std::vector<std::vector<sim::LinkId>> shared(rings);
  std::vector<sim::LinkId> path;
  auto probe = [&](int r, int from, int to) {
    path.clear();
    world.path(from, to, path);
    bool hit = path.empty();
    for (sim::LinkId l : path) hit = hit || inter.contains(l.index);
    if (!hit) return;
    const Edge e = make_edge(world, net, from, to);
    if (inter.contains(e.bottleneck.index)) shared[r].push_back(e.bottleneck);
  };
  for (int r = 0; r < rings; ++r)
    for (const auto& m : members) {
      const int size = static_cast<int>(m.size());
      const int offset = rotation(r, rings, size);
      for (int j = 1; j < size; ++j) {
        const int child = m[(offset + j) % size], parent = m[(offset + j - 1) % size];
        probe(r, child, parent);
        probe(r, parent, child);
      }
    }
  return shared;
}

// A GPU's NVLink carries every ring (tree set) through it; a NIC only the one leaving by it.
void count_rings_sharing(std::vector<std::vector<Edge>>& rings) {
  std::size_t edges = 0;
  for (const auto& ring : rings) edges += ring.size();
  SetsPerLink on(edges);
  for (int r = 0; r < static_cast<int>(rings.size()); ++r)
    for (const Edge& e : rings[r]) on.add(e.bottleneck, r);
  for (auto& ring : rings)
    for (Edge& e : ring) e.rings_sharing = on.sets(e.bottleneck);
}

// The same for tree sets; `chain_shared` (chains not stored): per set, its chain edges'
// bottlenecks that matter (chain_bottlenecks_shared).
void count_tree_sets_sharing(std::vector<CommPlan::TreeSet>& trees,
                             const std::vector<std::vector<sim::LinkId>>& chain_shared) {
  std::size_t edges = 0;
  for (auto& ts : trees) edges += tree_edges(ts).size();
  SetsPerLink on(edges);
  for (int r = 0; r < static_cast<int>(trees.size()); ++r) {
    for (Edge* e : tree_edges(trees[r])) on.add(e->bottleneck, r);
    if (r < static_cast<int>(chain_shared.size()))
      for (sim::LinkId l : chain_shared[r]) on.add(l, r);
  }
  for (auto& ts : trees)
    for (Edge* e : tree_edges(ts)) e->rings_sharing = on.sets(e->bottleneck);
}

// Merges identical (from, to) pairs, kept in first-seen order so that runs stay deterministic.
class EdgeMerger {
 public:
  EdgeMerger(std::vector<CommPlan::MergedEdge>& out, std::size_t edges) : out_(out) { index_.reserve(edges); }
  void add(const Edge& e, double bytes_frac, double share_frac, bool down = false) {
    const uint64_t key = (static_cast<uint64_t>(static_cast<uint32_t>(e.from)) << 32) | static_cast<uint32_t>(e.to);
    auto [it, fresh] = index_.try_emplace(key, out_.size());
    if (fresh) {
      out_.push_back({e, bytes_frac, share_frac, down ? bytes_frac : 0.0});
    } else {
      out_[it->second].bytes_frac += bytes_frac;
      out_[it->second].share_frac += share_frac;
      if (down) out_[it->second].down_frac += bytes_frac;
    }
  }

 private:
  std::vector<CommPlan::MergedEdge>& out_;
  std::unordered_map<uint64_t, std::size_t> index_;
};

// Each of R rings moves 1/R of the bytes; a tree set's chain edges 1/T of S each way, its two
// inter-node trees half of that each.
void merge_ring_edges(CommPlan& plan) {
  EdgeMerger rings(plan.ring_merged, plan.rings.empty() ? 0 : plan.rings.front().size());
  const double nr = static_cast<double>(plan.rings.size());
  for (const auto& ring : plan.rings)
    for (const Edge& e : ring) rings.add(e, 1.0 / nr, 1.0 / e.rings_sharing);
}

void merge_tree_edges(CommPlan& plan) {
  EdgeMerger trees(plan.tree_merged, plan.trees.empty() ? 0 : 2 * plan.ring.size());
  const double nt = static_cast<double>(plan.trees.size());
  for (const auto& ts : plan.trees) {
    for (const auto* chain : {&ts.chain_up, &ts.chain_down})
      for (const Edge& e : *chain) trees.add(e, 1.0 / nt, 1.0 / e.rings_sharing, chain == &ts.chain_down);
    for (int t = 0; t < 2; ++t)
      for (const auto* list : {&ts.up[t], &ts.down[t]})
        for (const Edge& e : *list) trees.add(e, 0.5 / nt, 0.5 / e.rings_sharing, list == &ts.down[t]);
  }
}

// NVLSTree (nvls_tree.cpp): the inter-node edges of the tree sets (their leaders are the nodes'
// heads, one per NIC group), and per rank its NVLink port towards the NVSwitch (tx: all its S
// goes up for the switch to reduce, plus the slices it multicasts as a head) and from it (rx:
// the S the switch multicasts to it, plus the reduced slices it receives as a head).
// `folded` (> 0: the rotation's step): set 0's inter-node edges and each node's first `folded`
// GPUs' port pairs only (CommPlan::nvls_rotation).
void plan_nvls_tree(const World& world, const sim::FlowNetwork& net, const std::vector<std::vector<int>>& members,
                    CommPlan& plan, int folded) {
  EdgeMerger inter(plan.nvls_net_merged, 4 * members.size());
  const int sets = plan.sets;
  const double nt = static_cast<double>(sets);
  for (std::size_t r = 0; r < (folded > 0 ? 1 : plan.trees.size()); ++r)
    for (int t = 0; t < 2; ++t)
      for (const auto* list : {&plan.trees[r].up[t], &plan.trees[r].down[t]})
        for (const Edge& e : *list) inter.add(e, 0.5 / nt, 0.5 / e.rings_sharing);
  for (const auto& m : members) {
    const int k = static_cast<int>(m.size());
    std::vector<double> head_frac(k, 0.0);
    for (int r = 0; r < sets; ++r) head_frac[rotation(r, sets, k) % k] += 1.0 / nt;
    for (int j = 0; j < (folded > 0 ? folded : k); ++j) {
      const int g = m[j], peer = m[(j + 1) % k];
      Edge tx = make_edge(world, net, g, peer);
      tx.path.resize(1);  // the sender's NVLink port (World::path: [tx of g, rx of peer])
      Edge rx = make_edge(world, net, peer, g);
      rx.path.erase(rx.path.begin(), rx.path.end() - 1);  // the receiver's port
      for (Edge* e : {&tx, &rx}) {
        e->from = e->to = g;
        e->bottleneck = e->path.front();
        e->raw_bandwidth = world.raw_capacity(e->bottleneck, net);
        e->rings_sharing = 1;
        plan.nvls_switch.push_back({*e, 1.0 + head_frac[j], 1.0});
      }
    }
  }
}

// ncclTopoGetNchannels (src/graph/paths.cc): a peer on the same NCCL node over an NVLink path is
// worth 2 x its NVLink links (the topology's path, whatever transport NCCL_P2P_DISABLE leaves),
// any other 2; 4 x H200 over TCP logs "2 p2p channels per peer" (measured/logs/sock_n4.rank0.log).
void rate_p2p_peers(const World& world, const std::vector<std::vector<int>>& members, CommPlan& plan) {
  const hw::NodeSpec& node = world.node();
  const bool nvlink = node.nvlink_gen > 0 && node.nvlink_links > 0;
  plan.p2p_all_nvlink = nvlink && members.size() == 1;
  plan.p2p_topo_per_peer = plan.p2p_all_nvlink ? 2 * node.nvlink_links : 2;
}

}  // namespace plan_steps

using namespace plan_steps;

CommPlan build_plan(const World& world, const sim::FlowNetwork& net, const std::vector<int>& ranks, unsigned parts) {
  CommPlan plan;
  const int n = static_cast<int>(ranks.size());
  const NcclNodes nodes = find_nccl_nodes(world, ranks);
  plan.members = order_ring(nodes, plan);
  plan.view = tuner_view(world, net, plan.members, n);
  plan.channels_ref = nccl::coll_channels(plan.view, nccl::TuningEnv{});
  rate_p2p_peers(world, plan.members, plan);
  if (n <= 1) {
    plan.built = kPlanAll;  // nothing to lay out
    return plan;
  }
  plan.sets = rings_per_nic_group(plan, plan.members);
  complete_plan(world, net, plan, parts);
  return plan;
}

void complete_plan(const World& world, const sim::FlowNetwork& net, CommPlan& plan, unsigned parts,
                   const scale::GpuRotation* rotation) {
  const unsigned missing = parts & ~plan.built;
  if (missing == 0) return;
  const int n = static_cast<int>(plan.ring.size());
  if (missing & kPlanRings) {
    build_rings(world, net, plan.members, plan.sets, n, plan);
    count_rings_sharing(plan.rings);
    merge_ring_edges(plan);
  }
  // Tree sets: with their chains for the tree all-reduce; for NVLSTree alone, without (their
  // inter-node edges' rings_sharing still counts the chains, chain_bottlenecks_shared). Built
  // again with chains when a tree all-reduce follows an NVLSTree one: the same edges.
  // CollNetChain reads the same chains (switch_plan.cpp).
  // Folded NVLSTree (rotation): tree set 0 alone, unless the sets are there already.
  const bool nvls_tree = (missing & kPlanNvlsTree) && plan.view.nvls && plan.view.nnodes > 1;
  const bool chains =
      (missing & kPlanTrees) != 0 || ((missing & kPlanChain) && !(plan.built & kPlanTrees) && plan.view.collnet);
  const bool folded = nvls_tree && !chains && rotation && may_fold(world, plan, *rotation) &&
                      plan_nvls_tree_folded(world, net, plan, *rotation);
  if (chains || (!folded && (missing & kPlanNvlsTree) && static_cast<int>(plan.trees.size()) < plan.sets)) {
    build_tree_sets(world, net, plan.members, plan.sets, chains, plan, plan.sets);
    count_tree_sets_sharing(plan.trees,
                            chains ? std::vector<std::vector<sim::LinkId>>{}
                                   : chain_bottlenecks_shared(world, net, plan.members, plan.sets, plan, nullptr));
  }
  if (missing & kPlanTrees) merge_tree_edges(plan);
  if (nvls_tree && !folded) plan_nvls_tree(world, net, plan.members, plan, /*folded=*/0);
  if (missing & kPlanNvls) plan_nvls(world, net, plan);
  if (missing & kPlanCollNet) plan_collnet_direct(world, net, plan);
  if (missing & kPlanChain) plan_collnet_chain(world, net, plan);
  plan.built |= parts;
}

}  // namespace models::collectives
