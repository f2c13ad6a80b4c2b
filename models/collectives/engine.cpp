// The collective engine: NCCL's choice (models/nccl/tuning.cpp) + its replay as flows on the network.
//
// Physics of one collective on idle links (tested in tests/models/collectives/engine_test.cpp), with
// hop = the calibrated per-step latency of the edge's link class and protocol (wire included: the
// World's link latencies are not added again) and cap = eta * B * C / Cref (link_params.hpp):
//   ring all-reduce:  T = kernel + 2(n-1) * hop + (2(n-1)/n * S) / cap
//   ring all-gather / reduce-scatter (S = total): T = kernel + (n-1) * hop + ((n-1)/n * S) / cap
//   ring broadcast / reduce: T = kernel + (n-1) * hop + S / cap
//   tree all-reduce: T = kernel + 2((ppn-1) hop_intra + log2(nodes) hop_inter) + S / cap
//   send/recv: T = kernel + hop + S / cap;   all-to-all: every pair at once, S/n each.
// With contention the flows' max-min rates replace cap, so the slowest edge paces the ring.
#include <algorithm>
#include <cmath>
#include <map>

#include "models/collectives/collective.hpp"
#include "models/collectives/comm_plan.hpp"
#include "models/collectives/copy_work.hpp"
#include "models/collectives/flow_cap.hpp"
#include "models/collectives/link_params.hpp"
#include "models/hw/links.hpp"
#include "models/nccl/env.hpp"
#include "models/nccl/tuning.hpp"
#include "sim/check.hpp"

namespace models::collectives {

namespace {

// What a collective must deliver, from the op's definition alone (not from the replay): the
// bytes all ranks receive together, and per rank (`per_rank` < 0: any positive amount, as on a
// tree whose ranks receive S times their degree). nccl-tests' size convention (collective.hpp).
//   all_reduce: each rank ends with the reduction of n buffers of S: 2(n-1)S in all (ring:
//     2(n-1)/n S per rank; tree: reduce up + broadcast down a spanning tree, 2 S per edge);
//   all_gather / reduce_scatter: each rank receives the (n-1)/n S it lacks: (n-1) S in all;
//   broadcast / reduce: n-1 ranks receive S (the chain's head receives nothing);
//   alltoall: each rank receives S/n from each of n-1 peers; send/recv: the peer receives S.
struct Delivery {
  double total = 0;
  double per_rank = 0;
  bool rooted = false;  // one rank (the chain's head) receives nothing
};

Delivery expected_delivery(CollOp op, int n, double S, bool tree) {
  if (n <= 1 || S == 0) return {};
  switch (op) {
    case CollOp::AllReduce: return {2.0 * (n - 1) * S, tree ? -1.0 : 2.0 * (n - 1) * S / n, false};
    case CollOp::AllGather:
    case CollOp::ReduceScatter: return {(n - 1) * S, (n - 1) * S / n, false};
    case CollOp::Broadcast:
    case CollOp::Reduce: return {(n - 1) * S, S, true};
    case CollOp::AllToAll: return {(n - 1) * S, (n - 1) * S / n, false};
    case CollOp::SendRecv: return {S, S, true};
  }
  return {};
}

class Engine final : public CollectiveEngine {
 public:
  Engine(sim::Simulator& sim, sim::FlowNetwork& net, const World& world, const ScenarioSpec& spec)
      : sim_(sim), net_(net), world_(world), env_(world.nccl_env().tuning) {
    params_ = LinkParams::defaults();
    params_.apply(spec.cluster.params);
    buffsize_ = world.nccl_env().buffsize;
    // Read mode's bandwidth cost depends on the GPU generation unless the scenario sets it.
    if (params_.p2p_read_bandwidth_factor < 0)
      params_.p2p_read_bandwidth_factor = hw::p2p_read_model(world.node().gpu.sm).bandwidth_factor;
  }

  void launch(const Group& group, CollOp op, int64_t bytes, Done on_done, bool in_place = false) override;
  void send_recv(int src, int dst, int64_t bytes, Done on_done) override;
  CollectiveRecord choose(const Group& group, CollOp op, int64_t bytes) const override;

