#pragma once
// models::collectives::CollectiveEngine: replays NCCL collectives as flows on the sim::FlowNetwork, so
// concurrent collectives and other traffic share links (contention is real, not assumed).
//
// Granularity (why): one bulk flow per ring edge (or tree edge) carrying all the bytes that edge
// moves, rate-capped as flow_cap.hpp states (link efficiency or channels x per-channel rate for
// the chosen protocol), plus the pipeline's fixed latency (base + steps x per-hop latency). In steady state a pipelined
// ring moves at the pace of its slowest edge, which is what these flows reproduce; per-chunk events would cost 2(n-1) x
// chunks events per collective and change the answer by less than the measurement noise (see README, "Granularity").
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "models/nccl/ops.hpp"
#include "models/result.hpp"
#include "models/world/world.hpp"
#include "sim/flow_network.hpp"
#include "sim/inplace_function.hpp"
#include "sim/simulator.hpp"

namespace models::collectives {

// The collectives speak NCCL's vocabulary of ops, algorithms and protocols (models/nccl/ops.hpp).
using nccl::Algo;
using nccl::CollOp;
using nccl::Proto;

// A group of ranks (a NCCL communicator). Ranks are World ranks; order is the communicator order.
struct Group {
  std::vector<int> ranks;
  int id = 0;        // for reports
  std::string name;  // "dp", "tp0", "world"
};

// What was launched and when, for timelines and nccl-tests emulation.
struct CollectiveRecord {
  CollOp op;
  int64_t bytes = 0;
  Algo algo = Algo::Ring;
  Proto proto = Proto::Simple;
  int channels = 0;
  double start_s = 0, end_s = 0;
  int group_id = 0;
};

class CollectiveEngine;
std::unique_ptr<CollectiveEngine> make_collective_engine(sim::Simulator& sim, sim::FlowNetwork& net, const World& world,
                                                         const ScenarioSpec& spec);

class CollectiveEngine {
 public:
  using Done = sim::InplaceFunction<void(const CollectiveRecord&), 48>;
  virtual ~CollectiveEngine() = default;

  // Starts `op` over `group` now; all members are taken to have arrived (the caller models
  // arrival and barrier waits). `bytes` follows nccl-tests' size convention: the buffer each
  // rank reduces (all_reduce), the total gathered (all_gather/reduce_scatter), the root's
  // buffer (broadcast/reduce), the total each rank sends (alltoall). `on_done` runs when the
  // last rank has its data. `in_place`: the send buffer is the rank's slice of the receive
  // buffer (all_gather), which spares the local copy of the first step.
  virtual void launch(const Group& group, CollOp op, int64_t bytes, Done on_done, bool in_place = false) = 0;
  // Point to point: `bytes` from rank `src` to rank `dst` (World ranks), as ncclSend/ncclRecv.
  // `comm`: the communicator's ranks (its size and channels set the transfer's p2p channels,
  // p2p_channels.hpp); none: a communicator of the two, as PyTorch's ProcessGroupNCCL creates
  // for a send/recv pair.
  virtual void send_recv(int src, int dst, int64_t bytes, Done on_done, const std::vector<int>* comm = nullptr) = 0;
  // Flows of the operations launched from now on run at `scale` of their rate cap (1: unchanged);
  // the step executor lowers it for a collective launched beside compute (comm.overlap_slowdown).
  virtual void set_rate_scale(double scale) { (void)scale; }
  // The algorithm, protocol and channels NCCL's tuner would pick (no simulation).
  virtual CollectiveRecord choose(const Group& group, CollOp op, int64_t bytes) const = 0;
  // Node orbits (models/scale/step/replicas.hpp, alike_nodes_fold: every node alike, one simulated for
  // all). On: a collective starts only the flows that leave the first node (World node 0), each
  // standing for its images on the other nodes (node k's flow is node 0's moved k nodes on,
  // modulo the node count); the caller routes them onto folded links (FlowNetwork folded links), where
  // the first node's links stand for every node's. That is the full network's traffic exactly when
  // the collective's flows are invariant under that move (same bytes, cap and latency, the image
  // path, no two hops on the same link of two nodes): checked on the whole list of flows at the
  // first launch of each (communicator, op, size), then remembered. A collective that fails it
  // stops the simulator and orbit_failure() says why (the caller then simulates every rank).
  virtual void set_node_orbits(bool on) { (void)on; }
  // Orbits of a block translation instead (models/scale/step/replica_orbits.cpp: data-parallel
  // replicas of several nodes each): per node its block (0 .. blocks - 1, -1: none) and its place
  // in the block; the move takes node (k, place) to (k + 1 mod blocks, place), and the flows kept
  // are those leaving block 0. Set before the first launch with orbits on.
  virtual void set_orbit_blocks(std::vector<int> block_of_node, std::vector<int> place_of_node) {
    (void)block_of_node;
    (void)place_of_node;
  }
  virtual std::string orbit_failure() const { return {}; }
  // GPU rotation fold (models/collectives/rotation_fold.cpp): on, a tree all-reduce (NVLSTree,
  // Tree) over whole alike nodes whose flows are invariant under moving every node's GPUs on
  // (models/scale/gpu_rotation.hpp) starts one flow per orbit (one tree set's, the first GPUs'
  // ports and chains), each standing for its images, on folded links (FlowNetwork folded links, set at
  // the first such launch, which needs an idle network). Exact while no other traffic meets a
  // folded link's class on the real links: the network's guard stops the run otherwise
  // (fold_violated(); the caller then runs without the fold). Off by default; never with node
  // orbits or replicas (they own the folded links).
  virtual void set_rotation_fold(bool on) { (void)on; }
  // Launches that ran folded so far.
  virtual uint64_t rotation_folds() const { return 0; }
  // All-to-all launches folded (all_to_all_fold.hpp) and laid out pair by pair so far, and why the
  // first of the latter was not folded.
  struct AllToAllFolds {
    uint64_t folded = 0, whole = 0;
    std::string why_not;
  };
  virtual AllToAllFolds alltoall_folds() const { return {}; }
};

}  // namespace models::collectives
