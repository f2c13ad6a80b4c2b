// Point-to-point operations: send/recv between two ranks, and all-to-all as every pair's
// send/recv at once (NCCL runs both as grouped ncclSend/ncclRecv on its p2p channels).
//
// On idle links, S bytes (send/recv: the message; all-to-all: what each rank sends in all), with
// hop = the per-step latency of the pair's edge (all-to-all: the largest over the pairs) and
// cap = flow_rate_cap (flow_cap.hpp) on the channels NCCL gives the transfer (p2p_channels.hpp:
// a peer starts at p2p channels per peer halved until x nranks fits the p2p channels, and gets
// more only for large parts, src/enqueue.cc scheduleP2pTasksToPlan / addP2pToPlan):
//   send/recv:   T = kernel + hop + S / cap(ch(S) x fill)
//   all-to-all:  T = kernel + max hop + (S/n per pair on ch(S/n) x fill / W channels, all n(n-1)
//                pairs at once, max-min shared on the GPUs' ports)
// where fill = k / (k + 1) for a Simple part of k p2p chunks (p2p_chunk_fill.hpp: a chunk's
// copy into the peer's FIFO and its copy out never overlap), 1 for LL, and W = ceil((n-1) ch / p2p
// channels) the waves in which a rank's channels serve its peers;
// so over NVLink a pair runs at min(eta B, ch x fill x r' / W) (r': one channel's rate; point-to-point
// keeps H200's measured rate on every generation, Engine::p2p_params_), and a GPU whose
// n-1 outgoing flows share its port sends (n-1)/n S at most at eta B (the port's efficiency,
// models/world/world.cpp). The protocol is LL up to p2p channels per peer x 16 KiB per peer (p2p_channels.hpp
// p2p_uses_ll), else Simple; LL at one CTA's measured LL rate (flow_cap.hpp).
// Sources: NCCL src/enqueue.cc (p2p tasks, NCCL_P2P_LL_THRESHOLD), src/device/sendrecv.h;
// nccl-tests src/alltoall.cu (S/n to every peer). Tests: tests/models/collectives/algorithms/point_to_point_test.cpp.
#include <algorithm>
#include <cmath>
#include <span>

#include "models/collective_size.hpp"
#include "models/collectives/engine.hpp"
#include "models/collectives/flow_cap.hpp"
#include "models/comm_plan/p2p_channels.hpp"
#include "models/comm_plan/p2p_chunk_fill.hpp"

