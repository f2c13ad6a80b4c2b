// NVLS: NVLink SHARP. The NVSwitch reduces (multimem.ld_reduce) and multicasts (multimem.st), so
// no GPU adds or forwards a peer's data over NVLink. On one node every GPU heads 1/n of the buffer;
// across nodes (NVLS over CollNet, NCCL_COLLNET_ENABLE=1 on a SHARP fabric) H heads per node, one
// per NIC, each also sends its node's sum of its slice to the SHARP switches and gets the result.
//
// Per GPU port, with hf its head share (1/n on one node, 1/H or 0 across nodes), S in nccl-tests'
// convention (all-gather/reduce-scatter: the whole buffer), bytes each way:
//   all-reduce      to the switch (1 + hf) S (its S reduced by the switch, its slice multicast),
//                   from it (1 + hf) S (the reduced slice it heads, every slice multicast to it);
//   reduce-scatter  to the switch S, from it S/n;   all-gather  to the switch S/n, from it S.
// A ring moves 2(n-1)/n S each way for an all-reduce: 1.75 S on 8 GPUs against NVLS's 1.125 S.
// The switch's rate per port is nvls.efficiency (Hopper 0.85, Blackwell 0.74; NCCL tuning.cc
// nvlsEfficiency) of the ring's (a flow's copy work 1/eta, copy_work.hpp's lever on NVLink), so on
// idle links, one node of n GPUs:
//   T = kernel + 2 hop_nvlink + (1 + 1/n) S / (eta_nvls cap_nvlink)             (all-reduce)
//   T = kernel + 2 hop_nvlink + S / (eta_nvls cap_nvlink)                       (reduce-scatter, all-gather)
// and across nodes, the heads' NICs moving S/H each way through the SHARP switches
// (collnet.cpp add_sharp_flows):
//   T = kernel + 2 hop_nvlink + 2 hop_ib + sharp.latency + max((1 + 1/H) S / (eta_nvls cap_nvlink),
//                                                              S / (H cap_sharp))
// 8 x H100: 0.85 x 370 / 1.125 = 280 GB/s algorithm bandwidth (busbw 489) against ~275 (480)
// measured (NVIDIA/nccl-tests#212); NVIDIA/nccl#1455 has 258-273 GB/s on 5-8 GPUs, where this
// gives 262-280 (on 2-4 GPUs it measured the ring's bandwidth: not reproduced).
// Sources: NCCL src/device/all_reduce.h (RunWorkColl NVLS: scatter, reduce through NVLS, gather;
// across nodes reduce to the network and back), all_gather.h, reduce_scatter.h, src/graph/tuning.cc.
// Tests: tests/models/collectives/nvls_test.cpp.
#include "models/collectives/engine.hpp"

namespace models::collectives {

// Bytes NVLS's flows move (audit): per node of k ranks, its ports' bytes (sum of head shares 1 per
// node), and across nodes S each way per node through the SHARP switches.
Delivery nvls_delivery(CollOp op, int n, int nodes, double S) {
  if (n <= 1 || S == 0) return {};
  if (op == CollOp::AllReduce) return {2.0 * (n + nodes) * S + (nodes > 1 ? 2.0 * nodes * S : 0.0), -1.0, false};
  return {(n + 1.0) * S, -1.0, false};  // reduce-scatter, all-gather: one node
}

void Engine::launch_nvls(const Launch& l) {
  const CommPlan& plan = *l.plan;
  const CollOp op = l.rec.op;
  const bool across = plan.view.nnodes > 1;
  const double nvlink_hop = params_.of(LinkClass::NVLink).hop_latency_s[static_cast<int>(Proto::Simple)];
  const double ib_hop = params_.of(LinkClass::IB).hop_latency_s[static_cast<int>(Proto::Simple)];
  const double lat_s =
      params_.kernel_latency_s + 2 * nvlink_hop + (across ? 2 * ib_hop + params_.sharp_latency_s : 0.0);
  const sim::Time lat = sim::Time::from_seconds(lat_s);
  const double eta = params_.nvls_efficiency_of(plan.view.sm);
  for (const auto& p : plan.nvls_ports) {
    double frac = 1.0 + p.head_frac;  // all-reduce, both ways
    if (op == CollOp::ReduceScatter) frac = p.tx ? 1.0 : p.head_frac;
    if (op == CollOp::AllGather) frac = p.tx ? p.head_frac : 1.0;
    add_flow(l.pending, p.edge,
             {.bytes = frac * l.S,
              .proto = Proto::Simple,
              .coll_share = l.share,
              .channels = static_cast<double>(l.rec.channels),
              .latency = lat,
              .work = 1.0 / eta});
  }
  if (across) add_sharp_flows(l, plan.nvls_sharp, lat);
}

}  // namespace models::collectives
