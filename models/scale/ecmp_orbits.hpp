#pragma once
// ECMP orbits: replica orbits (models/scale/step/replicas.hpp, replica_orbit_fold) on a pod fabric
// whose uplinks ECMP picks per node pair. The one approximate fold of models/scale/README.md's
// table; `--full` is exact.
//
// The move by one replica (k -> k + 1) maps every replica's own links onto the next replica's,
// but not the fabric's shared links: the ring edge from the last replica of pod 0 to the first of
// pod 1 climbs uplink hash(nodes, rails) mod U, and the other members of its orbit (the same edge
// of every other replica) cross no shared link, or other uplinks. So the members of one orbit
// differ only in the shared links they cross, and the orbit check fails on them.
//
// The fold: each shared link gets a folded link of its own (a class of one link,
// models/scale/step/ecmp_orbits.cpp), the orbit check leaves shared hops and the rate cap out of a
// flow's key (collectives/node_orbits.cpp; everything else must still map), and each kept flow
// then crosses its own hops (on the folded links of the replica, standing for every member's) and
// every shared link that any member of its orbit crosses, each at most once (lift_shared_hops:
// two members of one orbit on one shared link would need a weight per hop: refused, and every
// replica runs), capped by the orbit's smallest cap.
//
// What it computes. A shared link carries in the full network one member of each orbit that
// crosses it, and here those orbits' kept flows: the same count, so its capacity is shared alike.
// A kept flow's constraints are the union of its members', so by max-min it runs at the rate of
// the orbit's most contended member, and so does every member it stands for: exact for that member,
// slower than the full network for the others. A ring collective ends when its slowest flow has
// drained, so the collective's end is the most contended member's in both networks; what differs
// is when the other members' bytes cross their NICs, which other traffic (pipeline sends) shares.
// The bound, argued and measured against --full in docs/scale-design.md ("ECMP orbits"):
// kEcmpOrbitsBound of the step time; the run's note says so.
#include <cstdint>
#include <deque>
#include <span>
#include <string>
#include <vector>

#include "sim/flow_network.hpp"

namespace models::scale {

// The stated bound on |step time - --full's| / --full's where ECMP orbits ran (tested on small pod
// fabrics, tests/scenarios/scale/ecmp_orbits_test.cpp; the largest error measured there is 1.81 %).
inline constexpr double kEcmpOrbitsBound = 0.02;

// Whether the orbit check lifts link `l` out of a flow's key: a fabric link (no node's) that has a
// folded link of its own (only ECMP orbits give shared links one).
inline bool lifted_hop(const sim::FlowNetwork& net, sim::LinkId l) {
  return net.link_kind(l) == "fabric" && net.folded_link_of(l).has_value();
}

// `kept`: the kept flows (block 0's, one per orbit, in their order); per flow of the whole list
// (`orbit_of`, `lifted`, `caps` have one entry per flow): its orbit's kept flow as an index into
// the whole list (scale::orbit_check's orbit_of), its shared hops (left out of its key) and its
// rate cap (left out too: an edge's cap follows the narrowest link of its path, an uplink for some
// members). `kept_index`: per flow of the whole list, its index in `kept` (kept flows only).
// Each kept flow gets its orbit's smallest cap and, if its orbit has shared hops, a new path: its
// own hops on the nodes' links, then the orbit's shared hops, stored in `paths` (a BlockFlow holds
// a span: `paths` must live as long as the flows, the engine's). "" or why not.
std::string lift_shared_hops(std::span<sim::BlockFlow> kept, const std::vector<uint32_t>& orbit_of,
                             const std::vector<uint32_t>& kept_index,
                             const std::vector<std::vector<sim::LinkId>>& lifted, const std::vector<double>& caps,
                             const sim::FlowNetwork& net, std::deque<std::vector<sim::LinkId>>& paths);

// The run's note: what was approximated, how much of it (`climbing` of the data-parallel rings'
// `edges` neighbour pairs climb to shared links), and the bound.
std::string ecmp_orbits_note(int replicas, int simulated_ranks, int world_size, int climbing, int edges);
// The caveat of a run that took ECMP orbits (RunResult::caveats: plan marks its row with it).
std::string ecmp_orbits_caveat();

}  // namespace models::scale
