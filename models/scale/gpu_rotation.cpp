// GPU rotation (gpu_rotation.hpp): the permutation of a node's link offsets that moving every
// GPU one on induces, found from the paths between node 0's GPUs and between nodes 0 and 1, and
// checked to keep every link's parameters and every transport; then spread to every node.
#include "models/scale/gpu_rotation.hpp"

#include <algorithm>
#include <iterator>

#include "models/topology/fabric.hpp"

namespace models::scale {

namespace {

GpuRotation refused(std::string why) {
  GpuRotation g;
  g.why_not = std::move(why);
  return g;
}

// Two links play the same part: capacity, latency, raw capacity, added latency and kind.
bool same_link(const World& world, const sim::FlowNetwork& net, sim::LinkId x, sim::LinkId y) {
  return bits(net.link_capacity(x)) == bits(net.link_capacity(y)) && net.link_latency(x) == net.link_latency(y) &&
         bits(world.raw_capacity(x, net)) == bits(world.raw_capacity(y, net)) &&
         bits(world.added_latency_s(x)) == bits(world.added_latency_s(y)) && net.link_kind(x) == net.link_kind(y);
}

}  // namespace

// pi for g.step, found from node 0's pairs and nodes 0-1's pairs (both ways), and the classes:
// "" when every checked path rotates onto a path alike, else why not.
static std::string find_orbits(const World& world, const sim::FlowNetwork& net, GpuRotation& g) {
  const int k = g.k, nodes = world.nodes();
  const World::LinkRange first = world.node_links(0);
  // pi from the paths of node 0's pairs and of nodes 0 and 1's pairs, both ways.
  const World::LinkRange second = world.node_links(1);
  std::vector<uint32_t> pi(first.count, GpuRotation::kNone), pre(first.count, GpuRotation::kNone);
  // A link's (node 0 or 1, offset), or false when it is on neither node (a fabric link).
  const auto locate = [&](sim::LinkId l, int& node, uint32_t& offset) {
    if (l.index >= first.first && l.index < first.first + first.count) {
      node = 0, offset = l.index - first.first;
      return true;
    }
    if (l.index >= second.first && l.index < second.first + second.count) {
      node = 1, offset = l.index - second.first;
      return true;
    }
    return false;
  };
  std::vector<sim::LinkId> p, q;
  std::string why;
  const auto check_pair = [&](int a, int b) {
    const int ra = g.rotate(world, a), rb = g.rotate(world, b);
    const Transport t = world.route(a, b), u = world.route(ra, rb);
    const auto rotated_pxn = [&](std::optional<int> x) -> std::optional<int> {
      if (!x) return std::nullopt;
      return (*x + g.step) % k;
    };
    if (t.kind != u.kind || t.link_class != u.link_class || t.p2p_read != u.p2p_read || t.net_plugin != u.net_plugin ||
        t.gdr != u.gdr || rotated_pxn(t.pxn_gpu) != u.pxn_gpu || t.path != u.path) {
      why = "NCCL's transport between ranks " + std::to_string(a) + " and " + std::to_string(b) +
            " is not that between " + std::to_string(ra) + " and " + std::to_string(rb);
      return false;
    }
    p.clear(), q.clear();
    world.path(a, b, p);
    world.path(ra, rb, q);
    if (p.size() != q.size()) {
      why = "the paths " + std::to_string(a) + " -> " + std::to_string(b) + " and " + std::to_string(ra) + " -> " +
            std::to_string(rb) + " differ in length";
      return false;
    }
    for (std::size_t i = 0; i < p.size(); ++i) {
      int np = 0, nq = 0;
      uint32_t op = 0, oq = 0;
      if (!locate(p[i], np, op) || !locate(q[i], nq, oq)) {
        why =
            "a path crosses " + std::string(net.link_name(locate(p[i], np, op) ? q[i] : p[i])) + ", a link of no node";
        return false;
      }
      if (np != nq || (pi[op] != GpuRotation::kNone && pi[op] != oq) ||
          (pre[oq] != GpuRotation::kNone && pre[oq] != op) || !same_link(world, net, p[i], q[i])) {
        why = "rotating the GPUs does not map " + std::string(net.link_name(p[i])) + " onto one link alike";
        return false;
      }
      pi[op] = oq;
      pre[oq] = op;
    }
    return true;
  };
  for (int ga = 0; ga < k; ++ga)
    for (int gb = 0; gb < k; ++gb) {
      const int a0 = g.rank_at[0][ga], b0 = g.rank_at[0][gb], b1 = g.rank_at[1][gb];
      if ((ga != gb && !check_pair(a0, b0)) || !check_pair(a0, b1) || !check_pair(b1, a0)) return why;
    }
  // Orbits of pi of length `order` are the classes, one per node; any other offset is in none.
  const uint32_t count = first.count;
  std::vector<uint32_t> orbit_of(count, GpuRotation::kNone);
  std::vector<uint32_t> orbit_first;  // per orbit: its first offset
  for (uint32_t o = 0; o < count; ++o) {
    if (pi[o] == GpuRotation::kNone || orbit_of[o] != GpuRotation::kNone) continue;
    int length = 0;
    uint32_t x = o;
    do {
      x = pi[x];
      ++length;
    } while (x != o && x != GpuRotation::kNone && length <= g.order);
    if (x != o || length != g.order) continue;
    for (int s = 0; s < g.order; ++s, x = pi[x]) orbit_of[x] = static_cast<uint32_t>(orbit_first.size());
    orbit_first.push_back(o);
  }
  if (orbit_first.empty()) return "no link moves in a cycle of " + std::to_string(g.order);
  const uint32_t orbits = static_cast<uint32_t>(orbit_first.size());
  g.image.assign(net.link_count(), GpuRotation::kNone);
  g.class_of_link.assign(net.link_count(), sim::FlowNetwork::kNoClass);
  g.model_of_class.reserve(static_cast<std::size_t>(nodes) * orbits);
  for (int node = 0; node < nodes; ++node) {
    const uint32_t base = world.node_links(node).first;
    for (uint32_t o = 0; o < count; ++o) {
      if (pi[o] != GpuRotation::kNone) g.image[base + o] = base + pi[o];
      if (orbit_of[o] != GpuRotation::kNone)
        g.class_of_link[base + o] = static_cast<uint32_t>(node) * orbits + orbit_of[o];
    }
    for (uint32_t c = 0; c < orbits; ++c) g.model_of_class.push_back({base + orbit_first[c]});
  }
  return {};
}

bool GpuRotation::foldable(std::span<const sim::LinkId> path) const {
  uint32_t classes[16];
  if (path.size() > std::size(classes)) return false;
  std::size_t n = 0;
  for (sim::LinkId l : path) {
    const uint32_t c = l.index < class_of_link.size() ? class_of_link[l.index] : sim::FlowNetwork::kNoClass;
    if (c == sim::FlowNetwork::kNoClass) return false;
    classes[n++] = c;
  }
  std::sort(classes, classes + n);
  return std::adjacent_find(classes, classes + n) == classes + n;
}

GpuRotation gpu_rotation(const World& world, const sim::FlowNetwork& net) {
  const int nodes = world.nodes(), n = world.size();
  if (nodes < 2) return refused("a single node");
  if (world.mixed()) return refused("nodes of several kinds");
  // A rail or fat-tree fabric's links depend on the two nodes (their pods, ECMP's pick per pair):
  // paths between one pair of nodes would not stand for the others'.
  if (world.fabric() && world.fabric()->kind() != topology::FabricKind::NonBlocking)
    return refused("the fabric's links between nodes depend on the nodes");
  const int k = world.placement().ranks_per_node();
  if (k < 2 || k != world.node().gpus) return refused("nodes not filled with ranks");
  GpuRotation g;
  g.k = k;
  g.rank_at.assign(nodes, std::vector<int>(k, -1));
  for (int r = 0; r < n; ++r) {
    const RankInfo& info = world.rank(r);
    if (info.local_gpu < 0 || info.local_gpu >= k || g.rank_at[info.node][info.local_gpu] >= 0)
      return refused("ranks placed unevenly on their nodes");
    g.rank_at[info.node][info.local_gpu] = r;
  }
  // Every node's links alike, offset by offset.
  const World::LinkRange first = world.node_links(0);
  if (first.count == 0) return refused("the World does not lay its links out per node");
  for (int node = 1; node < nodes; ++node) {
    const World::LinkRange range = world.node_links(node);
    if (range.count != first.count) return refused("node " + std::to_string(node) + " is another kind");
    for (uint32_t o = 0; o < range.count; ++o)
      if (!same_link(world, net, {first.first + o}, {range.first + o}))
        return refused(std::string(net.link_name({range.first + o})) + " differs from " +
                       std::string(net.link_name({first.first + o})));
  }
  // The smallest step whose rotation carries every checked path over.
  std::string first_why;
  for (int step = 1; step < k; ++step) {
    if (k % step != 0) continue;
    g.step = step;
    g.order = k / step;
    std::string why = find_orbits(world, net, g);
    if (why.empty()) return g;
    if (first_why.empty()) first_why = why;
  }
  return refused(first_why);
}

}  // namespace models::scale
