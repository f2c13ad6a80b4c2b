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
// real links (run.cpp then runs without the fold). Tests: tests/scenarios/scale/rotation_fold_test.cpp
// (folded runs equal to --full, the guard), tests/models/scale/gpu_rotation_test.cpp.
#include <unordered_set>

#include "models/collectives/engine.hpp"
#include "models/scale/orbit_check.hpp"

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

// A merged edge list laid out whole (the tree all-reduce's tree_merged: its sets' chains share
// intra-node pairs, so no set is a block of its own) folds where the rotation maps it onto itself
// edge by edge: the orbit check (scale::orbit_check) with the blocks of `step` GPUs, each edge
// described by its ends, parameters and path moved back to block 0, once per list. The orbits are
// free (each image moves the sender `step` GPUs on), so the edges leaving local GPUs
// 0 .. step - 1 are one per orbit: those are kept, on the folded links, if their links are in
// orbits of `order` and none twice.
const std::vector<uint32_t>* Engine::rotation_kept(const std::vector<CommPlan::MergedEdge>& edges) {
  const scale::GpuRotation* rot = fold_rotation();
  if (!rot || edges.empty()) return nullptr;
  auto [it, fresh] = kept_edges_.try_emplace(&edges);
  if (fresh) {
    it->second.reset();
    const auto ends = [](int from, int to) {
      return static_cast<uint64_t>(static_cast<uint32_t>(from)) << 32 | static_cast<uint32_t>(to);
    };
    std::unordered_set<uint64_t> seen;  // merged edges have distinct ends
    seen.reserve(edges.size());
    for (const auto& m : edges)
      if (!seen.insert(ends(m.edge.from, m.edge.to)).second) return nullptr;
    std::vector<int> block(edges.size());
    std::vector<uint64_t> words;
    std::vector<std::size_t> begin(edges.size() + 1, 0);
    for (std::size_t i = 0; i < edges.size(); ++i) {
      const Edge& e = edges[i].edge;
      block[i] = world_.rank(e.from).local_gpu / rot->step;
      const int back = (rot->order - block[i]) % rot->order;  // rotations back to block 0
      words.insert(words.end(), {ends(rot->rotate(world_, e.from, back), rot->rotate(world_, e.to, back)),
                                 static_cast<uint64_t>(e.path.size()), static_cast<uint64_t>(e.link_class),
                                 static_cast<uint64_t>(e.p2p_read), scale::bits(e.raw_bandwidth),
                                 scale::bits(e.simple_raw_factor), static_cast<uint64_t>(e.rings_sharing),
                                 scale::bits(e.fabric_latency_s), scale::bits(edges[i].bytes_frac),
                                 scale::bits(edges[i].share_frac), scale::bits(edges[i].down_frac)});
      for (sim::LinkId l : e.path) {
        uint32_t x = l.index;
        for (int r = 0; r < back && x != scale::GpuRotation::kNone; ++r) x = rot->rotate_link(x);
        if (x == scale::GpuRotation::kNone) return nullptr;
        words.push_back(x);
      }
      begin[i + 1] = words.size();
    }
    if (scale::orbit_check(block, rot->order, words, begin) != scale::kOrbitsHold) return nullptr;
    std::vector<uint32_t> kept;
    for (uint32_t i = 0; i < edges.size(); ++i) {
      if (block[i] != 0) continue;
      if (!rot->foldable(edges[i].edge.path)) return nullptr;
      kept.push_back(i);
    }
    if (kept.size() * static_cast<std::size_t>(rot->order) != edges.size()) return nullptr;
    it->second = std::move(kept);
  }
  return it->second ? &*it->second : nullptr;
}

}  // namespace models::collectives
