#pragma once
// Rank placement: nodes x pods per node x GPUs per pod, rank-major within a pod, then pods, then
// nodes. A pure function of the scenario's [cluster] and [placement]; NCCL's rules about which
// ranks see each other (models/nccl/transport.hpp) are applied on top of it.
#include "models/spec.hpp"

namespace models {

// Where one rank runs. Shared by the World contract and everything that walks ranks.
struct RankInfo {
  int rank = 0;
  int node = 0;       // host index
  int pod = 0;        // pod index within the cluster
  int local_gpu = 0;  // physical GPU index on the node
  int pod_rank = 0;   // index within its pod (its CUDA device there)
};

}  // namespace models

namespace models::topology {

struct Placement {
  int nodes = 1, pods_per_node = 1, gpus_per_pod = 1;
  int size() const { return nodes * pods_per_node * gpus_per_pod; }
  int ranks_per_node() const { return pods_per_node * gpus_per_pod; }  // every node is placed alike
  int ranks_per_pod() const { return gpus_per_pod; }                   // one launcher (torchrun) per pod
  RankInfo rank(int r) const;
};
// Checks the layout against the node: SpecError("placement.gpus_per_pod" / "placement.pods_per_node"
// / "cluster.nodes").
Placement make_placement(const ClusterSpec& cluster, const PlacementSpec& placement, int gpus_per_node);

}  // namespace models::topology
