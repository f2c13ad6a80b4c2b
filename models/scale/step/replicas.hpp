#pragma once
// Three folds of a step's ranks found on its programs, groups and links (each returns a
// scale::StepFold, applied or with why_not): data-parallel replicas, replica orbits, alike nodes.
// models/scale/README.md states why each is exact (the one theorem) and its guard.
//
// Data-parallel replicas (replicas.cpp; for steps whose programs send and receive: Megatron's
// pipelines). A Megatron step on tp x cp x pp x dp ranks is dp replicas, each a tp x cp x pp block
// with its own tensor-, context- and pipeline-parallel groups and pipeline peers, joined only by
// the data-parallel collectives. Replicas j and k are alike when, rank i of each (ranks in
// increasing order) standing for rank i of the other:
//   - the two run the same program at the same compute speed, on the same GPU and pod of nodes
//     that correspond one to one (no node holds ranks of two replicas);
//   - in every slot they are in the same group (one that spans the replicas), or in groups that
//     are each other's image (the replicas' own); their peers are each other's images;
//   - the corresponding nodes have the same links (capacity, latency, kind), and every pair that
//     the replicas' own groups and peers join has the same transport and the image path, on the
//     replica's own nodes only (so the collective engine builds image plans and image flows).
// The executor then runs one replica per class: its ranks stand for their images (weight m), its
// own collectives and send/recv launch once, their flows on the folded links of their classes,
// and spanning collectives launch over their whole groups with all their flows. Exact while the
// replicas' own traffic never shares a link with other traffic: the guard.
#include <string>
#include <string_view>
#include <vector>

#include "models/collectives/collective.hpp"
#include "models/scale/step_fold.hpp"
#include "models/workload/program.hpp"
#include "models/world/world.hpp"
#include "sim/flow_network.hpp"

namespace models::scale {

// `replica_of_rank`: per rank, its data-parallel replica (0 .. m-1); empty: none.
StepFold replica_fold(const World& world, const sim::FlowNetwork& net, const std::vector<workload::Program>& programs,
                      const std::vector<collectives::Group>& groups, const std::vector<workload::RankSetup>& ranks,
                      const std::vector<int>& replica_of_rank);

// The replicas as blocks of g consecutive ones (replica_blocks.cpp): per rank, its replica / g,
// for the smallest g dividing the replicas' count such that no node holds ranks of two blocks
// (Megatron's rank order tp-cp-dp-pp puts 8 / (tp cp) consecutive replicas on one node when
// tp cp is below a node's GPUs). A block is a data-parallel replica of the fold above: its ranks
// run the replicas' programs side by side, its own groups are its replicas' own, and the
// data-parallel groups span the blocks (with g members in each); moving every rank one block on
// is the same kind of move as one replica on, so the fold, its guard and replica orbits apply
// unchanged. `replica_of_rank` unchanged when g = 1 or no such g below the count exists.
std::vector<int> node_whole_replicas(const World& world, const std::vector<int>& replica_of_rank);

// Replica orbits (replica_orbits.cpp; for Megatron with overlap_grad_reduce /
// overlap_param_gather, whose data-parallel flows meet the replicas' own traffic on the NICs, so
// the replica fold's guard gives up). `f`: replica_fold's, applied, with one class (every replica
// alike). Then the data-parallel collectives, invariant under moving every rank one replica on,
// start only the flows leaving replica 0, each standing for its images on every replica, on the
// folded links with the replica's own traffic (collectives/node_orbits.cpp checks each
// collective's flows at its first launch and stops the run if they lack the invariance). Not
// applicable, and why: replicas of several kinds, or data-parallel traffic through the fabric's
// shared links.
StepFold replica_orbit_fold(StepFold f, const World& world, const sim::FlowNetwork& net,
                            const std::vector<collectives::Group>& groups);

// replica_orbit_fold's reason when the data-parallel traffic crosses the fabric's shared links
// (the one refusal ECMP orbits lift).
inline constexpr std::string_view kFabricRefusal = "the data-parallel traffic crosses the fabric's shared links";

// replica_orbit_fold itself, the fabric's shared links allowed on the data-parallel rings when
// `fabric_hops` (counted: StepFold::ring_edges, climbing_edges).
StepFold replica_orbit_fold_on(StepFold f, const World& world, const sim::FlowNetwork& net,
                               const std::vector<collectives::Group>& groups, bool fabric_hops);

// ECMP orbits (ecmp_orbits.cpp; models/scale/ecmp_orbits.hpp states the mechanism and its bound):
// replica orbits on a pod fabric whose uplinks ECMP picks per node pair, each of the fabric's
// shared links a class of its own, so that each data-parallel orbit's kept flow crosses every
// shared link its members cross. Approximate. Not applicable (and why): what replica_orbit_fold
// refuses for any reason but the shared links.
StepFold ecmp_orbit_fold(StepFold f, const World& world, const sim::FlowNetwork& net,
                         const std::vector<collectives::Group>& groups);

// Alike nodes (alike_nodes.cpp; for steps with offload copies: ZeRO-3 with CPU offload, and for
// node orbits beside rank classes). When every node holds its ranks at the same places, each rank
// running the program, compute speed and groups of the rank at its place on node 0, and every
// node has node 0's links (capacity, latency, raw capacity, offset by offset), moving every rank
// one node on maps the step onto itself. Node 0's ranks are then simulated, each for its images on
// every node (weight = nodes); each node's link at offset o is one class, its folded link standing
// for all (its ranks' offload copies run there), and the collectives, whose groups all span the
// nodes alike, start only the flows leaving node 0, as node orbits (collectives/node_orbits.cpp
// checks each collective's flows at its first launch and stops the run if they lack it). Not
// applicable, and why: one node, send/recv (pipeline peers), nodes unlike (a straggler, a slow
// node's NICs, a partial last node, ranks placed otherwise).
StepFold alike_nodes_fold(const World& world, const sim::FlowNetwork& net,
                          const std::vector<workload::Program>& programs, const std::vector<collectives::Group>& groups,
                          const std::vector<workload::RankSetup>& ranks);

// A compute speed factor as the folds' refusals name it ("1.2 x"), beside the rank it is compared
// with, so the note shows which of the two is the slow one.
std::string speed_text(double scale);

}  // namespace models::scale
