// Replica orbits (replicas.hpp, replica_orbit_fold): every data-parallel replica alike, and the
// data-parallel collectives' flows too simulated for one replica, as orbits of the replica
// translation k -> k + 1 (mod m): the node orbits' fold (collectives/node_orbits.cpp) with blocks
// of nodes (a replica's) for nodes, one folded link per (place among a replica's nodes, link
// offset). Why that is exact: models/scale/README.md ("Why a fold is exact"). Not applicable:
// replicas of several kinds (a straggler), or data-parallel traffic through the fabric's shared
// links (pods: ECMP picks a pod uplink per flow, so the move is no symmetry of the network: ECMP
// orbits, ecmp_orbits.cpp, lift that one refusal).
#include <string>

#include "models/scale/step/replicas.hpp"

namespace models::scale {

using workload::kMaxSlots;
using workload::Op;
using workload::OpKind;
using workload::Program;
using workload::RankSetup;

StepFold replica_orbit_fold(StepFold q, const World& world, const sim::FlowNetwork& net,
                            const std::vector<collectives::Group>& groups) {
  return replica_orbit_fold_on(std::move(q), world, net, groups, false);
}

StepFold replica_orbit_fold_on(StepFold q, const World& world, const sim::FlowNetwork& net,
                               const std::vector<collectives::Group>& groups, bool fabric_hops) {
  auto refuse = [&](std::string why) {
    StepFold out;
    out.replicas = q.replicas;
    out.why_not = std::move(why);
    return out;
  };
  if (!q.applies()) return refuse(q.why_not);
  if (q.simulated_replicas != 1)
    return refuse("replicas of " + std::to_string(q.simulated_replicas) + " kinds (" + q.apart + ")");
  const int nodes = world.nodes();
  // Per node its replica (block) and its place among the simulated replica's nodes: rank r of the
  // simulated replica and its image in replica k sit at the same place of their replicas' nodes.
  q.block_of_node.assign(nodes, -1);
  q.place_of_node.assign(nodes, -1);
  int places = 0;
  for (std::size_t r = 0; r < q.images.size(); ++r) {
    if (q.images[r].empty()) continue;
    const int home = world.rank(static_cast<int>(r)).node;
    if (q.place_of_node[home] < 0) q.place_of_node[home] = places++;
    const int place = q.place_of_node[home];
    for (std::size_t k = 0; k < q.images[r].size(); ++k) {
      const int node = world.rank(q.images[r][k]).node;
      if ((q.block_of_node[node] >= 0 && q.block_of_node[node] != static_cast<int>(k)) ||
          (q.place_of_node[node] >= 0 && q.place_of_node[node] != place))
        return refuse("node " + std::to_string(node) + " stands at two places of the replicas");
      q.block_of_node[node] = static_cast<int>(k);
      q.place_of_node[node] = place;
    }
  }
  std::vector<uint8_t> of_node(net.link_count(), 0);
  for (int node = 0; node < nodes; ++node) {
    const World::LinkRange range = world.node_links(node);
    if (range.count == 0) return refuse("the World does not lay its links out per node");
    for (uint32_t o = 0; o < range.count; ++o) of_node.at(range.first + o) = 1;
  }
  // The groups spanning the replicas (launched over all their ranks): their flows become orbits
  // on the folded links. A quick look at their neighbours' paths refuses the fabric's shared links
  // before the run (the engine checks every flow at each collective's first launch).
  q.spanning_group.assign(groups.size(), 0);
  std::vector<sim::LinkId> path;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    if (q.folded_group[g] || q.launches[g] != 1) continue;  // a replica's own, or its image
    q.spanning_group[g] = 1;
    q.folded_group[g] = 1;
    const auto& mem = groups[g].ranks;
    for (std::size_t i = 0; i < mem.size() && mem.size() > 1; ++i) {
      path.clear();
      world.path(mem[i], mem[(i + 1) % mem.size()], path);
      bool climbs = false;
      for (sim::LinkId l : path) {
        if (l.index < of_node.size() && of_node[l.index]) continue;
        if (!fabric_hops || net.link_kind(l) != "fabric")
          return refuse(std::string(kFabricRefusal) + " (" + std::string(net.link_name(l)) + ")");
        climbs = true;
      }
      ++q.ring_edges;
      q.climbing_edges += climbs;
    }
  }
  q.node_orbits = true;
  return q;
}

}  // namespace models::scale
