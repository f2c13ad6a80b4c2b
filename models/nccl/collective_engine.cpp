// The collective engine: NCCL's choice (tuning.cpp) + its replay as flows on the network.
//
// Physics of one collective on idle links (tested in tests/models/collective_*.cpp):
// where hop = the calibrated per-step latency of the edge's link class and protocol (wire included:
// the World's link latencies are not added again);
//   ring all-reduce:  T = kernel + 2(n-1) * hop + (2(n-1)/n * S) / cap,  cap = eta * B * C / Cref
//   ring all-gather / reduce-scatter (S = total): T = kernel + (n-1) * hop + ((n-1)/n * S) / cap
//   ring broadcast / reduce: T = kernel + (n-1) * hop + S / cap
//   tree all-reduce: T = kernel + 2((ppn-1) hop_intra + log2(nodes) hop_inter) + S / cap
//   send/recv: T = kernel + hop + S / cap;   all-to-all: every pair at once, S/n each.
// With contention the flows' max-min rates replace cap, so the slowest edge paces the ring.
#include <cmath>
#include <map>

#include "models/nccl/collective.hpp"
#include "models/nccl/comm_plan.hpp"
#include "models/nccl/link_params.hpp"
#include "models/nccl/tuning.hpp"
#include "sim/check.hpp"

namespace models::nccl {

namespace {

class Engine final : public CollectiveEngine {
 public:
  Engine(sim::Simulator& sim, sim::FlowNetwork& net, const World& world, const ScenarioSpec& spec)
      : sim_(sim), net_(net), world_(world), env_(TuningEnv::from(spec.nccl_env)) {
    params_ = LinkParams::defaults();
    params_.apply(spec.cluster.params);
  }

  void launch(const Group& group, CollOp op, int64_t bytes, Done on_done) override;
  void send_recv(int src, int dst, int64_t bytes, Done on_done) override;
  CollectiveRecord choose(const Group& group, CollOp op, int64_t bytes) const override;

 private:
  struct Pending {
    int flows_left = 0;
    CollectiveRecord record;
    Done done;
  };

  const CommPlan& plan_for(const std::vector<int>& ranks) const;
  uint32_t open(const CollectiveRecord& rec, Done done);
  void add_flow(uint32_t pending, const Edge& e, double bytes, Proto proto, double channel_share,
                sim::Time latency);
  void flow_done(uint32_t pending);
  // One pipeline step over edge e (wire included).
  double hop(const Edge& e, Proto p) const { return params_.of(e.link_class).hop_latency_s[static_cast<int>(p)]; }

  sim::Simulator& sim_;
  sim::FlowNetwork& net_;
  const World& world_;
  TuningEnv env_;
  LinkParams params_;
  mutable std::map<std::vector<int>, CommPlan> plans_;
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
    rec.proto = bytes / std::max<int64_t>(1, static_cast<int64_t>(group.ranks.size())) <= 16384 ? Proto::LL : Proto::Simple;
    rec.channels = plan.channels_ref;
    return rec;
  }
  const Choice c = nccl::choose(plan.view, env_, op, bytes);
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
  return idx;
}

void Engine::add_flow(uint32_t pending, const Edge& e, double bytes, Proto proto, double channel_share,
                      sim::Time latency) {
  const double eta = params_.of(e.link_class).efficiency[static_cast<int>(proto)];
  const double cap = eta * e.raw_bandwidth * channel_share;
  ++pending_[pending].flows_left;
  // `latency` is the whole pipeline's, calibrated as a whole (LinkParams hop latencies include
  // the wire), so it replaces the path's link latencies instead of adding to them.
  net_.start_with_latency(e.path, static_cast<int64_t>(std::ceil(bytes)), [this, pending] { flow_done(pending); }, cap,
                          latency);
}

void Engine::flow_done(uint32_t idx) {
  Pending& p = pending_[idx];
  SIM_CHECK(p.flows_left > 0, "a collective finished more flows than it started");
  if (--p.flows_left > 0) return;
  p.record.end_s = sim_.now().seconds();
  Done done = std::move(p.done);
  const CollectiveRecord rec = p.record;
  free_pending_.push_back(idx);
  if (done) done(rec);
}

void Engine::launch(const Group& group, CollOp op, int64_t bytes, Done on_done) {
  SIM_CHECK(bytes >= 0, "a collective of negative size");
  const CollectiveRecord rec = choose(group, op, bytes);
  const uint32_t idx = open(rec, std::move(on_done));
  const sim::Time kernel = sim::Time::from_seconds(params_.kernel_latency_s);
  const int n = static_cast<int>(group.ranks.size());
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
    double max_hop = 0;
    std::vector<Edge> edges;
    for (int a : group.ranks)
      for (int b : group.ranks)
        if (a != b) edges.push_back(make_edge(world_, net_, a, b));
    for (const Edge& e : edges) max_hop = std::max(max_hop, hop(e, rec.proto));
    const sim::Time lat = kernel + sim::Time::from_seconds(max_hop);
    for (const Edge& e : edges) add_flow(idx, e, S / n, rec.proto, 1.0, lat);
    return;
  }

