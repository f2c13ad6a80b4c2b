#pragma once
// A communicator as the collective engine replays it: ring order, tree edges, the link paths of
// every edge, and the view NCCL's tuner has of it. Built once per group and cached.
#include <vector>

#include "models/nccl/link_params.hpp"
#include "models/nccl/tuning.hpp"
#include "models/world.hpp"
#include "sim/flow_network.hpp"

namespace models::nccl {

struct Edge {
  int from = 0, to = 0;             // World ranks
  std::vector<sim::LinkId> path;    // links a flow from -> to crosses
  LinkClass link_class = LinkClass::NVLink;
  double raw_bandwidth = 0;         // bytes/s of the narrowest link on the path
  double wire_latency_s = 0;        // sum of the path's link latencies (the World's physics)
};

struct CommPlan {
  CommView view;
  int channels_ref = 1;             // NCCL's default coll channels (before env limits)
  std::vector<int> ring;            // World ranks in ring order (by NCCL node, then local GPU)
  std::vector<Edge> ring_edges;     // ring[i] -> ring[i+1 mod n]
  std::vector<Edge> chain_edges;    // tree: child -> parent inside each NCCL node
  std::vector<Edge> tree_edges[2];  // double binary tree across nodes: child leader -> parent leader
  std::vector<int> node_of;         // per position in `ring`: NCCL node index
};

// GPU compute capability x10 from a catalog GPU name (H200 -> 90); 80 when unknown.
int sm_of_gpu(const std::string& gpu_name);

CommPlan build_plan(const World& world, const sim::FlowNetwork& net, const std::vector<int>& ranks);
Edge make_edge(const World& world, const sim::FlowNetwork& net, int from, int to);

}  // namespace models::nccl
