#pragma once
// Data-parallel replicas simulated once (issue 14, docs/scale-design.md section 2, for steps whose
// programs send and receive: Megatron's pipelines).
//
// A Megatron step on tp x cp x pp x dp ranks is dp replicas, each a tp x cp x pp block with its
// own tensor-, context- and pipeline-parallel groups and pipeline peers, joined only by the
// data-parallel collectives. Replicas j and k are alike when, rank i of each (ranks in increasing
// order) standing for rank i of the other:
//   - the two run the same program at the same compute speed, on the same GPU and pod of nodes
//     that correspond one to one (no node holds ranks of two replicas);
//   - in every slot they are in the same group (one that spans the replicas), or in groups that
//     are each other's image (the replicas' own); their peers are each other's images;
//   - the corresponding nodes have the same links (capacity, latency, kind), and every pair that
//     the replicas' own groups and peers join has the same transport and the image path, on the
//     replica's own nodes only (so the collective engine builds image plans and image flows).
// Every replica of a class of alike replicas then does what the class's first does at the same
// instants (induction over events: same programs and rates, and the only operations they share
// are the spanning groups' collectives, which end at one instant for all members), provided the
// replicas' own traffic never shares a link with other traffic. Then the full network is the
// disjoint union of m copies of each replica's own traffic and the spanning collectives' traffic.
// So the executor runs one replica per class: its ranks stand for their images (weight m), its
// own collectives and send/recv launch once, their flows on shadow links of their classes
// (sim::FlowNetwork::set_mirrors: rated exactly as any replica's own flows are), and spanning
// collectives launch over their whole groups with all their flows. The network's guard checks the
// proviso at every instant and stops the run if it fails; models::run_scenario then simulates
// every replica, saying so in the run's notes.
#include <string>
#include <vector>

#include "models/collectives/collective.hpp"
#include "models/workload/program.hpp"
#include "models/world/world.hpp"
#include "sim/flow_network.hpp"

namespace models::workload {

struct ReplicaQuotient {
  int replicas = 0;            // in the step
  int simulated_replicas = 0;  // one per class of alike replicas
  int simulated_ranks = 0;
  std::vector<int> rep;                  // per rank: the rank simulated for it
  std::vector<int> weight;               // per rank: how many ranks it stands for (0: not simulated)
  std::vector<uint8_t> mirrored_group;   // per group: a simulated replica's own, standing for its images
  std::vector<int> launches;             // per group: instances one launch stands for (0: an image)
  std::vector<std::vector<int>> images;  // per rank: the ranks it stands for, itself first (simulated ranks)
  std::vector<uint32_t> class_of_link;   // for sim::FlowNetwork::set_mirrors
  std::vector<sim::LinkId> model_of_class;
  std::string apart;    // the first replica simulated apart from the first class, and why ("" if none)
  std::string why_not;  // non-empty: not applicable (every replica simulated), and why
  // Every node a replica (node_quotient): node 0 is simulated for all; every group spans the
  // nodes, and its collectives launch as node orbits on the shadows (CollectiveEngine::set_node_orbits).
  // Also set when node_quotient refused (why_not says why).
  bool node_orbits = false;
  // Replica orbits (replica_orbits): per node its replica and its place among a replica's nodes
  // (-1: none), and per group whether it spans the replicas (its collectives launch as orbits of
  // the replica translation, on the shadows). Empty otherwise.
  std::vector<int> block_of_node, place_of_node;
  std::vector<uint8_t> spanning_group;
  bool applies() const { return why_not.empty() && !rep.empty(); }
};

// `replica_of_rank`: per rank, its data-parallel replica (0 .. m-1); empty: none.
ReplicaQuotient replica_quotient(const World& world, const sim::FlowNetwork& net, const std::vector<Program>& programs,
                                 const std::vector<collectives::Group>& groups, const std::vector<RankSetup>& ranks,
                                 const std::vector<int>& replica_of_rank);

// Replicas simulated once, with their data-parallel collectives too (replica_orbits.cpp; issue
// 14, for Megatron with overlap_grad_reduce / overlap_param_gather, whose data-parallel flows meet
// the replicas' own traffic on the NICs, so the replica quotient's guard gives up). `q`:
// replica_quotient's, applied, with one class (every replica alike). Then the data-parallel
// collectives, invariant under moving every rank one replica on, start only the flows leaving
// replica 0, each standing for its images on every replica, on the shadow links with the
// replica's own traffic (collectives/node_orbits.cpp checks each collective's flows at its first
// launch and stops the run if they lack the invariance). Not applicable, and why: replicas of
// several kinds, or data-parallel traffic through the fabric's shared links.
ReplicaQuotient replica_orbits(ReplicaQuotient q, const World& world, const sim::FlowNetwork& net,
                               const std::vector<collectives::Group>& groups);

// Nodes simulated once (node_quotient.cpp; issue 14, for steps with offload copies: ZeRO-3 with
// CPU offload). When every node holds its ranks at the same places, each rank running the
// program, compute speed and groups of the rank at its place on node 0, and every node has node
// 0's links (capacity, latency, raw capacity, offset by offset), moving every rank one node on
// maps the step onto itself. Node 0's ranks are then simulated, each for its images on every node
// (weight = nodes); each node's link at offset o is one class, its shadow standing for all (its
// ranks' offload copies run there), and the collectives, whose groups all span the nodes alike,
// start only the flows leaving node 0, as node orbits (collectives/node_orbits.cpp checks each
// collective's flows for the invariance at its first launch and stops the run if they lack it).
// Not applicable, and why: one node, send/recv (pipeline peers), nodes unlike (a straggler, a
// slow node's NICs, a partial last node, ranks placed otherwise).
ReplicaQuotient node_quotient(const World& world, const sim::FlowNetwork& net, const std::vector<Program>& programs,
                              const std::vector<collectives::Group>& groups, const std::vector<RankSetup>& ranks);

}  // namespace models::workload