  if (rec.algo == Algo::Tree && op == CollOp::AllReduce) {
    // Reduce up the tree and broadcast down it, pipelined: every edge carries S each way; the
    // two inter-node trees each carry half the data on half the channels.
    double intra_hop = 0, inter_hop = 0;
    for (const Edge& e : plan.chain_edges) intra_hop = std::max(intra_hop, hop(e, rec.proto));
    for (const Edge& e : plan.tree_edges[0]) inter_hop = std::max(inter_hop, hop(e, rec.proto));
    const int ppn = plan.view.nranks / plan.view.nnodes;
    const double lat_s = params_.kernel_latency_s +
                         2 * ((ppn - 1) * intra_hop + std::log2(static_cast<double>(plan.view.nnodes)) * inter_hop);
    const sim::Time lat = sim::Time::from_seconds(lat_s);
    for (const Edge& e : plan.chain_edges) {
      add_flow(idx, e, S, rec.proto, share, lat);
      add_flow(idx, make_edge(world_, net_, e.to, e.from), S, rec.proto, share, lat);
    }
    for (int t = 0; t < 2; ++t)
      for (const Edge& e : plan.tree_edges[t]) {
        add_flow(idx, e, S / 2, rec.proto, share / 2, lat);
        add_flow(idx, make_edge(world_, net_, e.to, e.from), S / 2, rec.proto, share / 2, lat);
      }
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
    case CollOp::AllReduce: edge_bytes = S * 2 * (n - 1) / n; steps = 2 * (n - 1); break;
    case CollOp::AllGather:
    case CollOp::ReduceScatter: edge_bytes = S * (n - 1) / n; steps = n - 1; break;
    default: edge_bytes = S; steps = n - 1; break;  // broadcast, reduce: pipelined chain from the root
  }
  double hop_sum = 0;
  for (const Edge& e : plan.ring_edges) hop_sum += hop(e, rec.proto);
  double lat_s = params_.kernel_latency_s + steps * hop_sum / n;
  if (rec.algo == Algo::PAT) lat_s = params_.kernel_latency_s + std::ceil(std::log2(n)) * hop_sum / n;
  const sim::Time lat = sim::Time::from_seconds(lat_s);
  const bool rooted = op == CollOp::Broadcast || op == CollOp::Reduce;
  for (int i = 0; i < n; ++i) {
    if (rooted && i == n - 1) continue;  // the ring is cut before the root: n-1 edges
    add_flow(idx, plan.ring_edges[i], edge_bytes, rec.proto, share, lat);
  }
}

void Engine::send_recv(int src, int dst, int64_t bytes, Done on_done) {
  CollectiveRecord rec;
  rec.op = CollOp::SendRecv;
  rec.bytes = bytes;
  rec.proto = bytes <= 16384 ? Proto::LL : Proto::Simple;  // NCCL_P2P_LL_THRESHOLD default
  const uint32_t idx = open(rec, std::move(on_done));
  const sim::Time kernel = sim::Time::from_seconds(params_.kernel_latency_s);
  if (src == dst || bytes == 0) {
    ++pending_[idx].flows_left;
    sim_.schedule_in(kernel, [this, idx] { flow_done(idx); });
    return;
  }
  const Edge e = make_edge(world_, net_, src, dst);
  add_flow(idx, e, static_cast<double>(bytes), rec.proto, 1.0, kernel + sim::Time::from_seconds(hop(e, rec.proto)));
}

}  // namespace

std::unique_ptr<CollectiveEngine> make_collective_engine(sim::Simulator& sim, sim::FlowNetwork& net,
                                                         const World& world, const ScenarioSpec& spec) {
  return std::make_unique<Engine>(sim, net, world, spec);
}

const char* coll_op_name(CollOp op) {
  switch (op) {
    case CollOp::AllReduce: return "all_reduce";
    case CollOp::AllGather: return "all_gather";
    case CollOp::ReduceScatter: return "reduce_scatter";
    case CollOp::Broadcast: return "broadcast";
    case CollOp::Reduce: return "reduce";
    case CollOp::AllToAll: return "alltoall";
    case CollOp::SendRecv: return "sendrecv";
  }
  return "?";
}

bool parse_coll_op(const std::string& s, CollOp& out) {
  for (CollOp op : {CollOp::AllReduce, CollOp::AllGather, CollOp::ReduceScatter, CollOp::Broadcast,
                    CollOp::Reduce, CollOp::AllToAll, CollOp::SendRecv})
    if (s == coll_op_name(op)) {
      out = op;
      return true;
    }
  if (s == "all_to_all") { out = CollOp::AllToAll; return true; }
  if (s == "send_recv") { out = CollOp::SendRecv; return true; }
  return false;
}

const char* algo_name(Algo a) {
  switch (a) {
    case Algo::Tree: return "Tree";
    case Algo::Ring: return "Ring";
    case Algo::PAT: return "PAT";
    case Algo::CollNetDirect: return "CollNetDirect";
    case Algo::CollNetChain: return "CollNetChain";
    case Algo::NVLS: return "NVLS";
    case Algo::NVLSTree: return "NVLSTree";
  }
  return "?";
}

const char* proto_name(Proto p) {
  switch (p) {
    case Proto::LL: return "LL";
    case Proto::LL128: return "LL128";
    case Proto::Simple: return "Simple";
  }
  return "?";
}

}  // namespace models::nccl
