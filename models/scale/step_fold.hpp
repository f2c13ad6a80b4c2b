#pragma once
// The folds of a training step's ranks, as the step executor applies them
// (workload::StepExecutor::simulate_classes, simulate_fold, simulate_node_orbits). Which fold a
// step gets is found on its programs, groups and links by models/scale/step/ (rank_classes,
// replicas, alike_nodes, replica_orbits) and chosen by models/scale/step/mode.hpp.
#include <cstdint>
#include <string>
#include <vector>

#include "models/scale/fold.hpp"

namespace models::scale {

// Rank classes: one simulated rank per class of ranks with the same program, compute speed and
// communicators; no link folded (every collective launches all its flows on the real links).
struct RankClasses : Fold {
  int simulated = 0;  // ranks simulated (every rank: nothing saved, not applied)
};

// A fold of whole data-parallel replicas or nodes: data-parallel replicas simulated once per
// class (models/scale/step/replicas.hpp), every node alike simulated once (alike_nodes), or the
// replicas with their data-parallel collectives' flows too (replica_orbits). The simulated ranks'
// own traffic runs on the folded links.
struct StepFold : Fold {
  int replicas = 0;            // in the step (replicas or nodes)
  int replica_block = 1;       // data-parallel replicas per folded one (blocks that share nodes: replicas.hpp)
  int simulated_replicas = 0;  // one per class of alike replicas
  int simulated_ranks = 0;
  std::vector<uint8_t> folded_group;     // per group: a simulated replica's own, standing for its images
  std::vector<int> launches;             // per group: instances one launch stands for (0: an image)
  std::vector<std::vector<int>> images;  // per rank: the ranks it stands for, itself first (simulated ranks)
  std::string apart;                     // the first replica simulated apart from the first class, and why ("" if none)
  // Every node a replica (alike_nodes): node 0 is simulated for all; every group spans the
  // nodes, and its collectives launch as node orbits on the folded links
  // (CollectiveEngine::set_node_orbits). Also set when alike_nodes refused (why_not says why).
  bool node_orbits = false;
  // Replica orbits (replica_orbits): per node its replica and its place among a replica's nodes
  // (-1: none), and per group whether it spans the replicas (its collectives launch as orbits of
  // the replica translation, on the folded links). Empty otherwise.
  std::vector<int> block_of_node, place_of_node;
  std::vector<uint8_t> spanning_group;
  // ECMP orbits (models/scale/ecmp_orbits.hpp): the spanning groups' ring edges (neighbour pairs),
  // and those of them whose path climbs to the fabric's shared links.
  int ring_edges = 0, climbing_edges = 0;
  bool applies() const { return why_not.empty() && !rep.empty(); }
};

}  // namespace models::scale