namespace models::collectives {

P2pChannels Engine::p2p_channels_of(const CommPlan& plan) const {
  P2pChannels c = p2p_channels(nccl::coll_channels(plan.view, env_), plan.p2p_topo_per_peer, plan.view.nnodes > 1,
                               plan.p2p_all_nvlink);
  c.ll_threshold = world_.nccl_env().p2p_ll_threshold;
  c.ll_rule = p2p_ll_rule(world_.nccl_env().version);
  return c;
}

void Engine::launch_all_to_all(const Group& group, const Launch& l) {
  const P2pChannels c = p2p_channels_of(*l.plan);
  const int64_t part = static_cast<int64_t>(l.S / l.n);  // to each peer
  const int ch = p2p_transfer_channels(c, l.n, part);
  pending_[l.pending].record.channels = ch;
  // A Simple pair's channels run at its chunk pipeline's share of their rate (p2p_chunk_fill.hpp).
  const double fill = l.rec.proto == Proto::Simple ? p2p_chunk_fill(c, (part + ch - 1) / ch) : 1.0;
  // Each pair at 1/W of its channels' rate, W the waves in which a rank's channels serve its peers
  // (p2p_channels.hpp; 64 ranks on 32 channels: two). The copy to oneself stays in the GPU's memory.
  const double waves = p2p_waves(c, l.n, ch);
  FlowShape pair{.bytes = l.S / l.n,
                 .proto = l.rec.proto,
                 .link_fraction = 1.0,
                 .coll_share = 1.0,
                 .channels = ch * fill / waves,
                 .latency = sim::Time::zero(),
                 .point_to_point = true};  // latency: set per transfer below
  // Folded (all_to_all_fold.hpp) unless --full, where the group and its idle links allow it.
  // Not while replicas are folded (sim::FlowNetwork::set_folded_links): a folded flow's links would be
  // routed to folded links that the fold's idle check and guard do not watch. Megatron-core carves EP
  // groups out of the data-parallel dimension, so an all-to-all spans replicas and the replica fold
  // does not apply to it anyway; this keeps the two exact if that ever changes.
  if (net_.closed_forms_requested() && !net_.folded() && launch_folded(group, l, pair)) {
    ++alltoall_folds_.folded;
    return;
  }
  ++alltoall_folds_.whole;
  if (alltoall_folds_.why_not.empty())
    alltoall_folds_.why_not = !net_.closed_forms_requested() ? "--full or --check: every pair's flow"
                              : net_.folded()               ? "another fold owns the network's folded links"
                              : folds_.count(group.ranks) && !folds_.at(group.ranks).fold
                                  ? folds_.at(group.ranks).reason
                                  : "its links were shared with another collective at its launch";
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
  pair.latency = sim::Time::from_seconds(params_.kernel_latency_s) + sim::Time::from_seconds(max_hop);
  for (const Edge& e : edges) add_flow(l.pending, e, pair);
}

bool Engine::launch_folded(const Group& group, const Launch& l, FlowShape pair) {
  auto it = folds_.find(group.ranks);
  if (it == folds_.end()) it = folds_.emplace(group.ranks, build_fold(world_, net_, group.ranks)).first;
  if (!it->second.fold) return false;
  const Fold& fold = *it->second.fold;
  for (sim::LinkId li : fold.links)
    if (!net_.link_idle(li)) return false;  // shared with another collective: pairs, exactly
  // Every pair's edge is its folded flow's (checked by build_fold): the same largest hop.
  double max_hop = 0;
  for (const FoldFlow& f : fold.flows) max_hop = std::max(max_hop, hop(f.edge, l.rec.proto));
  pair.latency = sim::Time::from_seconds(params_.kernel_latency_s) + sim::Time::from_seconds(max_hop);
  uint32_t run;
  if (!free_fold_runs_.empty()) {
    run = free_fold_runs_.back();
    free_fold_runs_.pop_back();
  } else {
    run = static_cast<uint32_t>(fold_runs_.size());
    fold_runs_.emplace_back();
  }
  FoldRun& r = fold_runs_[run];
  r.fold = &fold;
  r.ranks = &it->first;
  r.pending = l.pending;
  r.pair = pair;
  r.pair_bytes = static_cast<int64_t>(std::ceil(pair.bytes));  // as add_flow rounds a pair
  r.rate_scale = rate_scale_;
  r.ids.assign(fold.flows.size(), sim::FlowId{});
  Pending& p = pending_[l.pending];
  p.fold_run = run;
  p.flows_left += static_cast<int>(fold.flows.size());
  for (const FoldFlow& f : fold.flows) p.flows += static_cast<int>(f.weight);  // the audit's byte per pair
  for (uint32_t i = 0; i < fold.flows.size(); ++i) {
    const FoldFlow& f = fold.flows[i];
    const std::span<const sim::LinkId> path(fold.links_of_flows.data() + f.path_begin, f.path_end - f.path_begin);
    r.ids[i] = net_.start_weighted(
        path, static_cast<double>(r.pair_bytes) * f.weight, [this, run, i] { folded_flow_done(run, i); },
        flow_cap(f.edge, pair, rate_scale_) * f.weight, pair.latency, f.weight);
  }
  r.watch = net_.watch_links(fold.links, [this, run] { unfold(run); });
  return true;
}

void Engine::folded_flow_done(uint32_t run, uint32_t flow) {
  const FoldRun& r = fold_runs_[run];
  const uint32_t pending = r.pending;
  if (net_.audit()) {  // a's flow: what a sends, and folded, what a receives
    const FoldFlow& f = r.fold->flows[flow];
    const int64_t b = r.pair_bytes * f.weight;
    pending_[pending].delivered += b;
    pending_[pending].received[f.rank] += b;
  }
  flow_done(pending);
}

// Back to pairs: every folded flow still draining becomes its pairs, each with 1/weight of its
// remaining bytes and the same latency and cap per pair (build_fold: one edge per class).
// Drained folded flows keep their arrival: their pairs have drained too.
void Engine::unfold(uint32_t run) {
  FoldRun& r = fold_runs_[run];
  const Fold& fold = *r.fold;
  const uint32_t pending = r.pending;
  const std::vector<int>& ranks = *r.ranks;
  std::vector<double> left(fold.flows.size(), 0.0);
  int cancelled = 0, started = 0;
  for (uint32_t i = 0; i < fold.flows.size(); ++i) {
    left[i] = net_.remaining(r.ids[i]);
    if (left[i] <= 0 || !net_.cancel(r.ids[i])) {
      left[i] = 0;
      continue;
    }
    ++cancelled;
    if (net_.audit()) {  // what it delivered so far
      const FoldFlow& f = fold.flows[i];
      const int64_t done = static_cast<int64_t>(std::llround(static_cast<double>(r.pair_bytes) * f.weight - left[i]));
      pending_[pending].delivered += done;
      pending_[pending].received[f.rank] += done;
    }
  }
  if (cancelled == 0) return;
  const FlowShape pair = r.pair;
  const double scale = r.rate_scale;
  for (int a : ranks)
    for (int b : ranks) {
      if (a == b) continue;
      const uint32_t i = fold.flow_of_pair(world_, a, b);
      if (left[i] <= 0) continue;
      const Edge e = make_edge(world_, net_, a, b);
      const double bytes = left[i] / fold.flows[i].weight;
      const int64_t audit_bytes = static_cast<int64_t>(std::llround(bytes));
      ++started;
      net_.start_weighted(
          e.path, bytes,
          [this, pending, b, audit_bytes] {
            if (net_.audit()) {
              pending_[pending].delivered += audit_bytes;
              pending_[pending].received[b] += audit_bytes;
            }
            flow_done(pending);
          },
          flow_cap(e, pair, scale), pair.latency, 1);
    }
  pending_[pending].flows_left += started - cancelled;
}

void Engine::send_recv(int src, int dst, int64_t bytes, Done on_done, const std::vector<int>* comm) {
  check_collective_bytes(static_cast<double>(bytes), "collective.bytes");  // as launch(): a user error
  CollectiveRecord rec;
  rec.op = CollOp::SendRecv;
  rec.bytes = bytes;
  rec.proto = Proto::Simple;  // a copy to oneself (NCCL never gives it LL)
  double fill = 1.0;  // Simple's chunk pipeline (p2p_chunk_fill.hpp)
  if (src != dst) {
    // The communicator's plan, looked up by its ranks (id -1: not a group of the workload).
    const Group g{
        .ranks = comm ? *comm : std::vector<int>{std::min(src, dst), std::max(src, dst)}, .id = -1, .name = {}};
    const P2pChannels c = p2p_channels_of(plan_for(g).plan);
    rec.channels = p2p_transfer_channels(c, static_cast<int>(g.ranks.size()), bytes);
    rec.proto = p2p_uses_ll(c, static_cast<int>(g.ranks.size()), bytes) ? Proto::LL : Proto::Simple;
    if (rec.proto == Proto::Simple) fill = p2p_chunk_fill(c, (bytes + rec.channels - 1) / rec.channels);
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
            .channels = rec.channels * fill,
            .latency = kernel + sim::Time::from_seconds(hop(e, rec.proto)),
            .duplex = false,
            .point_to_point = true});
}

}  // namespace models::collectives
