// NVLSTree all-reduce: NVLink SHARP inside each node, a tree of the nodes' heads across them.
//
// Inside a node the NVSwitch reduces: every rank pushes its whole buffer into the switch, which
// hands each head (one per NIC group, H per node) the node's sum of the head's slice (S/H); the
// heads run NCCL's double binary tree across the nodes on their slices (as tree.cpp's inter-node
// edges, one tree set per head); the switch then multicasts each head's final slice to every
// rank of the node. All of it is pipelined, so on idle links, for n ranks on `nodes` nodes:
//   T = kernel + 2 hop_nvlink + 2 log2(nodes) hop_inter + max( (1 + 1/H) S / cap_nvlink ,
//                                                                S / (H cap_inter) )
// Per rank the NVLink port moves S to the switch and S from it, plus S/H each way as a head;
// per node the network moves S each way (the heads' S/H each). No GPU adds or copies a peer's
// data over NVLink (the switch reduces), which is why NVLSTree beats a chain on NVLink.
// Sources: NCCL src/device/all_reduce.h (runTreeNVLS / NVLS_TREE: scatter to the NVLS heads,
// tree up/down between nodes, multicast back), src/graph/tuning.cc (its rating and latency:
// 25 us intra + 2 log2(nNodes) x 20.9 us), src/graph/search.cc (NVLS heads: one per NIC).
// Tests: tests/models/collectives/nvls_tree_test.cpp.
#include <cmath>

#include "models/collectives/engine.hpp"

namespace models::collectives {

// Bytes an NVLSTree all-reduce's flows move (audit): per node, every rank's S up to the switch
// and S back down, the heads' S/H slices once more each way; across nodes 2 S per tree edge
// pair ((nodes - 1) of them per tree, two trees each carrying half).
Delivery nvls_tree_delivery(int n, int nodes, double S) {
  if (n <= 1 || S == 0) return {};
  return {2.0 * n * S + 2.0 * nodes * S + 2.0 * (nodes - 1) * S, -1.0, false};
}

void Engine::launch_nvls_tree_all_reduce(const Launch& l) {
  const CommPlan& plan = *l.plan;
  const Proto proto = l.rec.proto;
  const double inter_hop = tree_inter_hop(l);  // the heads' inter-node tree edge
  const double nvlink_hop = params_.of(LinkClass::NVLink).hop_latency_s[static_cast<int>(proto)];
  const double lat_s =
      params_.kernel_latency_s + 2 * nvlink_hop + 2 * std::log2(static_cast<double>(plan.view.nnodes)) * inter_hop;
  const sim::Time lat = sim::Time::from_seconds(lat_s);
  const FlowShape whole{.bytes = l.S,
                        .proto = proto,
                        .coll_share = l.share,
                        .channels = static_cast<double>(l.rec.channels),
                        .latency = lat};
  // Folded (CommPlan::nvls_rotation): one tree set's inter-node edges and each node's GPU 0 port
  // pair, each flow for its images on the other sets and GPUs, started on folded links
  // (rotation_fold.cpp).
  if (plan.nvls_rotation > 0) start_folded();
  add_merged_flows(l.pending, plan.nvls_net_merged, whole);
  add_merged_flows(l.pending, plan.nvls_switch, whole, /*split_channels=*/false);
}

}  // namespace models::collectives
