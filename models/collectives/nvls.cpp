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
// The switch's rate per port is nvls.efficiency (Hopper 0.85, NCCL tuning.cc nvlsEfficiency;
// Blackwell 0.72, measured) of the port's Simple rate (a flow's work 1/eta, copy_work.hpp's lever on NVLink)
// on what binds: Hopper's ports on their (1 + 1/H) S, Blackwell's switch on S per GPU
// (LinkParams::nvls_port_work, with the measurements that tell the two apart).
// The switch, not a CTA's loads and stores, moves these bytes, so no per-channel term caps them
// (flow_cap.hpp port_bound). But the kernel's own warps move S per GPU too (the scatter into the
// NVLS buffer, the gather out of it), head by head, one NCCL chunk per call, and every chunk costs
// a channel a fixed nvls.chunk_latency more (pipeline_fill.hpp nvls_chunk_stage_rate): on NCCL's
// small chunks that stage, not the switch, sets the pace. On idle links, one node of n GPUs
// (H = min(n, 32) heads), C channels:
//   T = nvls.latency + fill + max(T_switch, T_stage)
//   T_switch = (1 + 1/H) S / (eta_nvls cap_nvlink)                 (all-reduce, Hopper)
//            = max(S / eta_nvls, (1 + 1/H) S) / cap_nvlink          (all-reduce, Blackwell)
//            = S / (eta_nvls cap_nvlink)                           (reduce-scatter, all-gather)
//   T_stage = S / (C x min over the op's copy groups of nvls_chunk_stage_rate(warps, chunk, warp
//             rate, chunk latency)): all-reduce 8 scatter and 7 gather warps (7 and 6 on 6 GPUs or
//             fewer), reduce-scatter 8 scatter, all-gather 8 gather; chunk nvls_chunk_bytes
//   fill = min(1, H chunk / (S/C)) x (t_scatter + max(T_switch, T_stage) + t_gather - max), all-reduce
//          only, t_scatter = (S/C) / (8 warps x nvls.warp_copy_bandwidth), t_gather with 7 warps
// The 7 gather warps' stage moves 0.70 of their copy rate on 64 KiB chunks: on Blackwell's 24
// channels 0.90 of the switch's rate, 0.69 on 32 KiB and 0.47 on 16 (two GB300 hosts, 8 GPUs,
// measured between NCCL's chunk steps: 0.89, where nvls.chunk_latency was read, then 0.55-0.63 and
// 0.44 of the rate at 128 KiB, where the switch binds). On Hopper's 16 channels the switch binds
// down to 64 KiB chunks.
// nvls.latency (28 us) is the kernel's fixed time on one node, read off Azure's ND H200 v5 curve;
// the fill is the first loop's scatter and gather copies, which the switch's loop waits for and
// the next loop's cannot hide. And across nodes, the heads' NICs moving S/H each way through the
// SHARP switches (collnet.cpp add_sharp_flows):
//   T = kernel + 2 hop_nvlink + 2 hop_ib + sharp.latency + max((1 + 1/H) S / (eta_nvls cap_nvlink),
//                                                              S / (H cap_sharp))
// 8 x H100: 0.85 x 0.79 x 450 / 1.125 = 268.6 GB/s algorithm bandwidth (bus bandwidth 470) against
// 273.5 (479) on Azure's ND H100 v5 and 480 on HGX H100 (NVIDIA/nccl-tests#309); NVIDIA/nccl#1455
// has 258-273 GB/s on 5-8 GPUs.
// Sources: NCCL src/device/all_reduce.h (RunWorkColl NVLS: scatter, reduce through NVLS, gather;
// across nodes reduce to the network and back), all_gather.h, reduce_scatter.h, src/graph/tuning.cc.
// Tests: tests/models/collectives/algorithms/nvls_test.cpp.
#include <algorithm>

#include "models/collectives/engine.hpp"
#include "models/collectives/pipeline_fill.hpp"
#include "sim/check.hpp"

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
  const double lat_s = across ? params_.kernel_latency_s + 2 * nvlink_hop + 2 * ib_hop + params_.sharp_latency_s
                              : params_.nvls_latency_s;
  const sim::Time lat = sim::Time::from_seconds(lat_s);
  const double eta = params_.nvls_efficiency_of(plan.view.sm);
  // One node: the kernel's copy warps (scatter into the NVLS buffer, gather out of it) move the
  // whole S per GPU head by head, one NCCL chunk per call, each chunk at a fixed cost besides
  // (pipeline_fill.hpp nvls_chunk_stage_rate); the slower group bounds the S per second each port
  // flow may carry, beside the switch's port cap.
  const double channels = std::max(1, l.rec.channels);
  const int heads = std::max(1, plan.view.nvls_heads);  // one per GPU, at most NCCL_MAX_NVLS_ARITY
  const double chunk =
      static_cast<double>(nvls_chunk_bytes(static_cast<int64_t>(l.S), l.rec.channels, heads, nvls_chunk_));
  const NvlsWarps warps = nvls_one_node_warps(op, l.n);
  const double warp_rate = params_.warp_copy_bandwidth;
  const double chunk_s = params_.nvls_chunk_latency_s;
  const double scatter_rate = nvls_chunk_stage_rate(warps.scatter, chunk, warp_rate, chunk_s);  // per channel; 0: none
  const double gather_rate = nvls_chunk_stage_rate(warps.gather, chunk, warp_rate, chunk_s);
  double stage_rate = 0;  // S per second the slower chunk stage allows, all channels; 0: no bound
  if (!across && warp_rate > 0) {
    for (const double r : {scatter_rate, gather_rate})
      if (r > 0) stage_rate = stage_rate > 0 ? std::min(stage_rate, r) : r;
    stage_rate *= channels;
  }
  SIM_CHECK(collecting_, "NVLS's flows are set up while the launch collects them");
  const std::size_t first = block_.size();
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
              .work = LinkParams::nvls_port_work(eta, frac, plan.view.sm),
              .max_rate = frac * stage_rate,
              .port_bound = true});
  }
  if (across) {
    add_sharp_flows(l, plan.nvls_sharp, lat);
    return;
  }
  if (op != CollOp::AllReduce || warp_rate <= 0) return;
  // One node's all-reduce forwards loops (heads x chunk per channel) through three stages: the
  // scatter warps copy a loop of the input into the local NVLS buffer, the heads reduce and
  // multicast it through the switch (the flows just added, at their cap), the gather warps copy
  // the result out; each waits for the whole loop of every GPU (prims scatter / gather post once
  // per loop). Its fill (pipeline_fill.hpp loop_fill_s) is what the first loop's copies add, at
  // the warps' copy rate: the first loop's chunk costs are in nvls.latency, read off sizes of one
  // loop.
  const double per_channel = l.S / channels;
  const double t_scatter = per_channel / (warps.scatter * warp_rate);
  const double t_gather = per_channel / (warps.gather * warp_rate);
  double t_switch = 0;
  for (std::size_t i = first; i < block_.size(); ++i)
    t_switch = std::max(t_switch, static_cast<double>(block_[i].bytes) / block_[i].rate_cap);
  const double loop = heads * chunk;
  const double fill_s =
      loop_fill_s(loop, per_channel, t_scatter + t_switch + t_gather, std::max({t_scatter, t_switch, t_gather}));
  const sim::Time with_fill = sim::Time::from_seconds(lat_s + fill_s);
  for (std::size_t i = first; i < block_.size(); ++i) block_[i].latency = with_fill;
}

}  // namespace models::collectives
