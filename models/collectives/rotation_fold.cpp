// GPU rotation fold (CollectiveEngine::set_rotation_fold, collective.hpp): a tree all-reduce
// (NVLSTree, Tree) as the orbits of moving every node's GPUs `step` on, one flow per orbit.
//
// NCCL lays out one tree set per NIC group, set r the double binary tree over the nodes' GPU
// r x step (comm_plan.cpp rotation()); NVLSTree adds each rank's two NVLink port flows to and from
// the switch, Tree each set's chain inside every node. Where the rotation sigma (local GPU g ->
// g + step on every node) maps the World onto itself (models/scale/gpu_rotation.hpp: links alike,
// paths and transports carried over, no fabric link), set r + 1's edges are sigma of set r's and
// GPU j + step's edges sigma of GPU j's, with the same bytes, caps and latency: the collective's
// flows are invariant under sigma, which acts freely on the links they use (orbits of
// order = k / step): the theorem of models/scale/README.md gives the kept flows (one per orbit) on
// one folded link per link orbit the full network's rates. Each real link is reported with its
// orbit's folded link (the same bytes and busy time as in the full network: result_fill.cpp).
//
// NVLSTree: the plan part is laid out folded (comm_plan.cpp complete_plan with the rotation): tree
// set 0 and each node's first `step` GPUs' port pairs only, set 0's rings_sharing counted over every
// set's images; its flows are exactly those kept. Where the folded links cannot be set (the network is
// busy at the first such launch) the part is laid out again unfolded. Tree: its merged edges are
// laid out whole and checked (rotation_kept below). The folded links are set once per run, at the first
// folded launch; the network's guard stops the run if other traffic meets a folded link's class on the
// real links (run.cpp then runs without the fold). Tests: tests/scenarios/rotation_fold_test.cpp
// (folded runs equal to --full, the guard), tests/models/scale/gpu_rotation_test.cpp.
#include <bit>
#include <unordered_map>

#include "models/collectives/engine.hpp"

namespace models::collectives {

const scale::GpuRotation* Engine::fold_rotation() {
  if (!rotation_on_ || net_.audit()) return nullptr;
  if (!rotation_) rotation_ = std::make_unique<scale::GpuRotation>(scale::gpu_rotation(world_, net_));
  // The folded links are set at the first folded launch, on an idle network (this engine is the
  // folded links' only user when the fold is on).
  if (!rotation_->applies() || !(net_.folded() || net_.idle())) return nullptr;
  return rotation_.get();
}

void Engine::start_folded() {
  if (!net_.folded()) scale::fold_links(net_, *rotation_);
  folded_launch_ = true;
  ++rotation_folds_;
}

namespace {
// b is a's image under the rotation: ends moved, path link by link, everything else equal.
bool rotated_edge(const World& world, const scale::GpuRotation& rot, const CommPlan::MergedEdge& a,
                  const CommPlan::MergedEdge& b) {
  const auto same = [](double x, double y) { return std::bit_cast<uint64_t>(x) == std::bit_cast<uint64_t>(y); };
  const Edge &x = a.edge, &y = b.edge;
  if (y.from != rot.rotate(world, x.from) || y.to != rot.rotate(world, x.to) || x.path.size() != y.path.size() ||
      x.link_class != y.link_class || x.p2p_read != y.p2p_read || !same(x.raw_bandwidth, y.raw_bandwidth) ||
      !same(x.simple_raw_factor, y.simple_raw_factor) || x.rings_sharing != y.rings_sharing ||
      !same(x.fabric_latency_s, y.fabric_latency_s) || !same(a.bytes_frac, b.bytes_frac) ||
      !same(a.share_frac, b.share_frac))
    return false;
  for (std::size_t h = 0; h < x.path.size(); ++h)
    if (rot.rotate_link(x.path[h].index) != y.path[h].index) return false;
  return true;
}
}  // namespace

// A merged edge list laid out whole (the tree all-reduce's tree_merged: its sets' chains share
// intra-node pairs, so no set is a block of its own) folds where the rotation maps it onto itself
// edge by edge: checked once per list by looking up each edge's image by its ends (merged edges
// have distinct ends). The orbits are free (each image moves the sender `step` GPUs on), so the
// edges leaving local GPUs 0 .. step - 1 are one per orbit: those are kept, on the folded links, if
// their links are in orbits of `order` and none twice.
const std::vector<uint32_t>* Engine::rotation_kept(const std::vector<CommPlan::MergedEdge>& edges) {
  const scale::GpuRotation* rot = fold_rotation();
  if (!rot || edges.empty()) return nullptr;
  auto [it, fresh] = kept_edges_.try_emplace(&edges);
  if (fresh) {
    it->second.reset();
    const auto ends = [](int from, int to) {
      return static_cast<uint64_t>(static_cast<uint32_t>(from)) << 32 | static_cast<uint32_t>(to);
    };
    std::unordered_map<uint64_t, uint32_t> at;
    at.reserve(edges.size());
    for (uint32_t i = 0; i < edges.size(); ++i)
      if (!at.emplace(ends(edges[i].edge.from, edges[i].edge.to), i).second) return nullptr;
    std::vector<uint32_t> kept;
    for (uint32_t i = 0; i < edges.size(); ++i) {
      const Edge& e = edges[i].edge;
      const auto j = at.find(ends(rot->rotate(world_, e.from), rot->rotate(world_, e.to)));
      if (j == at.end() || !rotated_edge(world_, *rot, edges[i], edges[j->second])) return nullptr;
      if (world_.rank(e.from).local_gpu >= rot->step) continue;
      if (!rot->foldable(e.path)) return nullptr;
      kept.push_back(i);
    }
    if (kept.size() * static_cast<std::size_t>(rot->order) != edges.size()) return nullptr;
    it->second = std::move(kept);
  }
  return it->second ? &*it->second : nullptr;
}

}  // namespace models::collectives
