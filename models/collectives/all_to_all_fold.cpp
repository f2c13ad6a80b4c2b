// The all-to-all fold (all_to_all_fold.hpp states it and why it is exact).
#include "models/collectives/all_to_all_fold.hpp"

#include <algorithm>
#include <map>
#include <tuple>

namespace models::collectives {

namespace {

enum Relation : uint32_t { kSameNode = 0, kSamePod = 1, kOtherPod = 2 };

// What makes two pairs' flows identical apart from their path: the cap's and hop's inputs.
auto edge_key(const Edge& e) {
  return std::make_tuple(static_cast<int>(e.link_class), e.p2p_read, e.raw_bandwidth, e.simple_raw_factor,
                         e.fabric_latency_s, e.rings_sharing);
}

struct Sides {
  std::vector<sim::LinkId> src, dst;  // a's side of a -> b, a's side of b -> a
  Edge edge;                          // a -> b, path cleared
};

// a's sides of its pair with b, or nullopt where a path does not split. `back`: scratch.
std::optional<Sides> sides(const World& world, const sim::FlowNetwork& net, int a, int b,
                           std::vector<sim::LinkId>& back) {
  Sides s;
  s.edge.from = a;
  s.edge.to = b;
  const auto split_ab = world.path_split(a, b, s.edge.path);
  if (!split_ab) return std::nullopt;
  back.clear();
  const auto split_ba = world.path_split(b, a, back);
  if (!split_ba) return std::nullopt;
  fill_edge(world, net, s.edge);  // make_edge(a, b) on the path just built
  s.src.assign(s.edge.path.begin(), s.edge.path.begin() + static_cast<std::ptrdiff_t>(*split_ab));
  s.dst.assign(back.begin() + static_cast<std::ptrdiff_t>(*split_ba), back.end());
  s.edge.path = {};
  return s;
}

bool same_links(const std::vector<sim::LinkId>& x, const std::vector<sim::LinkId>& y) {
  return x.size() == y.size() && std::equal(x.begin(), x.end(), y.begin());
}

}  // namespace

uint32_t Fold::flow_of_pair(const World& world, int a, int b) const {
  const RankInfo &ra = world.rank(a), &rb = world.rank(b);
  const uint32_t rel = ra.node == rb.node                             ? kSameNode
                       : pod_of_node[ra.node] == pod_of_node[rb.node] ? kSamePod
                                                                      : kOtherPod;
  return flow_of_class[(static_cast<std::size_t>(position[a]) * gpus + rb.local_gpu) * 3 + rel];
}

FoldOrReason build_fold(const World& world, const sim::FlowNetwork& net, const std::vector<int>& ranks) {
  FoldOrReason out;
  const int n = static_cast<int>(ranks.size());
  const int gpus = world.node().gpus;
  if (n < 2 || gpus <= 0) {
    out.reason = "fewer than 2 ranks";
    return out;
  }
  // The rectangle: every node of the group holds the same local GPUs of it.
  std::map<int, std::vector<int>> gpus_of_node;  // node -> local GPUs (sorted below)
  std::vector<int> rank_at(static_cast<std::size_t>(world.nodes()) * gpus, -1);
  for (int r : ranks) {
    const RankInfo& ri = world.rank(r);
    int& slot = rank_at[static_cast<std::size_t>(ri.node) * gpus + ri.local_gpu];
    if (slot >= 0) {
      out.reason = "two ranks on one GPU";
      return out;
    }
    slot = r;
    gpus_of_node[ri.node].push_back(ri.local_gpu);
  }
  std::vector<int> nodes;
  for (auto& [node, g] : gpus_of_node) {
    std::sort(g.begin(), g.end());
    if (g != gpus_of_node.begin()->second) {
      out.reason = "nodes hold different GPUs of the group";
      return out;
    }
    nodes.push_back(node);
  }
  const std::vector<int>& local = gpus_of_node.begin()->second;
  // Pods, and per pod its first three nodes of the group; the first three pods' first nodes.
  Fold fold;
  fold.gpus = gpus;
  fold.pod_of_node.assign(world.nodes(), 0);
  std::map<int, std::vector<int>> pod_nodes;  // pod -> up to 3 nodes of the group
  std::map<int, int> pod_count;
  for (int node : nodes) {
    const auto pod = world.fabric_pod(node);
    if (!pod) {
      out.reason = "the fabric hashes flows per node pair (ECMP)";
      return out;
    }
    fold.pod_of_node[node] = *pod;
    ++pod_count[*pod];
    if (pod_nodes[*pod].size() < 3) pod_nodes[*pod].push_back(node);
  }
  std::vector<int> pod_heads;  // first node of the first 3 pods
  for (const auto& [pod, list] : pod_nodes) {
    if (pod_heads.size() == 3) break;
    pod_heads.push_back(list.front());
  }

  fold.position.assign(world.size(), Fold::kNone);
  for (int i = 0; i < n; ++i) fold.position[ranks[i]] = static_cast<uint32_t>(i);
  fold.flow_of_class.assign(static_cast<std::size_t>(n) * gpus * 3, Fold::kNone);

  // Per rank: its classes, merged by (sides, edge).
  struct Merged {
    std::vector<sim::LinkId> src, dst;
    Edge edge;
    uint32_t weight = 0;
  };
  std::vector<Merged> merged;
  std::vector<sim::LinkId> scratch;
  std::vector<uint32_t> class_slot;
  for (int i = 0; i < n; ++i) {
    const int a = ranks[i];
    const RankInfo& ra = world.rank(a);
    merged.clear();
    class_slot.assign(static_cast<std::size_t>(gpus) * 3, Fold::kNone);
    // One class: peers `members` (two of them checked), `count` pairs.
    auto add_class = [&](uint32_t cls, const std::vector<int>& members, uint32_t count) -> bool {
      const auto first = sides(world, net, a, members[0], scratch);
      if (!first) {
        out.reason = "a path with no sender/receiver split (NET/Socket)";
        return false;
      }
      if (members.size() > 1) {
        const auto second = sides(world, net, a, members[1], scratch);
        if (!second || !same_links(first->src, second->src) || !same_links(first->dst, second->dst) ||
            edge_key(first->edge) != edge_key(second->edge)) {
          out.reason = "peers of one class reached over different links";
          return false;
        }
      }
      for (std::size_t m = 0; m < merged.size(); ++m) {
        Merged& x = merged[m];
        if (same_links(x.src, first->src) && same_links(x.dst, first->dst) &&
            edge_key(x.edge) == edge_key(first->edge)) {
          x.weight += count;
          class_slot[cls] = static_cast<uint32_t>(m);
          return true;
        }
      }
      class_slot[cls] = static_cast<uint32_t>(merged.size());
      merged.push_back({first->src, first->dst, first->edge, count});
      return true;
    };
    // Same node: each peer alone.
    for (int g : local) {
      if (g == ra.local_gpu) continue;
      const int b = rank_at[static_cast<std::size_t>(ra.node) * gpus + g];
      if (!add_class(static_cast<uint32_t>(g) * 3 + kSameNode, {b}, 1)) return out;
    }
    // Other nodes: by local GPU and relation; up to two members each.
    const int pod = fold.pod_of_node[ra.node];
    std::vector<int> same_pod, other_pod;
    for (int node : pod_nodes[pod])
      if (node != ra.node) same_pod.push_back(node);
    for (int node : pod_heads)
      if (fold.pod_of_node[node] != pod) other_pod.push_back(node);
    const uint32_t in_pod = static_cast<uint32_t>(pod_count[pod] - 1);
    const uint32_t off_pod = static_cast<uint32_t>(static_cast<int>(nodes.size()) - pod_count[pod]);
    if (off_pod > 0 && other_pod.empty()) {
      // More than 3 pods and this node's pod among the first three: look further.
      for (const auto& [p, list] : pod_nodes)
        if (p != pod && other_pod.size() < 2) other_pod.push_back(list.front());
    }
    for (int g : local) {
      std::vector<int> members;
      if (in_pod > 0) {
        for (int node : same_pod) members.push_back(rank_at[static_cast<std::size_t>(node) * gpus + g]);
        if (members.size() > 2) members.resize(2);
        if (!add_class(static_cast<uint32_t>(g) * 3 + kSamePod, members, in_pod)) return out;
      }
      if (off_pod > 0) {
        members.clear();
        for (int node : other_pod) members.push_back(rank_at[static_cast<std::size_t>(node) * gpus + g]);
        if (members.size() > 2) members.resize(2);
        if (!add_class(static_cast<uint32_t>(g) * 3 + kOtherPod, members, off_pod)) return out;
      }
    }
    const uint32_t base = static_cast<uint32_t>(fold.flows.size());
    for (const Merged& x : merged) {
      FoldFlow f;
      f.rank = a;
      f.weight = x.weight;
      f.edge = x.edge;
      f.path_begin = static_cast<uint32_t>(fold.links_of_flows.size());
      fold.links_of_flows.insert(fold.links_of_flows.end(), x.src.begin(), x.src.end());
      fold.links_of_flows.insert(fold.links_of_flows.end(), x.dst.begin(), x.dst.end());
      f.path_end = static_cast<uint32_t>(fold.links_of_flows.size());
      for (uint32_t p = f.path_begin; p < f.path_end; ++p)
        for (uint32_t q = f.path_begin; q < p; ++q)
          if (fold.links_of_flows[p] == fold.links_of_flows[q]) {
            out.reason = "a folded path would cross a link twice";
            return out;
          }
      fold.flows.push_back(std::move(f));
    }
    for (std::size_t c = 0; c < class_slot.size(); ++c)
      if (class_slot[c] != Fold::kNone)
        fold.flow_of_class[static_cast<std::size_t>(i) * gpus * 3 + c] = base + class_slot[c];
  }

  // Symmetry: every rank's folded flows alike, link by link (capacity, folded weight on it).
  std::vector<uint64_t> load(net.link_count(), 0);
  for (const FoldFlow& f : fold.flows)
    for (uint32_t p = f.path_begin; p < f.path_end; ++p) {
      uint64_t& w = load[fold.links_of_flows[p].index];
      if (w == 0) fold.links.push_back(fold.links_of_flows[p]);
      w += f.weight;
    }
  std::vector<std::vector<double>> sig, first_sig;
  std::size_t f = 0;
  for (int i = 0; i < n; ++i) {
    sig.clear();
    for (; f < fold.flows.size() && fold.flows[f].rank == ranks[i]; ++f) {
      const FoldFlow& x = fold.flows[f];
      const auto k = edge_key(x.edge);
      std::vector<double> s{static_cast<double>(x.weight),
                            static_cast<double>(std::get<0>(k)),
                            static_cast<double>(std::get<1>(k)),
                            std::get<2>(k),
                            std::get<3>(k),
                            std::get<4>(k),
                            static_cast<double>(std::get<5>(k)),
                            static_cast<double>(x.path_end - x.path_begin)};
      for (uint32_t p = x.path_begin; p < x.path_end; ++p) {
        s.push_back(net.link_capacity(fold.links_of_flows[p]));
        s.push_back(static_cast<double>(load[fold.links_of_flows[p].index]));
      }
      sig.push_back(std::move(s));
    }
    std::sort(sig.begin(), sig.end());
    if (i == 0) {
      first_sig = sig;
    } else if (sig != first_sig) {
      out.reason = "ranks see different links or loads (a straggler, an uneven pod, an odd placement)";
      return out;
    }
  }
  out.fold = std::move(fold);
  return out;
}

}  // namespace models::collectives
