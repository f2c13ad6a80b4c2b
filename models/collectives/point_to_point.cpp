// Point-to-point operations: send/recv between two ranks, and all-to-all as every pair's
// send/recv at once (NCCL runs both as grouped ncclSend/ncclRecv on its p2p channels).
//
// On idle links, S bytes (send/recv: the message; all-to-all: what each rank sends in all), with
// hop = the per-step latency of the pair's edge (all-to-all: the largest over the pairs) and
// cap = flow_rate_cap (flow_cap.hpp) on the channels NCCL gives the transfer (p2p_channels.hpp:
// a peer starts at p2p channels per peer halved until x nranks fits the p2p channels, and gets
// more only for large parts, src/enqueue.cc scheduleP2pTasksToPlan / addP2pToPlan):
//   send/recv:   T = kernel + hop + S / cap(ch(S))
//   all-to-all:  T = kernel + max hop + (S/n per pair on ch(S/n) channels, all n(n-1) pairs at
//                once, max-min shared on the GPUs' ports)
// so over NVLink a pair runs at min(eta B, ch x r') (r': one channel's rate), and a GPU whose
// n-1 outgoing flows share its port sends (n-1)/n S at most at eta B (the port's efficiency,
// models/world/world.cpp). The protocol is LL up to kP2pLLThresholdBytes per peer, else Simple.
// Sources: NCCL src/enqueue.cc (p2p tasks, NCCL_P2P_LL_THRESHOLD), src/device/sendrecv.h;
// nccl-tests src/alltoall.cu (S/n to every peer). Tests: tests/models/collectives/point_to_point_test.cpp.
#include <algorithm>

#include "models/collectives/engine.hpp"
#include "models/collectives/flow_cap.hpp"
#include "models/collectives/p2p_channels.hpp"

namespace models::collectives {

int Engine::p2p_transfer_channels(const CommPlan& plan, int nranks, int64_t bytes) const {
  const P2pChannels c = p2p_channels(nccl::coll_channels(plan.view, env_), plan.p2p_topo_per_peer, plan.view.nnodes > 1,
                                     plan.p2p_all_nvlink);
  return collectives::p2p_transfer_channels(c, nranks, bytes);
}

void Engine::launch_all_to_all(const Group& group, const Launch& l) {
  // The n(n-1) pair paths are built once per group, on its first all-to-all.
  auto it = all_pairs_.find(group.ranks);
  if (it == all_pairs_.end()) {
    std::vector<Edge> built;
    for (int a : group.ranks)
      for (int b : group.ranks)
        if (a != b) built.push_back(make_edge(world_, net_, a, b));
    it = all_pairs_.emplace(group.ranks, std::move(built)).first;
  }
  const std::vector<Edge>& edges = it->second;
  double max_hop = 0;
  for (const Edge& e : edges) max_hop = std::max(max_hop, hop(e, l.rec.proto));
  const sim::Time lat = sim::Time::from_seconds(params_.kernel_latency_s) + sim::Time::from_seconds(max_hop);
  const int ch = p2p_transfer_channels(*l.plan, l.n, static_cast<int64_t>(l.S / l.n));
  pending_[l.pending].record.channels = ch;
  for (const Edge& e : edges)
    add_flow(l.pending, e,
             {.bytes = l.S / l.n,
              .proto = l.rec.proto,
              .link_fraction = 1.0,
              .coll_share = 1.0,
              .channels = static_cast<double>(ch),
              .latency = lat});
}

void Engine::send_recv(int src, int dst, int64_t bytes, Done on_done, const std::vector<int>* comm) {
  CollectiveRecord rec;
  rec.op = CollOp::SendRecv;
  rec.bytes = bytes;
  rec.proto = bytes <= kP2pLLThresholdBytes ? Proto::LL : Proto::Simple;
  if (src != dst) {
    // The communicator's plan, looked up by its ranks (id -1: not a group of the workload).
    const Group g{.ranks = comm ? *comm : std::vector<int>{std::min(src, dst), std::max(src, dst)}, .id = -1};
    rec.channels = p2p_transfer_channels(plan_for(g).plan, static_cast<int>(g.ranks.size()), bytes);
  }
  const uint32_t idx = open(rec, std::move(on_done));
  const sim::Time kernel = sim::Time::from_seconds(params_.kernel_latency_s);
  if (src != dst) {
    pending_[idx].expected = expected_delivery(CollOp::SendRecv, 2, static_cast<double>(bytes), false);
    pending_[idx].group_size = 2;
  }
  if (src == dst || bytes == 0) {
    complete_after(idx, kernel);
    return;
  }
  const Edge e = make_edge(world_, net_, src, dst);
  add_flow(idx, e,
           {.bytes = static_cast<double>(bytes),
            .proto = rec.proto,
            .channels = static_cast<double>(rec.channels),
            .latency = kernel + sim::Time::from_seconds(hop(e, rec.proto)),
            .duplex = false});
}

}  // namespace models::collectives
