#pragma once
// The collective engine's shared core: NCCL's choice (models/nccl/tuning.cpp), the communicator
// plans, the flows of one collective and its completion. The algorithms that turn a collective
// into flows live one per file, each opening with its closed form:
//   ring.cpp            ring all-reduce / all-gather / reduce-scatter, broadcast/reduce chains, PAT
//   tree.cpp            tree all-reduce (chain inside a node, double binary tree across nodes)
//   nvls_tree.cpp       NVLSTree all-reduce (NVSwitch reduction inside nodes, heads' tree across)
//   nvls.cpp            NVLS (NVSwitch reduction; across nodes with SHARP between the heads)
//   collnet.cpp         CollNetDirect / CollNetChain all-reduce (SHARP in the InfiniBand switches)
//   point_to_point.cpp  send/recv and all-to-all
// Every flow's rate cap is flow_rate_cap (flow_cap.hpp, its one statement); its fixed latency is
// the algorithm's pipeline latency (kernel + steps x hop), which replaces the path's link
// latencies (LinkParams hop latencies are calibrated with the wire included).
// Internal to models/collectives: users hold a CollectiveEngine (collective.hpp).
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "models/collectives/all_to_all_fold.hpp"
#include "models/collectives/collective.hpp"
#include "models/collectives/plan_cache.hpp"
#include "models/comm_plan/comm_plan.hpp"
#include "models/comm_plan/link_params.hpp"
#include "models/comm_plan/p2p_channels.hpp"
#include "models/nccl/tuning.hpp"
#include "models/scale/gpu_rotation.hpp"

namespace models::collectives {

// What a collective must deliver, from the op's definition alone (not from the replay): the
// bytes all ranks receive together, and per rank (`per_rank` < 0: any positive amount, as on a
// tree whose ranks receive S times their degree). Checked in audit mode (FlowNetwork::audit).
struct Delivery {
  double total = 0;
  double per_rank = 0;
  bool rooted = false;  // one rank (the chain's head) receives nothing
};
Delivery expected_delivery(CollOp op, int n, double S, bool tree);
Delivery nvls_tree_delivery(int n, int nodes, double S);           // NVLSTree all-reduce (nvls_tree.cpp)
Delivery nvls_delivery(CollOp op, int n, int nodes, double S);     // NVLS (nvls.cpp)
Delivery collnet_delivery(Algo algo, int n, int nodes, double S);  // CollNet all-reduce (collnet.cpp)

// The shape of one flow along an edge: what it moves, its fixed latency and what its rate cap
// depends on besides the edge (flow_cap.hpp; the edge gives link class, raw bandwidth and read
// mode). Pass it with designated initializers: add_flow(p, e, {.bytes = S, .proto = ...}).
struct FlowShape {
  double bytes = 0;
  Proto proto = Proto::Simple;
  double link_fraction = 1;  // the flow's part of its bottleneck link (1 / rings sharing it)
  double coll_share = 1;     // the collective's channels / default channels
  double channels = 1;       // channels this flow carries
  sim::Time latency;         // the whole pipeline's; replaces the path's link latencies
  bool duplex = true;        // the edge's receiver also sends in this collective (P2P read pays only then)
  double work = 1;           // copy_work_vs_all_reduce
  double channel_gain = 1;   // ring_channel_gain: a ring CTA's rate over the measured 2-rank all-reduce's
  double max_rate = 0;       // bytes/s allowed besides the cap: a switch's aggregation (SHARP), NVLS's
                             // copy warps (nvls.cpp); 0: none
  double thread_share = 1;   // the CTA's threads moving it, over a ring's (a tree's split: flow_cap.hpp)
  bool port_bound = false;   // NVLS's switch ports: the link's cap alone (flow_cap.hpp)
  bool point_to_point = false;  // send/recv, all-to-all
};

// A tree's CTA split (pipeline_fill.hpp tree_split_threads): the threads reducing up and those
// broadcasting down, each over a ring's CTA of the same protocol.
struct ThreadShares {
  double up = 1, down = 1;
};
// The flow of one merged edge of `whole` (add_merged_flows): its bytes, link share, channels and
// the thread share of its up and down data.
FlowShape merged_flow_shape(const CommPlan::MergedEdge& m, const FlowShape& whole, bool split_channels,
                            ThreadShares shares);

// One launched collective as the algorithms see it.
struct Launch {
  uint32_t pending = 0;  // the collective's bookkeeping slot
  const CommPlan* plan = nullptr;
  PlanEntry* cache = nullptr;  // the plan's caches
  CollectiveRecord rec;        // op, algorithm, protocol, channels (NCCL's choice)
  int n = 0;                   // ranks
  double S = 0;                // bytes, nccl-tests' size convention (collective.hpp)
  double share = 1;            // rec.channels / plan->channels_ref
  bool in_place = false;
};

class Engine final : public CollectiveEngine {
 public:
  Engine(sim::Simulator& sim, sim::FlowNetwork& net, const World& world, const ScenarioSpec& spec);

