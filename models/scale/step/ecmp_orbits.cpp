// ECMP orbits (replicas.hpp, ecmp_orbit_fold; the mechanism and its bound:
// models/scale/ecmp_orbits.hpp): replica orbits with the fabric's shared links allowed on the
// data-parallel rings, each shared link a class of its own, so that the collective engine lifts
// their hops onto each orbit's kept flow (collectives/node_orbits.cpp).
#include "models/scale/step/replicas.hpp"

namespace models::scale {

StepFold ecmp_orbit_fold(StepFold q, const World& world, const sim::FlowNetwork& net,
                         const std::vector<collectives::Group>& groups) {
  q = replica_orbit_fold_on(std::move(q), world, net, groups, true);
  if (!q.applies()) return q;
  if (q.climbing_edges == 0) {  // exact replica orbits would have applied
    q.why_not = "no data-parallel ring edge climbs to the fabric's shared links";
    return q;
  }
  // Each shared link its own class: its folded link carries the orbits' kept flows that cross it,
  // each standing for the one member hashed onto it.
  for (uint32_t l = 0; l < q.class_of_link.size(); ++l)
    if (q.class_of_link[l] == sim::FlowNetwork::kNoClass && net.link_kind(sim::LinkId{l}) == "fabric") {
      q.class_of_link[l] = static_cast<uint32_t>(q.model_of_class.size());
      q.model_of_class.push_back(sim::LinkId{l});
    }
  return q;
}

}  // namespace models::scale
