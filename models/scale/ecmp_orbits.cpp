// ECMP orbits (ecmp_orbits.hpp): the kept flows given their orbits' shared hops, and the note.
#include "models/scale/ecmp_orbits.hpp"

#include <algorithm>
#include <cmath>

namespace models::scale {

std::string lift_shared_hops(std::span<sim::BlockFlow> kept, const std::vector<uint32_t>& orbit_of,
                             const std::vector<uint32_t>& kept_index,
                             const std::vector<std::vector<sim::LinkId>>& lifted, const std::vector<double>& caps,
                             const sim::FlowNetwork& net, std::deque<std::vector<sim::LinkId>>& paths) {
  // Per kept flow, the shared hops of its orbit's members (its own included), and the orbit's cap.
  std::vector<std::vector<sim::LinkId>> hops(kept.size());
  for (std::size_t i = 0; i < orbit_of.size(); ++i) {
    const uint32_t k = kept_index[orbit_of[i]];
    kept[k].rate_cap = std::min(kept[k].rate_cap, caps[i]);
    hops[k].insert(hops[k].end(), lifted[i].begin(), lifted[i].end());
  }
  const auto by_index = [](sim::LinkId a, sim::LinkId b) { return a.index < b.index; };
  const auto same = [](sim::LinkId a, sim::LinkId b) { return a.index == b.index; };
  for (std::size_t k = 0; k < kept.size(); ++k) {
    auto& extra = hops[k];
    if (extra.empty()) continue;
    std::sort(extra.begin(), extra.end(), by_index);
    if (const auto twice = std::adjacent_find(extra.begin(), extra.end(), same); twice != extra.end())
      return "two flows of one orbit cross the shared link " + std::string(net.link_name(*twice));
    // Its own hops on the nodes' links (the folded links of the replica), then its orbit's shared hops.
    std::vector<sim::LinkId>& path = paths.emplace_back();
    for (sim::LinkId l : kept[k].path)
      if (!lifted_hop(net, l)) path.push_back(l);
    path.insert(path.end(), extra.begin(), extra.end());
    kept[k].path = path;
  }
  return {};
}

std::string ecmp_orbits_note(int replicas, int simulated_ranks, int world_size, int climbing, int edges) {
  const int bound = static_cast<int>(std::lround(kEcmpOrbitsBound * 100));
  return "symmetry: ECMP orbits (approximate): 1 of " + std::to_string(replicas) + " data-parallel replicas simulated (" +
         std::to_string(simulated_ranks) + " of " + std::to_string(world_size) +
         " ranks), each for every replica, and the data-parallel collectives' flows leaving it, each for its images "
         "on every replica; " +
         std::to_string(climbing) + " of " + std::to_string(edges) +
         " data-parallel ring edges climb to pod uplinks that ECMP picked per node pair, and each edge's orbit "
         "crossed every uplink its members cross, at its most contended member's rate (step time within " +
         std::to_string(bound) + " % of --full: docs/scale-design.md, ECMP orbits; --full: exact)";
}

std::string ecmp_orbits_caveat() {
  return "step simulated as ECMP orbits (approximate: within " + std::to_string(std::lround(kEcmpOrbitsBound * 100)) +
         " % of every flow simulated; run --full for the exact step)";
}

}  // namespace models::scale
