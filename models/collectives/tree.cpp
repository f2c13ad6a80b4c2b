// Tree all-reduce: reduce up and broadcast down, pipelined, over a chain inside each NCCL node and
// NCCL's double binary tree across the nodes' leaders.
//
// On idle links, for n ranks on `nodes` NCCL nodes (ppn = n / nodes ranks each) and S bytes, with
// hop_intra / hop_inter = the largest per-step latency of a chain edge / of an inter-node tree
// edge (LinkParams, wire included) and cap = flow_rate_cap (flow_cap.hpp):
//   T = kernel + 2 ((ppn-1) hop_intra + log2(nodes) hop_inter) + S / cap
// Every edge carries S up and S down (2 S per edge, one flow each way); the two inter-node trees
// each carry half of the data on half of the channels; with several tree sets (one per NIC group,
// like the rings) each set carries 1/sets of it. On one node with a chain of GPUs sharing their
// NVLink ports both ways, an interior GPU's link is split between its up and down flows.
// Sources: P. Sanders, J. Speck, J. L. Traff, "Two-tree algorithms for full bandwidth broadcast,
// reduction and scan", Parallel Computing 35(12), 2009 (the double binary tree); NCCL
// src/graph/trees.cc (ncclGetDtree: tree 1 mirrors tree 0), src/device/all_reduce.h
// (runTreeUpDown / runTreeSplit), src/graph/tuning.cc (tree latency: 2 x (intra + log2(nodes)
// inter) steps). Tests: tests/models/collectives/tree_test.cpp.
#include <algorithm>
#include <cmath>

#include "models/collectives/engine.hpp"

namespace models::collectives {

void Engine::launch_tree_all_reduce(const Launch& l) {
  const CommPlan& plan = *l.plan;
  const Proto proto = l.rec.proto;
  const auto [intra_hop, inter_hop] = tree_hops(l);
  const int ppn = plan.view.nranks / plan.view.nnodes;
  const double lat_s = params_.kernel_latency_s +
                       2 * ((ppn - 1) * intra_hop + std::log2(static_cast<double>(plan.view.nnodes)) * inter_hop);
  const sim::Time lat = sim::Time::from_seconds(lat_s);
  const FlowShape whole{.bytes = l.S,
                        .proto = proto,
                        .coll_share = l.share,
                        .channels = static_cast<double>(l.rec.channels),
                        .latency = lat};
  // Folded by the GPU rotation (rotation_fold.cpp): one edge per orbit, each flow for its images,
  // on folded links.
  if (const std::vector<uint32_t>* kept = rotation_kept(plan.tree_merged)) {
    block_.reserve(block_.size() + kept->size());
    block_info_.reserve(block_info_.size() + kept->size());
    for (uint32_t i : *kept) add_merged_flows(l.pending, std::span(plan.tree_merged).subspan(i, 1), whole);
    start_folded();
  } else {
    add_merged_flows(l.pending, plan.tree_merged, whole);
  }
  if (pending_[l.pending].flows_left == 0) complete_after(l.pending, lat);  // one rank per node, one node
}

}  // namespace models::collectives
