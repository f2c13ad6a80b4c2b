// Tree all-reduce: reduce up and broadcast down, pipelined, over a chain inside each NCCL node and
// NCCL's double binary tree across the nodes' leaders.
//
// On idle links, for n ranks on `nodes` NCCL nodes (ppn = n / nodes ranks each) and S bytes, with
// hop_intra / hop_inter = the largest per-step latency of a chain edge / of an inter-node tree
// edge (LinkParams, wire included) and cap = flow_rate_cap (flow_cap.hpp):
//   T = kernel + 2 ((ppn-1) hop_intra + log2(nodes) hop_inter) + fill + S / cap
// with, for Simple, fill = min(1, slice / (S / channels)) x (2 ((ppn-1) T_chain + log2(nodes) T_net)
// - max(T_chain, T_net)), T_x the bytes over cap of the slowest chain / network edge
// (pipeline_fill.hpp: NCCL's slices pass the tree up and down store-and-forward); for LL and
// LL128 fill = sum_e tau_e - max_e tau_e, tau_e = min(1, unit_e / (S / channels)) x T_e, with the
// unit one iteration of the reducing (up) or broadcasting (down) warps on a GPU edge and NCCL's
// chunk on a network edge (pipeline_fill.hpp line_chain_units, tree_ll128_chunk_bytes).
// With LL and LL128 every rank but the root splits its CTA (runTreeSplit): 70 % of the threads
// reduce up, 30 % broadcast down, so over NVLink, where a channel's rate is its CTA's copying,
// the up data moves at 0.7 and the down data at 0.3 of a ring CTA's per-channel rate (flow_cap.hpp
// thread_share; pipeline_fill.hpp tree_split_threads); an edge carrying both takes the slower.
// Every edge carries S up and S down (2 S per edge, one flow each way); the two inter-node trees
// each carry half of the data on half of the channels; with several tree sets (one per NIC group,
// like the rings) each set carries 1/sets of it. On one node with a chain of GPUs sharing their
// NVLink ports both ways, an interior GPU's link is split between its up and down flows.
// Sources: P. Sanders, J. Speck, J. L. Traff, "Two-tree algorithms for full bandwidth broadcast,
// reduction and scan", Parallel Computing 35(12), 2009 (the double binary tree); NCCL
// src/graph/trees.cc (ncclGetDtree: tree 1 mirrors tree 0), src/device/all_reduce.h
// (runTreeUpDown / runTreeSplit), src/graph/tuning.cc (tree latency: 2 x (intra + log2(nodes)
// inter) steps). Tests: tests/models/collectives/algorithms/tree_test.cpp.
#include <algorithm>
#include <cmath>

#include "models/collectives/engine.hpp"
#include "models/collectives/pipeline_fill.hpp"

namespace models::collectives {

void Engine::launch_tree_all_reduce(const Launch& l) {
  const CommPlan& plan = *l.plan;
  const Proto proto = l.rec.proto;
  const auto [intra_hop, inter_hop] = tree_hops(l);
  const int ppn = plan.view.nranks / plan.view.nnodes;
  const double depth = (ppn - 1) + std::log2(static_cast<double>(plan.view.nnodes));  // edges leaf -> root
  FlowShape whole{.bytes = l.S,
                  .proto = proto,
                  .coll_share = l.share,
                  .channels = static_cast<double>(l.rec.channels),
                  .latency = sim::Time::zero()};
  // The pipeline's fill (pipeline_fill.hpp): up and down, (ppn-1) chain edges and log2(nodes)
  // network edges each way, each at the pace of its kind's slowest edge (bytes over cap, as
  // add_merged_flows sets them).
  // Each direction of an LL/LL128 tree moves at its threads' share of a ring's CTA (runTreeSplit:
  // 0.7 and 0.3 of LL128's, pipeline_fill.hpp tree_split_threads): 4-32 x p5 at 32-256 MiB, all
  // Tree/LL128, went from 44-55 % fast to 13-33 %. Simple's split (384 and 256 of 640 threads) is
  // not applied: its fill then grew by ~330 us on 2 x p4de (Tree/Simple, 1-64 MiB 13 -> 40 % off),
  // and no curve shows Simple's per-channel copy to be thread-bound at 256 threads.
  const TreeSplitThreads split = tree_split_threads(proto);
  const ThreadShares shares =
      proto == Proto::Simple ? ThreadShares{} : ThreadShares{split.up_share(), split.down_share()};
  double t_chain = 0, t_net = 0;
  for (const auto& m : plan.tree_merged) {
    const FlowShape f = merged_flow_shape(m, whole, /*split_channels=*/true, shares);
    const double t = f.bytes / flow_cap(m.edge, f, rate_scale_);
    const LinkClass c = m.edge.link_class;
    double& slot = (c == LinkClass::EFA || c == LinkClass::IB || c == LinkClass::Socket) ? t_net : t_chain;
    slot = std::max(slot, t);
  }
  const double net_edges = depth - (ppn - 1);
  double fill_s = chain_fill_s(proto, buffsize_, l.S / whole.channels, 2 * ((ppn - 1) * t_chain + net_edges * t_net),
                               std::max(t_chain, t_net));
  if (proto != Proto::Simple) {
    // LL/LL128: the CTA is split (70 % of its warps reduce up, the rest broadcast down), each
    // forwarding one iteration at a time on GPU edges; network edges forward whole chunks.
    const double chunk = proto == Proto::LL
                             ? static_cast<double>(kLlChunkBytes)
                             : static_cast<double>(tree_ll128_chunk_bytes(static_cast<int64_t>(l.S), l.rec.channels,
                                                                          plan.view.nranks, plan.view.nnodes));
    const ChainUnits u = line_chain_units(proto, /*tree_split=*/true, chunk);
    const ChainStage stages[] = {{static_cast<double>(ppn - 1), t_chain, u.gpu_up},
                                 {static_cast<double>(ppn - 1), t_chain, u.gpu_down},
                                 {2 * net_edges, t_net, u.net}};
    fill_s = staged_chain_fill_s(stages, l.S / whole.channels);
  }
  const double lat_s =
      params_.kernel_latency_s + 2 * ((ppn - 1) * intra_hop + (depth - (ppn - 1)) * inter_hop) + fill_s;
  const sim::Time lat = sim::Time::from_seconds(lat_s);
  whole.latency = lat;
  // Folded by the GPU rotation (rotation_fold.cpp): one edge per orbit, each flow for its images,
  // on folded links.
  if (const std::vector<uint32_t>* kept = rotation_kept(plan.tree_merged)) {
    block_.reserve(block_.size() + kept->size());
    block_info_.reserve(block_info_.size() + kept->size());
    for (uint32_t i : *kept)
      add_merged_flows(l.pending, std::span(plan.tree_merged).subspan(i, 1), whole, /*split_channels=*/true, shares);
    start_folded();
  } else {
    add_merged_flows(l.pending, plan.tree_merged, whole, /*split_channels=*/true, shares);
  }
  if (pending_[l.pending].flows_left == 0) complete_after(l.pending, lat);  // one rank per node, one node
}

}  // namespace models::collectives
