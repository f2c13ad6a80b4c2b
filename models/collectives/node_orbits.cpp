// Node orbits (CollectiveEngine::set_node_orbits, collective.hpp): a collective's flows as the
// orbits of the node translation k -> k + 1 (mod N), one flow per orbit, the one leaving node 0.
//
// The orbit check of models/scale/README.md ("The guard"): the flows leaving node k are those
// leaving node 0 with every hop (node 0 + d, link offset o) moved to (node k + d, o), with the same
// bytes, cap and latency, and no kept flow crosses one offset twice (at two nodes); then the kept
// flows on the folded links (one per offset) are the full network's (the theorem, same README).
// Replica orbits (set_orbit_blocks, models/scale/step/replica_orbits.cpp) are the same with blocks of
// nodes (a data-parallel replica's) for nodes: a hop is (blocks on from its sender's, its node's
// place in its block, offset), and its folded link (place, offset).
// ECMP orbits (models/scale/ecmp_orbits.hpp) are replica orbits whose flows may cross the fabric's
// shared links where those have folded links of their own: such hops and the rate cap are left out
// of the key, and lifted onto the orbit's kept flow (scale::lift_shared_hops).
// Checked on the whole flow list (scale::orbit_check) at the first launch of each block shape, then
// remembered with the kept flows.
#include <algorithm>

#include "models/collectives/engine.hpp"
#include "models/scale/ecmp_orbits.hpp"
#include "models/scale/orbit_check.hpp"
#include "sim/check.hpp"

namespace models::collectives {

bool Engine::keep_orbits(uint32_t pending, const CollectiveRecord& rec) {
  const int nodes = world_.nodes();
  // Blocks: each node its own (node orbits), or set_orbit_blocks' (replica orbits: a hop's place
  // in its block and link offset name its folded link, the blocks it is on from its sender's its move).
  const bool by_node = block_of_node_.empty();
  int blocks = nodes;
  if (!by_node) {
    blocks = 0;
    for (int b : block_of_node_) blocks = std::max(blocks, b + 1);
  }
  const auto block = [&](int node) { return by_node ? node : block_of_node_[node]; };
  const auto place = [&](int node) { return by_node ? 0 : place_of_node_[node]; };
  auto fail = [&](std::string why) {
    orbit_failure_ = std::string(nccl::coll_op_name(rec.op)) + " (" + nccl::algo_name(rec.algo) + ", " +
                     std::to_string(rec.bytes) + " B): " + why;
    sim_.stop();
    return false;
  };
  if (node_of_link_.empty()) {
    node_of_link_.assign(net_.link_count(), -1);
    for (int node = 0; node < nodes; ++node) {
      const World::LinkRange range = world_.node_links(node);
      for (uint32_t o = 0; o < range.count; ++o) node_of_link_.at(range.first + o) = node;
    }
  }
  // Per flow its key: bytes, cap, latency, then per hop (nodes on from its sender's, offset).
  const std::size_t count = block_.size();
  std::vector<uint64_t> keys;
  std::vector<std::size_t> begin(count + 1, 0);
  std::vector<int> src(count);
  std::vector<uint64_t> offsets;
  // ECMP orbits: per flow its hops on shared links that have folded links of their own, and its cap.
  const auto shared = [&](sim::LinkId l) {
    return (l.index >= node_of_link_.size() || node_of_link_[l.index] < 0) && scale::lifted_hop(net_, l);
  };
  std::vector<std::vector<sim::LinkId>> lifted;
  for (std::size_t i = 0; i < count && lifted.empty() && !by_node; ++i)
    if (std::any_of(block_[i].path.begin(), block_[i].path.end(), shared)) lifted.resize(count);
  const bool lift = !lifted.empty();
  std::vector<double> caps;
  for (std::size_t i = 0; i < count && lift; ++i) caps.push_back(block_[i].rate_cap);
  for (std::size_t i = 0; i < count; ++i) {
    const sim::BlockFlow& f = block_[i];
    src[i] = block(world_.rank(block_info_[i].from).node);
    if (src[i] < 0) return fail("a flow leaves a node of no block");
    keys.push_back(static_cast<uint64_t>(f.bytes));
    keys.push_back(lift ? 0 : scale::bits(f.rate_cap));
    keys.push_back(static_cast<uint64_t>(f.latency.ps()));
    offsets.clear();
    for (sim::LinkId l : f.path) {
      const int node = l.index < node_of_link_.size() ? node_of_link_[l.index] : -1;
      if (lift && shared(l)) {  // the orbit's, not the key's
        lifted[i].push_back(l);
        continue;
      }
      if (node < 0) return fail("a flow crosses " + std::string(net_.link_name(l)) + ", a link of no node");
      if (block(node) < 0) return fail("a flow crosses " + std::string(net_.link_name(l)) + ", a node of no block");
      // Its folded link: (place, offset); its move: blocks on from the sender's.
      const uint64_t folded = static_cast<uint64_t>(place(node)) << 24 | (l.index - world_.node_links(node).first);
      SIM_CHECK(l.index - world_.node_links(node).first < (1u << 24) && place(node) < (1 << 20),
                "a node of too many links, or a block of too many nodes");
      const uint64_t d = static_cast<uint64_t>((block(node) - src[i] + blocks) % blocks);
      keys.push_back(d << 44 | folded);
      offsets.push_back(folded);
    }
    std::sort(offsets.begin(), offsets.end());
    if (std::adjacent_find(offsets.begin(), offsets.end()) != offsets.end())
      return fail("a flow crosses the same link of two nodes");
    begin[i + 1] = keys.size();
  }
  // Invariant: every node (block) sends the same multiset of keys (scale::orbit_check).
  std::vector<uint32_t> orbit_of;
  if (const int x = scale::orbit_check(src, blocks, keys, begin, lift ? &orbit_of : nullptr);
      x == scale::kUnevenBlocks) {
    return fail("its flows do not leave every node alike");
  } else if (x != scale::kOrbitsHold) {
    return fail(by_node ? "node " + std::to_string(x) + "'s flows are not node 0's moved " + std::to_string(x) +
                              " nodes on"
                        : "replica " + std::to_string(x) + "'s flows are not replica 0's moved " + std::to_string(x) +
                              " replicas on");
  }
  // Keep node 0's flows, in their order.
  std::vector<uint32_t> kept_index(lift ? count : 0, UINT32_MAX);
  std::size_t kept = 0;
  for (std::size_t i = 0; i < count; ++i)
    if (src[i] == 0) {
      if (lift) kept_index[i] = static_cast<uint32_t>(kept);
      block_[kept] = block_[i];
      block_info_[kept] = block_info_[i];
      ++kept;
    }
  if (lift)
    if (std::string why = scale::lift_shared_hops(std::span(block_.data(), kept), orbit_of, kept_index, lifted, caps,
                                                  net_, lifted_paths_);
        !why.empty())
      return fail(why);
  const int dropped = static_cast<int>(count - kept);
  block_.resize(kept);
  block_info_.resize(kept);
  pending_[pending].flows_left -= dropped;
  pending_[pending].flows -= dropped;
  return true;
}

}  // namespace models::collectives
