// Placement of ranks on nodes, pods and GPUs, and the checks of the layout against the node.
#include "models/topology/placement.hpp"

#include <cstdint>
#include <string>

#include "models/error.hpp"

namespace models::topology {

RankInfo Placement::rank(int r) const {
  const int per_node = pods_per_node * gpus_per_pod;
  RankInfo info;
  info.rank = r;
  info.node = r / per_node;
  int within = r % per_node;
  info.pod = info.node * pods_per_node + within / gpus_per_pod;
  info.pod_rank = within % gpus_per_pod;
  info.local_gpu = within;
  return info;
}

Placement make_placement(const ClusterSpec& cluster, const PlacementSpec& placement, int gpus_per_node) {
  if (cluster.nodes < 1)
    throw SpecError("cluster.nodes", "nodes = " + std::to_string(cluster.nodes) + " (expected at least 1)");
  if (placement.pods_per_node < 1)
    throw SpecError("placement.pods_per_node",
                    "pods_per_node = " + std::to_string(placement.pods_per_node) + " (expected at least 1)");
  if (placement.gpus_per_pod < 0)
    throw SpecError("placement.gpus_per_pod",
                    "gpus_per_pod is negative (expected at least 1, or 0: the node's GPUs divided among its pods)");
  Placement p;
  p.nodes = cluster.nodes;
  p.pods_per_node = placement.pods_per_node;
  p.gpus_per_pod = placement.gpus_per_pod;
  const std::string node_gpus = std::to_string(gpus_per_node);
  if (p.gpus_per_pod == 0) {
    if (gpus_per_node % p.pods_per_node != 0)
      throw SpecError("placement.pods_per_node", std::to_string(p.pods_per_node) + " pods do not tile the node's " +
                                                     node_gpus +
                                                     " GPUs (expected pods_per_node dividing the GPU count)");
    p.gpus_per_pod = gpus_per_node / p.pods_per_node;
  }
  if (p.gpus_per_pod > gpus_per_node)
    throw SpecError("placement.gpus_per_pod", "gpus_per_pod = " + std::to_string(p.gpus_per_pod) +
                                                  " but the node has " + node_gpus + " GPUs (expected at most " +
                                                  node_gpus + ")");
  if (p.pods_per_node * p.gpus_per_pod > gpus_per_node)
    throw SpecError("placement.pods_per_node",
                    std::to_string(p.pods_per_node) + " pods x " + std::to_string(p.gpus_per_pod) +
                        " GPUs = " + std::to_string(p.pods_per_node * p.gpus_per_pod) + " do not fit the node's " +
                        node_gpus + " GPUs (expected pods_per_node x gpus_per_pod <= " + node_gpus + ")");
  if (static_cast<int64_t>(p.nodes) * p.pods_per_node * p.gpus_per_pod > (int64_t{1} << 24))
    throw SpecError("cluster.nodes",
                    "more than 16M ranks (expected nodes x pods_per_node x gpus_per_pod <= 16,777,216)");
  return p;
}

}  // namespace models::topology