 private:
  struct Pending {
    int flows_left = 0;
    CollectiveRecord record;
    Done done;
    // Audit mode (FlowNetwork::audit): what the op must deliver and what its flows delivered.
    Delivery expected;
    int64_t delivered = 0;
    int flows = 0;
    std::map<int, int64_t> received;  // World rank -> bytes its incoming flows delivered
    int group_size = 0;
  };

  const CommPlan& plan_for(const std::vector<int>& ranks) const;
  uint32_t open(const CollectiveRecord& rec, Done done);
  // link_fraction: the flow's part of its bottleneck link (1/rings sharing it); coll_share: the
  // collective's channels / default channels; channels: the channels this flow carries;
  // duplex: the edge's receiver also sends in this collective (P2P read mode pays only then).
  void add_flow(uint32_t pending, const Edge& e, double bytes, Proto proto, double link_fraction, double coll_share,
                double channels, sim::Time latency, bool duplex = true, double work = 1.0);
  void flow_done(uint32_t pending);
  void audit_delivery(const Pending& p) const;
  // One pipeline step over edge e (wire included).
  double hop(const Edge& e, Proto p, int channels = 1) const {
    return params_.of(e.link_class).hop_latency_s[static_cast<int>(p)] * serial_channels(e.link_class, channels) +
           (e.p2p_read ? params_.p2p_read_extra_latency_s : 0.0);
  }

