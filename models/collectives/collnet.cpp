// CollNet all-reduce: SHARP in the InfiniBand switches (NCCL_COLLNET_ENABLE=1, NCCL's collnet
// plugin, a [cluster.fabric] with sharp = true). Each node reduces its data to H heads (one per
// NIC), each head sends its node's sum of its slice S/H once up the SHARP tree and receives the
// global sum once; the node then spreads the result. Per node the network moves S each way,
// where a ring moves 2(n-1)/n S (and a tree S through interior nodes' NICs twice).
//   CollNetDirect (H heads, k ranks per node, on NVSwitch): every rank sends each other head its
//     slice and, as a head, the result back to the k-1 others; per rank port each way
//     (1 - hf) S + hf (k-1) S (hf = 1/H for a head, else 0): (k-1)/k S + (k-1)/k S = 1.75 S on 8
//     GPUs with 8 heads, as much NVLink as a ring (NVIDIA/nccl#320: NVLink then binds).
//   CollNetChain: a chain inside each node up to the head and back down (the tree sets' chains,
//     tree.cpp), S/sets each way on every chain edge of each set; over k rotated sets a rank sends
//     up in k-1 and down in k-1 of them: 2(k-1)/k S per port each way (1.75 S on 8 GPUs).
// Across nodes (both), per head: its NIC moves S/H up and S/H down, at most sharp.efficiency of its
// line rate (SHARP's streaming aggregation, Graham et al. ISC 2020) and the IB flow cap.
// On idle links:
//   T = kernel + (direct: 2 | chain: 2(k-1)) hop_nvlink + 2 hop_ib + sharp.latency
//       + max(intra bytes per port / cap_nvlink, S / (H min(cap_ib, sharp.efficiency x B_nic)))
// Sources: NCCL src/device/all_reduce.h (RunWorkColl COLLNET_DIRECT: scatter to the heads, reduce
// and send to the network, receive and broadcast, gather; COLLNET_CHAIN: runTreeSplit-style chain
// to the network), src/graph/tuning.cc (their ratings), src/graph/search.cc (one head per NIC).
// Tests: tests/models/collectives/algorithms/collnet_test.cpp.
#include <algorithm>

#include "models/collectives/engine.hpp"

namespace models::collectives {

// Bytes CollNet's flows move (audit), k = n / nodes ranks per node: Direct 4(k-1) S per node over
// NVLink ports, Chain 2(k-1) S per node over chain edges; both 2 S per node through SHARP.
Delivery collnet_delivery(Algo algo, int n, int nodes, double S) {
  if (n <= 1 || S == 0) return {};
  const double intra = algo == Algo::CollNetDirect ? 4.0 * (n - nodes) * S : 2.0 * (n - nodes) * S;
  return {intra + 2.0 * nodes * S, -1.0, false};
}

void Engine::add_sharp_flows(const Launch& l, const std::vector<CommPlan::MergedEdge>& sharp, sim::Time lat) {
  for (const auto& m : sharp)
    add_flow(l.pending, m.edge,
             {.bytes = m.bytes_frac * l.S,
              .proto = Proto::Simple,
              .link_fraction = m.share_frac,
              .coll_share = l.share,
              .channels = static_cast<double>(l.rec.channels) * m.bytes_frac,
              .latency = lat,
              .max_rate = params_.sharp_efficiency * m.edge.raw_bandwidth});
}

void Engine::launch_collnet_all_reduce(const Launch& l) {
  const CommPlan& plan = *l.plan;
  const bool direct = l.rec.algo == Algo::CollNetDirect;
  const int ppn = plan.view.nranks / plan.view.nnodes;
  const double nvlink_hop = params_.of(LinkClass::NVLink).hop_latency_s[static_cast<int>(Proto::Simple)];
  const double ib_hop = params_.of(LinkClass::IB).hop_latency_s[static_cast<int>(Proto::Simple)];
  const double lat_s =
      params_.kernel_latency_s + (direct ? 2 : 2 * (ppn - 1)) * nvlink_hop + 2 * ib_hop + params_.sharp_latency_s;
  const sim::Time lat = sim::Time::from_seconds(lat_s);
  const FlowShape whole{.bytes = l.S,
                        .proto = Proto::Simple,
                        .coll_share = l.share,
                        .channels = static_cast<double>(l.rec.channels),
                        .latency = lat};
  if (direct) {
    for (const auto& p : plan.collnet_ports) {
      FlowShape f = whole;
      f.bytes = ((1.0 - p.head_frac) + p.head_frac * (p.node_ranks - 1)) * l.S;
      add_flow(l.pending, p.edge, f);
    }
    add_sharp_flows(l, plan.collnet_sharp, lat);
  } else {
    add_merged_flows(l.pending, plan.chain_merged, whole);
    add_sharp_flows(l, plan.chain_sharp, lat);
  }
}

}  // namespace models::collectives
