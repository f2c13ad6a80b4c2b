// Ring algorithms: all-reduce, all-gather and reduce-scatter around a ring, broadcast and reduce
// as a pipelined chain from the root, and PAT (replayed on the ring's edges).
//
// On idle links, for n ranks and S bytes (nccl-tests' size convention, collective.hpp), with
// hop = the mean per-step latency of the ring's n edges (LinkParams, wire included; at least the
// largest step floor on the ring, ClassParams::step_floor_s: each step sends through every edge) and
// cap = flow_rate_cap (flow_cap.hpp) of an edge:
//   all-reduce (reduce-scatter, then all-gather):   T = kernel + 2(n-1) hop + 2(n-1)/n S / cap
//   all-gather, reduce-scatter (S = the total):      T = kernel + (n-1) hop + (n-1)/n S / cap
//   broadcast, reduce (a chain cut before the root): T = kernel + (n-1) hop + fill + S / cap
//     fill = min(1, slice / (S / channels)) x (sum - max of the chain edges' bytes / cap), Simple
//     (pipeline_fill.hpp); on uniform edges (n-2) min(1, slice / (S / channels)) S / cap; LL and
//     LL128 the same with their units (one CTA iteration on a GPU edge, a chunk on a network edge)
//   PAT (all-gather, reduce-scatter):                T = kernel + ceil(log2 n) hop + (n-1)/n S / cap
// Every edge of the ring moves the same bytes at once, so in steady state the pipelined ring
// runs at its slowest edge; with contention the flows' max-min rates replace cap.
// Sources: P. Patarasuk, X. Yuan, "Bandwidth optimal all-reduce algorithms for clusters of
// workstations", JPDC 69(2), 2009 (the ring's 2(n-1)/n S per rank); NCCL src/device/all_reduce.h,
// all_gather.h, reduce_scatter.h, broadcast.h, reduce.h (runRing: 2(n-1), n-1 steps) and
// src/graph/tuning.cc (ring latency = steps x per-hop latency; PAT's log2 n steps); nccl-tests
// doc/PERFORMANCE.md (bus bandwidth factors 2(n-1)/n and (n-1)/n). Tests:
// tests/models/collectives/algorithms/ring_test.cpp.
#include <algorithm>
#include <cmath>
#include <vector>

#include "models/collectives/copy_work.hpp"
#include "models/collectives/engine.hpp"
#include "models/collectives/pipeline_fill.hpp"
#include "sim/check.hpp"

namespace models::collectives {

namespace {
// Bytes one ring edge moves and pipeline steps, per op (S: nccl-tests' size convention).
struct RingSteps {
  double edge_bytes = 0;
  int steps = 0;
};
RingSteps ring_steps(CollOp op, int n, double S) {
  switch (op) {
    case CollOp::AllReduce: return {S * 2 * (n - 1) / n, 2 * (n - 1)};
    case CollOp::AllGather:
    case CollOp::ReduceScatter: return {S * (n - 1) / n, n - 1};
    default: return {S, n - 1};  // broadcast, reduce: pipelined chain from the root
  }
}
}  // namespace

void Engine::launch_ring(const Launch& l) {
  const CommPlan& plan = *l.plan;
  const CollOp op = l.rec.op;
  const Proto proto = l.rec.proto;
  const int n = l.n;
  const RingSteps rs = ring_steps(op, n, l.S);
  // Each step at least the ring's largest step floor (a net plugin's cost per message).
  const auto [hop_sum, step_floor] = ring_hops(l);
  const double steps = l.rec.algo == Algo::PAT ? std::ceil(std::log2(n)) : rs.steps;
  const double lat_s = params_.kernel_latency_s + std::max(steps * hop_sum / n, steps * step_floor);
  sim::Time lat = sim::Time::from_seconds(lat_s);
  const double work = copy_work_vs_all_reduce(op, n, l.in_place);
  const double gain = ring_channel_gain(n);
  const bool rooted = op == CollOp::Broadcast || op == CollOp::Reduce;
  if (!rooted) {
    // Each ring moves 1/rings of the data; an edge gets the channels of its bottleneck link that
    // its ring holds (a NIC: all of them; a GPU's NVLink: 1/rings, every ring crosses it).
    // Rings' identical edges are merged (CommPlan::MergedEdge).
    add_merged_flows(l.pending, plan.ring_merged,
                     {.bytes = rs.edge_bytes,
                      .proto = proto,
                      .coll_share = l.share,
                      .channels = static_cast<double>(l.rec.channels),
                      .latency = lat,
                      .duplex = true,
                      .work = work,
                      .channel_gain = gain});
    return;
  }
  // The chain is each ring cut before the root: n-1 edges from the root on; the last rank only
  // receives. Every ring starts at the same root (the communicator's first rank, as nccl-tests'
  // root 0): NCCL runs a rooted collective on every channel's ring from the root on
  // (src/device/broadcast.h, reduce.h: ring->userRanks are rotated to start at the root), so
  // rotated rings (one per NIC group) are each entered at the root, not at their own first rank.
  const double rings = static_cast<double>(plan.rings.size());
  const int root = plan.ring.front();
  // The chain's pipeline fill (pipeline_fill.hpp): the first ring's n-1 edges from the root on,
  // each at its bytes over its cap.
  if (n > 2) {
    double sum_t = 0, max_t = 0;
    // LL/LL128 (pipeline_fill.hpp line_chain_units): the whole CTA forwards one iteration at a
    // time on a GPU edge; a network edge forwards the protocol's chunk (no shrink for a chain).
    const double chunk = static_cast<double>(proto == Proto::LL ? kLlChunkBytes : kLl128ChunkBytes);
    const ChainUnits u = line_chain_units(proto, /*tree_split=*/false, chunk);
    std::vector<ChainStage> stages;
    for (const Edge& e : plan.rings.front()) {
      if (e.to == root) continue;
      FlowShape f{.bytes = rs.edge_bytes / rings, .proto = proto, .latency = sim::Time::zero()};
      f.link_fraction = 1.0 / e.rings_sharing;
      f.coll_share = l.share;
      f.channels = l.rec.channels / rings;
      f.work = work;
      f.channel_gain = gain;
      const double t = f.bytes / flow_cap(e, f, rate_scale_);
      sum_t += t;
      max_t = std::max(max_t, t);
      const bool net =
          e.link_class == LinkClass::EFA || e.link_class == LinkClass::IB || e.link_class == LinkClass::Socket;
      stages.push_back({1, t, net ? u.net : u.gpu_up});
    }
    const double fill_s = proto == Proto::Simple ? chain_fill_s(proto, buffsize_, l.S / l.rec.channels, sum_t, max_t)
                                                 : staged_chain_fill_s(stages, l.S / l.rec.channels);
    lat = sim::Time::from_seconds(lat_s + fill_s);
  }
  for (const auto& ring : plan.rings) {
    int start = 0;
    while (start < n && ring[start].from != root) ++start;
    SIM_CHECK(start < n, "a ring of the plan does not contain the root");
    for (int k = 0; k + 1 < n; ++k) {
      const Edge& e = ring[(start + k) % n];
      add_flow(l.pending, e,
               {.bytes = rs.edge_bytes / rings,
                .proto = proto,
                .link_fraction = 1.0 / e.rings_sharing,
                .coll_share = l.share,
                .channels = l.rec.channels / rings,
                .latency = lat,
                .duplex = k + 2 < n,
                .work = work,
                .channel_gain = gain});
    }
  }
}

}  // namespace models::collectives