  void launch(const Group& group, CollOp op, int64_t bytes, Done on_done, bool in_place = false) override;
  void send_recv(int src, int dst, int64_t bytes, Done on_done,
                 const std::vector<int>* comm = nullptr) override;  // point_to_point.cpp
  CollectiveRecord choose(const Group& group, CollOp op, int64_t bytes) const override;
  void set_rate_scale(double scale) override { rate_scale_ = scale; }
  void set_node_orbits(bool on) override { orbits_ = on; }
  void set_orbit_blocks(std::vector<int> block_of_node, std::vector<int> place_of_node) override {
    block_of_node_ = std::move(block_of_node);
    place_of_node_ = std::move(place_of_node);
  }
  std::string orbit_failure() const override { return orbit_failure_; }
  void set_rotation_fold(bool on) override { rotation_on_ = on; }
  uint64_t rotation_folds() const override { return rotation_folds_; }
  AllToAllFolds alltoall_folds() const override { return alltoall_folds_; }

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
    uint32_t fold_run = kNoFoldRun;  // a folded all-to-all's state (fold_runs_)
  };
  static constexpr uint32_t kNoFoldRun = UINT32_MAX;
  // A folded all-to-all in flight (all_to_all_fold.hpp; point_to_point.cpp).
  struct FoldRun {
    const Fold* fold = nullptr;
    const std::vector<int>* ranks = nullptr;  // the group
    std::vector<sim::FlowId> ids;             // per folded flow
    uint32_t watch = 0;
    uint32_t pending = 0;
    int64_t pair_bytes = 0;
    FlowShape pair;  // one pair's flow (bytes aside)
    double rate_scale = 1;
  };

  // The algorithms (one file each).
  void launch_ring(const Launch& l);                  // ring.cpp
  void launch_tree_all_reduce(const Launch& l);       // tree.cpp
  void launch_nvls_tree_all_reduce(const Launch& l);  // nvls_tree.cpp
  void launch_nvls(const Launch& l);                  // nvls.cpp
  void launch_collnet_all_reduce(const Launch& l);    // collnet.cpp
  // Flows of S on `sharp` (the heads' NICs to and from the SHARP switches; collnet.cpp).
  void add_sharp_flows(const Launch& l, const std::vector<CommPlan::MergedEdge>& sharp, sim::Time lat);
  void launch_all_to_all(const Group& group, const Launch& l);  // point_to_point.cpp
  // The fold (all_to_all_fold.hpp): starts the folded flows and returns true, or returns false
  // (no fold for this group, or its links busy): the caller starts the pairs.
  bool launch_folded(const Group& group, const Launch& l, FlowShape pair);
  void folded_flow_done(uint32_t run, uint32_t flow);
  void unfold(uint32_t run);  // a flow arrived on the fold's links: back to pairs

  // The communicator's p2p channels (p2p_channels.hpp; point_to_point.cpp).
  P2pChannels p2p_channels_of(const CommPlan& plan) const;

  // The shared core (engine.cpp).
  // Cached per communicator (plan_cache.cpp): its plan, NCCL's choice, and the pipeline latency
  // terms of ring.cpp and tree.cpp per protocol and channels.
  PlanEntry& plan_for(const Group& group) const;
  const nccl::Choice& tuned(PlanEntry& entry, CollOp op, int64_t bytes) const;
  // The sum of the ring's hops, and the largest step floor on it (ClassParams::step_floor_s: every
  // ring step passes a message through every edge, so no step is shorter).
  std::pair<double, double> ring_hops(const Launch& l) const;
  std::pair<double, double> tree_hops(const Launch& l) const;
  double tree_inter_hop(const Launch& l) const;  // tree_hops' second, without the chains (NVLSTree)
  uint32_t open(const CollectiveRecord& rec, Done done);
  // Adds a flow of the collective `pending`: buffered while a launch collects its flows (then
  // started together by start_flows), else started at once (send/recv).
  void add_flow(uint32_t pending, const Edge& e, const FlowShape& f);
  // One flow per merged edge (CommPlan::MergedEdge) of `whole`, the shape of all of them together:
  // each moves its bytes_frac of whole.bytes on share_frac of its link, and carries its bytes_frac
  // of whole.channels when `split_channels` (else every channel: all edges cross the same ports).
  // `shares`: the tree's thread split (up and down, over a ring's CTA; else 1 and 1).
  void add_merged_flows(uint32_t pending, std::span<const CommPlan::MergedEdge> edges, const FlowShape& whole,
                        bool split_channels = true, ThreadShares shares = {});
  double flow_cap(const Edge& e, const FlowShape& f, double scale) const;  // scale x flow_rate_cap
  // NVLink's Simple efficiency for an NVLink generation (hw::nvlink_simple_efficiency).
  void nvlink_efficiency_by_gen(ClassParams& nv, int nvlink_gen) const;
  // Starts the buffered flows of `pending`: as one closed-form block if their links are idle
  // (sim::FlowNetwork::start_block: one completion for the collective), else one by one.
  void start_flows(uint32_t pending, uint64_t shape = 0);
  // A collective that moves nothing: it completes `after` from now.
  void complete_after(uint32_t pending, sim::Time after);
  void flow_done(uint32_t pending);
  // Node orbits (node_orbits.cpp): checks that the buffered flows of `pending` (the whole
  // collective's) are invariant under moving every node one on, and keeps only those leaving
  // node 0. False: not invariant; the run is stopped and orbit_failure_ says why.
  bool keep_orbits(uint32_t pending, const CollectiveRecord& rec);
  void audit_delivery(const Pending& p) const;
  // GPU rotation fold (rotation_fold.cpp): the World's rotation when a folded NVLSTree may run
  // now (fold on, the rotation a symmetry, the folded links set or settable), else null; and the
  // launch's flows as folded (the folded links set now if not yet).
  const scale::GpuRotation* fold_rotation();
  void start_folded();
  // A merged edge list folded by the rotation: the indices of the edges kept (one per orbit), or
  // null (no fold now, or the list is not invariant). Remembered per list.
  const std::vector<uint32_t>* rotation_kept(const std::vector<CommPlan::MergedEdge>& edges);
  // One pipeline step over edge e (wire included; the switch tiers of a [cluster.fabric] added);
  // read mode's handshake only with Simple, the one protocol whose buffer read mode moves
  // (flow_cap.cpp, NCCL src/transport/p2p.cc). Never below 0 (fabric_latency_s may be negative: a
  // nic.latency below the catalog's) nor below its class's step floor (a net plugin's cost per
  // message).
  double hop(const Edge& e, Proto p, int channels = 1) const {
    const ClassParams& cp = params_.of(e.link_class);
    return std::max(cp.step_floor_s, cp.hop_latency_s[static_cast<int>(p)] * serial_channels(e.link_class, channels) +
                                         (e.p2p_read && p == Proto::Simple ? params_.p2p_read_extra_latency_s : 0.0) +
                                         e.fabric_latency_s);
  }

