// The collective engine's shared core (engine.hpp): NCCL's choice, the per-group plans, one
// collective's flows and their completion, and the byte-conservation audit. The algorithms are
// in ring.cpp, tree.cpp and point_to_point.cpp; every flow's cap is flow_rate_cap (flow_cap.hpp).
#include "models/collectives/engine.hpp"

#include <algorithm>
#include <cmath>

#include "models/collective_size.hpp"
#include "models/collectives/copy_work.hpp"
#include "models/collectives/flow_cap.hpp"
#include "models/hw/links.hpp"
#include "models/nccl/env.hpp"
#include "sim/check.hpp"

namespace models::collectives {

// The bytes each op delivers (nccl-tests' size convention, collective.hpp):
//   all_reduce: each rank ends with the reduction of n buffers of S: 2(n-1)S in all (ring:
//     2(n-1)/n S per rank; tree: reduce up + broadcast down a spanning tree, 2 S per edge);
//   all_gather / reduce_scatter: each rank receives the (n-1)/n S it lacks: (n-1) S in all;
//   broadcast / reduce: n-1 ranks receive S (the chain's head receives nothing);
//   alltoall: each rank receives S/n from each of n-1 peers; send/recv: the peer receives S.
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

Engine::Engine(sim::Simulator& sim, sim::FlowNetwork& net, const World& world, const ScenarioSpec& spec)
    : sim_(sim), net_(net), world_(world), env_(world.nccl_env().tuning) {
  params_ = LinkParams::for_world(world);  // EFA by generation (models/hw/efa_generations.hpp)
  params_.apply(spec.cluster.params);
  buffsize_ = world.nccl_env().buffsize;
  nvls_chunk_ = world.nccl_env().nvls_chunksize;
  nvlstree_max_chunk_ = world.nccl_env().nvlstree_max_chunksize;
  // Read mode's bandwidth cost depends on the GPU generation unless the scenario sets it; in a
  // mixed cluster ([[cluster.groups]]) on each edge's own GPUs (flow_cap).
  read_by_gpu_ = params_.p2p_read_bandwidth_factor < 0;
  if (read_by_gpu_) params_.p2p_read_bandwidth_factor = hw::p2p_read_model(world.node().gpu.sm).bandwidth_factor;
  // NVLink's channel rate was measured on H200: other generations get it by the transfer rule
  // (link_params.hpp nvlink_channel_bandwidth_for) unless the scenario or its profile sets it.
  channel_by_gpu_ = !spec.cluster.params.count("nvlink.channel_bandwidth");
  if (channel_by_gpu_) {
    ClassParams& nv = params_.of(LinkClass::NVLink);
    h200_channel_rate_ = nv.channel_bandwidth;
    nv.channel_bandwidth = nvlink_channel_bandwidth_for(world.node().gpu.sm, h200_channel_rate_);
  }
  // NVLink's Simple efficiency by NVLink generation unless the scenario or its profile sets it
  // (hw::nvlink_simple_efficiency; the World's port capacities follow the same rule).
  nvlink_eff_by_gen_ = !spec.cluster.params.count("nvlink.efficiency.simple");
  if (nvlink_eff_by_gen_) {
    registered_nvlink_simple_ = params_.of(LinkClass::NVLink).efficiency[static_cast<int>(Proto::Simple)];
    nvlink_efficiency_by_gen(params_.of(LinkClass::NVLink), world.node().nvlink_gen);
  }
  // Point-to-point CTAs keep the measured rate on every generation (link_params.hpp
  // nvlink_channel_bandwidth_for says why).
  p2p_params_ = params_;
  if (channel_by_gpu_) p2p_params_.of(LinkClass::NVLink).channel_bandwidth = h200_channel_rate_;
}

void Engine::nvlink_efficiency_by_gen(ClassParams& nv, int nvlink_gen) const {
  // LL and LL128 keep their registered values (NCCL's ratios to the former 0.74 of every
  // generation): scaled with Simple's 0.79 they put the 4 x H200 curves 3-4 points further off
  // at 1-64 MiB.
  nv.efficiency[static_cast<int>(Proto::Simple)] = hw::nvlink_simple_efficiency(nvlink_gen, registered_nvlink_simple_);
}

CollectiveRecord Engine::choose(const Group& group, CollOp op, int64_t bytes) const {
  CollectiveRecord rec;
  rec.op = op;
  rec.bytes = bytes;
  rec.group_id = group.id;
  if (group.ranks.size() <= 1) return rec;
  PlanEntry& entry = plan_for(group);
  const CommPlan& plan = entry.plan;
  if (op == CollOp::AllToAll || op == CollOp::SendRecv) {
    rec.algo = Algo::Ring;  // NCCL runs these as point-to-point operations
    const int64_t part = bytes / std::max<int64_t>(1, static_cast<int64_t>(group.ranks.size()));
    rec.proto =
        p2p_uses_ll(p2p_channels_of(plan), static_cast<int>(group.ranks.size()), part) ? Proto::LL : Proto::Simple;
    rec.channels = plan.channels_ref;
    return rec;
  }
  const nccl::Choice& c = tuned(entry, op, bytes);
  rec.algo = c.algo;
  rec.proto = c.proto;
  rec.channels = c.channels;
  return rec;
}

void Engine::launch(const Group& group, CollOp op, int64_t bytes, Done on_done, bool in_place) {
  SIM_CHECK(bytes >= 0, "a collective of negative size");
  check_collective_bytes(static_cast<double>(bytes), "collective.bytes");  // a user error, never an abort
  const CollectiveRecord rec = choose(group, op, bytes);
  const uint32_t idx = open(rec, std::move(on_done));
  const int n = static_cast<int>(group.ranks.size());
  const bool tree = rec.algo == Algo::Tree && op == CollOp::AllReduce;
  const bool nvls_tree = rec.algo == Algo::NVLSTree && op == CollOp::AllReduce;
  const bool nvls = rec.algo == Algo::NVLS && (op == CollOp::AllReduce || op == CollOp::AllGather ||
                                               op == CollOp::ReduceScatter);  // RS, AG on one node (tuning.cpp)
  const bool collnet = (rec.algo == Algo::CollNetDirect || rec.algo == Algo::CollNetChain) && op == CollOp::AllReduce;
  pending_[idx].expected = expected_delivery(op, n, static_cast<double>(bytes), tree);
  pending_[idx].group_size = n;
  if (n <= 1 || bytes == 0) {
    // One rank moves nothing across links; out of place it copies its buffer in device memory.
    const double copy_s = n == 1 && !in_place
                              ? one_rank_copy_seconds(static_cast<double>(bytes), world_.node().gpu.hbm_bytes_per_s)
                              : 0.0;
    complete_after(idx, sim::Time::from_seconds(params_.kernel_latency_s + copy_s));
    return;
  }
  PlanEntry& entry = plan_for(group);
  // NVLSTree folded by the GPU rotation where it may run so now (rotation_fold.cpp); a part laid
  // out folded is laid out again when it may not.
  const scale::GpuRotation* rot = nvls_tree ? fold_rotation() : nullptr;
  if (nvls_tree && !rot) unfold_nvls_tree(entry.plan);
  // The algorithm's part of the plan, laid out on its first launch (all-to-all needs none).
  complete_plan(world_, net_, entry.plan,
                op == CollOp::AllToAll ? 0u
                : tree                 ? kPlanTrees
                : nvls_tree            ? kPlanNvlsTree
                : nvls                 ? kPlanNvls
                : collnet              ? (rec.algo == Algo::CollNetDirect ? kPlanCollNet : kPlanChain)
                                       : kPlanRings,
                rot);
  const CommPlan& plan = entry.plan;
  if (nvls_tree) pending_[idx].expected = nvls_tree_delivery(n, plan.view.nnodes, static_cast<double>(bytes));
  if (nvls) pending_[idx].expected = nvls_delivery(op, n, plan.view.nnodes, static_cast<double>(bytes));
  if (collnet) pending_[idx].expected = collnet_delivery(rec.algo, n, plan.view.nnodes, static_cast<double>(bytes));
  const Launch l{.pending = idx,
                 .plan = &plan,
                 .cache = &entry,
                 .rec = rec,
                 .n = n,
                 .S = static_cast<double>(bytes),
                 .share = static_cast<double>(rec.channels) / plan.channels_ref,
                 .in_place = in_place};
  // The same collective on the same communicator repeats a remembered closed form in O(1) when
  // the network is idle (sim::FlowNetwork::start_cached_block); else its flows are built. The
  // shape is named by (op, bytes, in_place): everything else its flows depend on (paths, channels
  // by size, link capacities) is fixed per communicator and run, except rate_scale_ (comm beside
  // compute), so a scaled launch neither uses nor names a remembered shape.
  static_assert(kMaxCollectiveBytes < (int64_t{1} << 55), "a collective's size must fit its shape's name");
  uint64_t unnamed = 0;
  uint64_t& shape =
      rate_scale_ == 1.0 ? entry.block_shapes[PlanCache::choice_key(op, bytes) ^ (uint64_t{in_place} << 55)] : unnamed;
  if (shape != 0 && net_.start_cached_block(shape, [this, idx] { flow_done(idx); })) {
    ++pending_[idx].flows_left;
    ++pending_[idx].flows;
    return;
  }
  if (orbits_) {
    if (!orbit_failure_.empty()) return;  // the run is being abandoned
    if (const auto it = shape != 0 ? orbit_flows_.find(shape) : orbit_flows_.end(); it != orbit_flows_.end()) {
      block_ = it->second.flows;  // checked at this shape's first launch
      block_info_ = it->second.info;
      pending_[idx].flows_left += static_cast<int>(block_.size());
      pending_[idx].flows += static_cast<int>(block_.size());
      start_flows(idx, shape);
      return;
    }
  }
  if (shape == 0 && rate_scale_ == 1.0) shape = net_.new_shape();  // unique on the network, which jobs share
  collecting_ = true;
  if (op == CollOp::AllToAll)
    launch_all_to_all(group, l);
  else if (tree)
    launch_tree_all_reduce(l);
  else if (nvls_tree)
    launch_nvls_tree_all_reduce(l);
  else if (nvls)
    launch_nvls(l);
  else if (collnet)
    launch_collnet_all_reduce(l);
  else
    launch_ring(l);  // and PAT, replayed on the ring
  collecting_ = false;
  if (orbits_) {
    if (!keep_orbits(idx, rec)) return;
    if (shape != 0) orbit_flows_[shape] = {block_, block_info_};
  }
  if (folded_launch_) {  // one tree set's flows, on their links' folded links (rotation_fold.cpp)
    folded_launch_ = false;
    const bool tag = net_.fold_tag();
    net_.set_fold_tag(true);
    start_flows(idx, shape);
    net_.set_fold_tag(tag);
    return;
  }
  start_flows(idx, shape);
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
  p.fold_run = kNoFoldRun;
  return idx;
}

double Engine::flow_cap(const Edge& e, const FlowShape& f, double scale) const {
  // scale: comm.overlap_slowdown (set_rate_scale), a collective launched beside compute.
  const LinkParams* params = &params_;
  LinkParams own;
  const bool nvlink_rate = channel_by_gpu_ && e.link_class == LinkClass::NVLink;
  const bool nvlink_eff = nvlink_eff_by_gen_ && e.link_class == LinkClass::NVLink;
  if (world_.mixed() && ((read_by_gpu_ && e.p2p_read) || nvlink_rate || nvlink_eff)) {
    // NVLink inside a node of a mixed cluster: that node's GPUs' read factor, channel rate and
    // efficiencies.
    const hw::NodeSpec& node = world_.node_of(world_.rank(e.to).node);
    const int sm = node.gpu.sm;
    own = params_;
    if (read_by_gpu_ && e.p2p_read) own.p2p_read_bandwidth_factor = hw::p2p_read_model(sm).bandwidth_factor;
    if (nvlink_rate)
      own.of(LinkClass::NVLink).channel_bandwidth =
          f.point_to_point ? h200_channel_rate_ : nvlink_channel_bandwidth_for(sm, h200_channel_rate_);
    if (nvlink_eff) nvlink_efficiency_by_gen(own.of(LinkClass::NVLink), node.nvlink_gen);
    params = &own;
  } else if (nvlink_rate && f.point_to_point) {
    params = &p2p_params_;
  }
  return scale * flow_rate_cap(*params, {.link_class = e.link_class,
                                         .proto = f.proto,
                                         .raw_bandwidth = e.raw_bandwidth,
                                         .simple_raw_factor = e.simple_raw_factor,
                                         .link_fraction = f.link_fraction,
                                         .coll_share = f.coll_share,
                                         .channels = f.channels,
                                         .p2p_read = e.p2p_read,
                                         .duplex = f.duplex,
                                         .work = f.work,
                                         .channel_gain = f.channel_gain,
                                         .buffsize = buffsize_,
                                         .thread_share = f.thread_share,
                                         .port_bound = f.port_bound,
                                         .point_to_point = f.point_to_point});
}

void Engine::add_merged_flows(uint32_t pending, std::span<const CommPlan::MergedEdge> edges, const FlowShape& whole,
                              bool split_channels, ThreadShares shares) {
  block_.reserve(block_.size() + edges.size());  // one growth, not a doubling series (786k flows at 131k GPUs)
  block_info_.reserve(block_info_.size() + edges.size());
  for (const auto& m : edges) add_flow(pending, m.edge, merged_flow_shape(m, whole, split_channels, shares));
}

FlowShape merged_flow_shape(const CommPlan::MergedEdge& m, const FlowShape& whole, bool split_channels,
                            ThreadShares shares) {
  FlowShape f = whole;
  f.bytes = whole.bytes * m.bytes_frac;
  f.link_fraction = m.share_frac;
  f.channels = split_channels ? whole.channels * m.bytes_frac : whole.channels;
  // Up and down data on one edge move by different threads at once: the edge takes as long as the
  // slower of the two at its share, max(up / s_up, down / s_down), over the bytes of both.
  const double down = m.down_frac, up = m.bytes_frac - m.down_frac;
  const double slowest = std::max(up / shares.up, down / shares.down);
  if (slowest > 0) f.thread_share = m.bytes_frac / slowest;
  return f;
}

void Engine::add_flow(uint32_t pending, const Edge& e, const FlowShape& f) {
  double cap = flow_cap(e, f, rate_scale_);
  if (f.max_rate > 0) cap = std::min(cap, rate_scale_ * f.max_rate);
  ++pending_[pending].flows_left;
  ++pending_[pending].flows;
  const int64_t b = static_cast<int64_t>(std::ceil(f.bytes));
  // `latency` is the whole pipeline's, calibrated as a whole (LinkParams hop latencies include
  // the wire), so it replaces the path's link latencies instead of adding to them.
  block_.push_back({.path = e.path, .bytes = b, .rate_cap = cap, .latency = f.latency});
  block_info_.push_back({.bytes = b, .to = e.to, .from = e.from});
  if (!collecting_) start_flows(pending);
}

void Engine::start_flows(uint32_t pending, uint64_t shape) {
  if (block_.empty()) return;
  const int k = static_cast<int>(block_.size());
  if (net_.start_block(
          block_, [this, pending] { flow_done(pending); }, shape)) {
    pending_[pending].flows_left -= k - 1;  // one completion for the block
  } else {
    // The flows alone on idle links still run as one closed-form block (FlowNetwork::
    // start_solo_block; NVLSTree's NVLink port flows beside its tree's shared NIC flows): one
    // completion for them, the others as flows.
    const uint32_t solo = k > 1 ? net_.start_solo_block(
                                      block_, [this, pending] { flow_done(pending); }, solo_)
                                : 0;
    if (solo > 0) pending_[pending].flows_left -= static_cast<int>(solo) - 1;
    for (int i = 0; i < k; ++i) {
      if (solo > 0 && solo_[i]) continue;
      const int64_t b = block_info_[i].bytes;
      const int to = block_info_[i].to;
      net_.start_with_latency(
          block_[i].path, b,
          [this, pending, b, to] {
            if (net_.audit()) {
              pending_[pending].delivered += b;
              pending_[pending].received[to] += b;
            }
            flow_done(pending);
          },
          block_[i].rate_cap, block_[i].latency);
    }
  }
  block_.clear();
  block_info_.clear();
}

void Engine::complete_after(uint32_t pending, sim::Time after) {
  ++pending_[pending].flows_left;
  sim_.schedule_in(after, [this, pending] { flow_done(pending); });
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
  if (p.fold_run != kNoFoldRun) {  // its watch ends with it
    net_.unwatch(fold_runs_[p.fold_run].watch);
    fold_runs_[p.fold_run].ids.clear();
    free_fold_runs_.push_back(p.fold_run);
    p.fold_run = kNoFoldRun;
  }
  p.record.end_s = sim_.now().seconds();
  Done done = std::move(p.done);
  const CollectiveRecord rec = p.record;
  free_pending_.push_back(idx);
  if (done) done(rec);
}

std::unique_ptr<CollectiveEngine> make_collective_engine(sim::Simulator& sim, sim::FlowNetwork& net, const World& world,
                                                         const ScenarioSpec& spec) {
  return std::make_unique<Engine>(sim, net, world, spec);
}

}  // namespace models::collectives