  sim::Simulator& sim_;
  sim::FlowNetwork& net_;
  const World& world_;
  nccl::TuningEnv env_;
  LinkParams params_;
  int64_t buffsize_ = int64_t{1} << 22;  // NCCL_BUFFSIZE: Simple's FIFO per channel and peer
  mutable std::map<std::vector<int>, CommPlan> plans_;
  std::map<std::vector<int>, std::vector<Edge>> all_pairs_;  // all-to-all paths per group
  std::vector<Pending> pending_;
  std::vector<uint32_t> free_pending_;
};

const CommPlan& Engine::plan_for(const std::vector<int>& ranks) const {
  auto it = plans_.find(ranks);
  if (it == plans_.end()) it = plans_.emplace(ranks, build_plan(world_, net_, ranks)).first;
  return it->second;
}

CollectiveRecord Engine::choose(const Group& group, CollOp op, int64_t bytes) const {
  CollectiveRecord rec;
  rec.op = op;
  rec.bytes = bytes;
  rec.group_id = group.id;
  if (group.ranks.size() <= 1) return rec;
  const CommPlan& plan = plan_for(group.ranks);
  if (op == CollOp::AllToAll || op == CollOp::SendRecv) {
    rec.algo = Algo::Ring;  // NCCL runs these as point-to-point operations
    rec.proto =
        bytes / std::max<int64_t>(1, static_cast<int64_t>(group.ranks.size())) <= 16384 ? Proto::LL : Proto::Simple;
    rec.channels = plan.channels_ref;
    return rec;
  }
  const nccl::Choice c = nccl::choose(plan.view, env_, op, bytes);
  rec.algo = c.algo;
  rec.proto = c.proto;
  rec.channels = c.channels;
  return rec;
}

uint32_t Engine::open(const CollectiveRecord& rec, Done done) {
  uint32_t idx;
  if (!free_pending_.empty()) {
    idx = free_pending_.back();
    free_pending_.pop_back();
  } else {
    idx = static_cast<uint32_t>(pending_.size());
    pending_.emplace_back();
  }
  Pending& p = pending_[idx];
  p.flows_left = 0;
  p.record = rec;
  p.record.start_s = sim_.now().seconds();
  p.done = std::move(done);
  p.expected = {};
  p.delivered = 0;
  p.flows = 0;
  p.received.clear();
  return idx;
}

void Engine::add_flow(uint32_t pending, const Edge& e, double bytes, Proto proto, double link_fraction,
                      double coll_share, double channels, sim::Time latency, bool duplex, double work) {
  FlowCapInputs in;
  in.link_class = e.link_class;
  in.proto = proto;
  in.raw_bandwidth = e.raw_bandwidth;
  in.link_fraction = link_fraction;
  in.coll_share = coll_share;
  in.channels = channels;
  in.p2p_read = e.p2p_read;
  in.duplex = duplex;
  in.work = work;
  in.buffsize = buffsize_;
  const double cap = flow_rate_cap(params_, in);
  ++pending_[pending].flows_left;
  ++pending_[pending].flows;
  const int64_t b = static_cast<int64_t>(std::ceil(bytes));
  const int to = e.to;
  // `latency` is the whole pipeline's, calibrated as a whole (LinkParams hop latencies include
  // the wire), so it replaces the path's link latencies instead of adding to them.
  net_.start_with_latency(
      e.path, b,
      [this, pending, b, to] {
        if (net_.audit()) {
          pending_[pending].delivered += b;
          pending_[pending].received[to] += b;
        }
        flow_done(pending);
      },
      cap, latency);
}

// Byte conservation (audit mode): the flows of a finished collective delivered exactly what the
// op defines, in all and to every rank. Flow sizes are rounded up to whole bytes: tolerance of
// one byte per flow.
void Engine::audit_delivery(const Pending& p) const {
  const Delivery& x = p.expected;
  const double tol = p.flows + 1e-9 * x.total;
  SIM_CHECK(std::abs(static_cast<double>(p.delivered) - x.total) <= tol,
            "collective delivered a different number of bytes than its op defines");
  if (x.total == 0) return;
  int empty = 0;
  for (const auto& [rank, bytes] : p.received) {
    if (bytes == 0) ++empty;
    if (x.per_rank >= 0)
      SIM_CHECK(std::abs(static_cast<double>(bytes) - x.per_rank) <= tol,
                "collective delivered a rank a different number of bytes than its op defines");
  }
  const int receivers = static_cast<int>(p.received.size()) - empty;
  SIM_CHECK(receivers == p.group_size - (x.rooted ? 1 : 0), "collective left a rank without its data");
}

void Engine::flow_done(uint32_t idx) {
  Pending& p = pending_[idx];
  SIM_CHECK(p.flows_left > 0, "a collective finished more flows than it started");
  if (--p.flows_left > 0) return;
  if (net_.audit()) audit_delivery(p);
  p.record.end_s = sim_.now().seconds();
  Done done = std::move(p.done);
  const CollectiveRecord rec = p.record;
  free_pending_.push_back(idx);
  if (done) done(rec);
}

void Engine::launch(const Group& group, CollOp op, int64_t bytes, Done on_done, bool in_place) {
  SIM_CHECK(bytes >= 0, "a collective of negative size");
  const CollectiveRecord rec = choose(group, op, bytes);
  const uint32_t idx = open(rec, std::move(on_done));
  const sim::Time kernel = sim::Time::from_seconds(params_.kernel_latency_s);
  const int n = static_cast<int>(group.ranks.size());
  pending_[idx].expected =
      expected_delivery(op, n, static_cast<double>(bytes), rec.algo == Algo::Tree && op == CollOp::AllReduce);
  pending_[idx].group_size = n;
  if (n <= 1 || bytes == 0) {
    ++pending_[idx].flows_left;
    sim_.schedule_in(kernel, [this, idx] { flow_done(idx); });
    return;
  }
  const CommPlan& plan = plan_for(group.ranks);
  const double share = static_cast<double>(rec.channels) / plan.channels_ref;
  const double S = static_cast<double>(bytes);

  if (op == CollOp::AllToAll) {
    // Every rank sends S/n to every other rank at once, as NCCL's grouped send/recv does.
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
    for (const Edge& e : edges) max_hop = std::max(max_hop, hop(e, rec.proto));
    const sim::Time lat = kernel + sim::Time::from_seconds(max_hop);
    for (const Edge& e : edges) add_flow(idx, e, S / n, rec.proto, 1.0, 1.0, plan.channels_ref, lat);
    return;
  }

  if (rec.algo == Algo::Tree && op == CollOp::AllReduce) {
    // Reduce up the tree and broadcast down it, pipelined: every edge carries S each way; the
    // two inter-node trees each carry half the data on half the channels.
    // Several tree sets (one per NIC group, like the rings) each carry 1/sets of the data.
    double intra_hop = 0, inter_hop = 0;
    for (const Edge& e : plan.trees.front().chain_up) intra_hop = std::max(intra_hop, hop(e, rec.proto, rec.channels));
    for (const Edge& e : plan.trees.front().up[0]) inter_hop = std::max(inter_hop, hop(e, rec.proto, rec.channels));
    const int ppn = plan.view.nranks / plan.view.nnodes;
    const double lat_s = params_.kernel_latency_s +
                         2 * ((ppn - 1) * intra_hop + std::log2(static_cast<double>(plan.view.nnodes)) * inter_hop);
    const sim::Time lat = sim::Time::from_seconds(lat_s);
    for (const auto& m : plan.tree_merged)
      add_flow(idx, m.edge, S * m.bytes_frac, rec.proto, m.share_frac, share, rec.channels * m.bytes_frac, lat);
    if (pending_[idx].flows_left == 0) {  // a single rank per node and one node: nothing to move
      ++pending_[idx].flows_left;
      sim_.schedule_in(lat, [this, idx] { flow_done(idx); });
    }
    return;
  }

  // Ring (and PAT, replayed on the ring: same bytes per rank, logarithmic latency).
  double edge_bytes = S;
  int steps = n;
  switch (op) {
    case CollOp::AllReduce:
      edge_bytes = S * 2 * (n - 1) / n;
      steps = 2 * (n - 1);
      break;
    case CollOp::AllGather:
    case CollOp::ReduceScatter:
      edge_bytes = S * (n - 1) / n;
      steps = n - 1;
      break;
    default:
      edge_bytes = S;
      steps = n - 1;
      break;  // broadcast, reduce: pipelined chain from the root
  }
  double hop_sum = 0;
  for (const Edge& e : plan.rings.front()) hop_sum += hop(e, rec.proto, rec.channels);
  double lat_s = params_.kernel_latency_s + steps * hop_sum / n;
  if (rec.algo == Algo::PAT) lat_s = params_.kernel_latency_s + std::ceil(std::log2(n)) * hop_sum / n;
  const sim::Time lat = sim::Time::from_seconds(lat_s);
  const bool rooted = op == CollOp::Broadcast || op == CollOp::Reduce;
  // Each ring moves 1/rings of the data; an edge gets the channels of its bottleneck link that
  // its ring holds (a NIC: all of them; a GPU's NVLink: 1/rings, every ring crosses it).
  const double work = copy_work_vs_all_reduce(op, n, in_place);
  if (!rooted) {
    for (const auto& m : plan.ring_merged)
      add_flow(idx, m.edge, edge_bytes * m.bytes_frac, rec.proto, m.share_frac, share, rec.channels * m.bytes_frac, lat,
               true, work);
    return;
  }
  const double rings = static_cast<double>(plan.rings.size());
  for (const auto& ring : plan.rings)
    for (int i = 0; i + 1 < n; ++i)  // the ring is cut before the root: n-1 edges; the last only receives
      add_flow(idx, ring[i], edge_bytes / rings, rec.proto, 1.0 / ring[i].rings_sharing, share, rec.channels / rings,
               lat, i + 2 < n, work);
}

void Engine::send_recv(int src, int dst, int64_t bytes, Done on_done) {
  CollectiveRecord rec;
  rec.op = CollOp::SendRecv;
  rec.bytes = bytes;
  rec.proto = bytes <= 16384 ? Proto::LL : Proto::Simple;  // NCCL_P2P_LL_THRESHOLD default
  const uint32_t idx = open(rec, std::move(on_done));
  const sim::Time kernel = sim::Time::from_seconds(params_.kernel_latency_s);
  if (src != dst) {
    pending_[idx].expected = expected_delivery(CollOp::SendRecv, 2, static_cast<double>(bytes), false);
    pending_[idx].group_size = 2;
  }
  if (src == dst || bytes == 0) {
    ++pending_[idx].flows_left;
    sim_.schedule_in(kernel, [this, idx] { flow_done(idx); });
    return;
  }
  const Edge e = make_edge(world_, net_, src, dst);
  // Point to point: NCCL gives a peer many p2p channels; the link's efficiency is the limit.
  add_flow(idx, e, static_cast<double>(bytes), rec.proto, 1.0, 1.0, 1e9,
           kernel + sim::Time::from_seconds(hop(e, rec.proto)), false);
}

}  // namespace

std::unique_ptr<CollectiveEngine> make_collective_engine(sim::Simulator& sim, sim::FlowNetwork& net, const World& world,
                                                         const ScenarioSpec& spec) {
  return std::make_unique<Engine>(sim, net, world, spec);
}

}  // namespace models::collectives