  sim::Simulator& sim_;
  sim::FlowNetwork& net_;
  const World& world_;
  nccl::TuningEnv env_;
  LinkParams params_;
  LinkParams p2p_params_;                // params_ with NVLink's measured per-channel rate (point-to-point flows)
  bool channel_by_gpu_ = false;          // nvlink.channel_bandwidth by GPU generation (not set by the scenario)
  bool nvlink_eff_by_gen_ = false;       // NVLink's Simple efficiency by NVLink generation (not set)
  double registered_nvlink_simple_ = 0;  // its registered (NVLink 4) value, carried by the rule
  double h200_channel_rate_ = 0;         // its registered (H200-measured) default, carried by the rule
  bool read_by_gpu_ = false;             // p2p.read.bandwidth_factor by GPU generation (not set by the scenario)
  int64_t buffsize_ = int64_t{1} << 22;  // NCCL_BUFFSIZE: Simple's FIFO per channel and peer
  int64_t nvls_chunk_ = int64_t{1} << 17, nvlstree_max_chunk_ = -2;  // NCCL_NVLS_CHUNKSIZE, _NVLSTREE_MAX_
  double rate_scale_ = 1;                // set_rate_scale: comm beside compute
  mutable PlanCache plans_;
  std::map<std::vector<int>, std::vector<Edge>> all_pairs_;  // all-to-all paths per group
  std::map<std::vector<int>, FoldOrReason> folds_;           // all-to-all folds per group
  std::vector<FoldRun> fold_runs_;
  std::vector<uint32_t> free_fold_runs_;
  struct Buffered {
    int64_t bytes = 0;
    int to = 0;    // receiving World rank (audit)
    int from = 0;  // sending World rank (node orbits)
  };
  // Node orbits (set_node_orbits): on, the flows kept per block shape after the check, and why a
  // collective failed it.
  bool orbits_ = false;
  std::string orbit_failure_;
  struct OrbitFlows {
    std::vector<sim::BlockFlow> flows;
    std::vector<Buffered> info;
  };
  std::unordered_map<uint64_t, OrbitFlows> orbit_flows_;
  std::vector<int> node_of_link_;                   // per link: its node (-1: none), built at the first check
  std::vector<int> block_of_node_, place_of_node_;  // set_orbit_blocks; empty: each node a block
  std::deque<std::vector<sim::LinkId>> lifted_paths_;  // ECMP orbits: the kept flows' paths (scale::lift_shared_hops)
  bool collecting_ = false;
  // GPU rotation fold (set_rotation_fold): on; the World's rotation (built at the first NVLSTree
  // launch); each plan's verdict; folded launches; whether the launch being built is folded.
  bool rotation_on_ = false;
  std::unique_ptr<scale::GpuRotation> rotation_;
  uint64_t rotation_folds_ = 0;
  AllToAllFolds alltoall_folds_;
  std::unordered_map<const void*, std::optional<std::vector<uint32_t>>> kept_edges_;
  bool folded_launch_ = false;
  std::vector<sim::BlockFlow> block_;  // the launch's flows (paths point into cached plans)
  std::vector<Buffered> block_info_;
  std::vector<uint8_t> solo_;  // start_flows: which of block_ ran alone (FlowNetwork::start_solo_block)
  std::vector<Pending> pending_;
  std::vector<uint32_t> free_pending_;
};

}  // namespace models::collectives
