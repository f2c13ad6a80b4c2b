#pragma once
// models::workload::StepExecutor: runs every rank's Program on the simulator, matching collectives
// across group members and sends with receives, and keeps per-rank accounts:
//   compute   = time the compute stream ran Math/Memory ops
//   comm      = time at least one collective or transfer of the rank was moving data
//   exposed   = time the compute stream was idle while such communication was in flight
//   barrier   = per collective, (last member's arrival - own arrival): waiting for slower ranks;
//               per send/recv, (the peer's arrival - own arrival) on the side that came first
//   offload   = time the compute stream was idle while only host work or PCIe copies ran
// and a StepBreakdown (step_breakdown.hpp) that partitions the rank's step into named terms.
// RunResult's barrier_wait_s is the breakdown's barrier term (idle time only; a pipeline stage's
// idle wait for its send/recv peer is bubble there), not the per-stream `barrier` account above.
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "models/collectives/collective.hpp"
#include "models/result.hpp"
#include "models/scale/step_fold.hpp"
#include "models/workload/program.hpp"
#include "models/workload/step_breakdown.hpp"
#include "models/world/world.hpp"
#include "sim/flow_network.hpp"
#include "sim/simulator.hpp"

namespace models::workload {

struct RankAccount {
  sim::Time compute, comm, exposed, barrier, offload, finish;
  sim::Time busy_host;
  StepBreakdown parts;  // up to `finish` (or the last settlement of an unfinished rank)
  bool done = false;
};

class StepExecutor {
 public:
  // `world` may be null (tests): PCIe copies then take bytes / fallback_copy_bytes_per_s.
  StepExecutor(sim::Simulator& sim, sim::FlowNetwork& net, collectives::CollectiveEngine& engine, const World* world,
               std::vector<Program> programs, std::vector<collectives::Group> groups, std::vector<RankSetup> ranks);
  StepExecutor(const StepExecutor&) = delete;
  StepExecutor& operator=(const StepExecutor&) = delete;

  // Ranks whose ops are recorded on the timeline (default: none).
  void record_timeline(std::vector<int> ranks);
  // Wall-clock budget counted from `since` (run_scenario passes its own start, so the set-up's
  // time counts too); a budget already spent stops the run before its first op.
  void set_wall_limit(std::optional<double> seconds,
                      std::chrono::steady_clock::time_point since = std::chrono::steady_clock::now()) {
    wall_limit_s_ = seconds;
    wall_start_ = since;
  }
  // Called with progress() every 1,024 simulated operations and once when the run ends (a long
  // run's progress line); empty: none.
  void set_progress(std::function<void(double fraction)> report) { progress_report_ = std::move(report); }
  double fallback_copy_bytes_per_s = 25e9;
  // Compute-communication interference: while a collective or send/recv is in flight on a rank,
  // its GPU compute runs at 1 / (1 + overlap_slowdown) of its rate (NCCL's CTAs hold SMs and
  // the compute kernels lose whole waves; see compute.overlap_slowdown in models/params.cpp).
  double overlap_slowdown = 0;
  // The converse (comm.overlap_slowdown, 0 until measured): a collective or
  // send/recv launched while one of its ranks runs GPU compute moves at 1 / (1 + this) of its rate,
  // for its whole life (first order: it is not re-timed when the compute ends).
  double comm_overlap_slowdown = 0;

  // Simulate one representative per class of identical ranks (scale::rank_classes; all ranks
  // simulated: nothing to do); call before run().
  void simulate_classes(const scale::RankClasses& classes);
  // Simulate the fold's ranks (`f.applies()`: data-parallel replicas, replica orbits or alike
  // nodes, models/scale/step/replicas.hpp), their own traffic on the network's folded links;
  // call before run(). Recorded ranks of other replicas are recorded from the ranks that stand for
  // them. After run(), the guard (scale::guard_failure) says whether the run is valid.
  void simulate_fold(scale::StepFold f);
  // With rank classes (no copies): only the collectives' flows as node orbits (`f`: alike_nodes'
  // fold, applied), on the network's folded links; call before run().
  void simulate_node_orbits(scale::StepFold f);

  // Starts every rank now and runs the simulator until all programs end (or the wall-clock
  // limit stops it: then stopped() is true).
  void run();
  // run() in its parts, for several executors on one simulator (jobs sharing a fabric,
  // models/run/jobs.hpp): start_ranks() on each, the simulator's run(), then finish_run() on each.
  void start_ranks();
  void finish_run();
  bool stopped() const { return stopped_; }
  bool all_done() const { return done_ranks_ == int(ranks_.size()); }
  sim::Time start() const { return start_; }
  sim::Time end() const;                        // latest finish
  sim::Time now() const { return sim_.now(); }  // where a stopped run got to

  const RankAccount& account(int r) const { return acct_[r]; }
  // The rank's breakdown of [start(), step_end): its own partition plus the wait from its last
  // op (or from where a stopped run left it) to step_end; total() == step_end - start().
  StepBreakdown breakdown(int r, sim::Time step_end) const;
  const std::vector<TimelineEvent>& timeline() const { return timeline_; }
  const std::vector<collectives::Group>& groups() const { return groups_; }
  const std::vector<RankSetup>& ranks() const { return ranks_; }
  const std::vector<Program>& programs() const { return programs_; }
  // Ordered rank pairs that exchanged point-to-point data.
  const std::vector<std::pair<int, int>>& p2p_pairs() const { return p2p_pairs_; }
  uint64_t collectives_launched() const { return launched_; }
  // Share of the step's timed operations (compute, copies, collectives, send/recv; summed over
  // ranks) that finished: 1 after a complete run, less where --time-limit stopped it.
  double progress() const { return total_ops_ > 0 ? double(ops_done_) / double(total_ops_) : 1.0; }

 private:
  struct StreamState {
    uint32_t pc = 0;
    bool busy = false;
    sim::Time op_start;  // arrival (collective, send/recv) or start (others)
    bool ended = false;
    // A running GPU compute op: its finish event, the work left (seconds at full rate) at
    // `mark`, and the rate it has run at since then.
    bool gpu_op = false;
    sim::EventId finish_ev{};
    double left_s = 0;
    double rate = 1;
    sim::Time mark;
  };
  struct RankState {
    std::vector<StreamState> streams;
    std::vector<uint8_t> events;
    sim::Time last;  // last accounting update
    int comm_inflight = 0;
    int offload_inflight = 0;
    bool computing = false;
    int streams_done = 0;
    int coll_waiting = 0;  // streams at a collective not every member has reached
    int p2p_waiting = 0;   // streams at a send/recv whose peer has not posted the other side
  };
  struct Instance {
    uint32_t arrived = 0;
    uint8_t stream = 0;
    nccl::CollOp op{};
    int64_t bytes = 0;
    uint32_t name = 0;
    bool in_place = false;
    bool done = false;
    sim::Time launch;
  };
  struct GroupState {
    std::deque<Instance> pending;
    uint64_t base = 0;                 // sequence number of pending.front()
    std::vector<uint64_t> member_seq;  // next sequence per member position
  };
  struct Pending {
    int rank;
    uint8_t stream;
    int64_t bytes;
  };
  struct Channel {
    std::deque<Pending> sends, recvs;
  };

  const Op& current(int r, int s) const;
  void advance(int r);
  bool step_stream(int r, int s);  // runs instantaneous ops; true if something changed
  void finish_op(int r, int s);
  void settle(int r);                                          // accounting up to now
  sim::Time* breakdown_term(int r, StepBreakdown& b) const;    // the term time goes to now
  void add_span(int r, StepBreakdown& b, sim::Time dt) const;  // dt in the current state
  double compute_rate(int r) const;                      // 1, or 1 / (1 + overlap_slowdown) while comm is in flight
  void set_comm_rate_scale(std::span<const int> ranks);  // comm_overlap_slowdown at a launch
  void retime_compute(int r);                            // re-plans running GPU compute ops after the rate changed
  void comm_begin(int r);
  void comm_end(int r);
  void arrive_collective(int r, int s, const Op& op);
  void launch(int g, uint64_t seq);
  void collective_done(int g, uint64_t seq, const collectives::CollectiveRecord& rec);
  void arrive_p2p(int r, int s, const Op& op, bool is_send);
  void start_transfer(int src, uint8_t src_stream, int dst, uint8_t dst_stream, int64_t bytes);
  void note(int r, int s, const std::string& stream, uint32_t name, nccl::CollOp op, bool is_coll, int64_t bytes,
            sim::Time start, const collectives::CollectiveRecord* rec);
  bool recording(int r) const { return !timeline_ranks_.empty() && !timeline_labels_[r].empty(); }
  void check_wall();

  sim::Simulator& sim_;
  sim::FlowNetwork& net_;
  collectives::CollectiveEngine& engine_;
  const World* world_;
  std::vector<Program> programs_;
  std::vector<collectives::Group> groups_;
  std::vector<RankSetup> ranks_;
  std::vector<RankState> state_;
  std::vector<RankAccount> acct_;
  std::vector<uint8_t> program_p2p_;  // per program: it sends or receives (a pipeline stage)
  std::vector<GroupState> gstate_;
  std::vector<int> slot_pos_;  // [rank * kMaxSlots + slot]: position of the rank in that group
  std::unordered_map<uint64_t, Channel> channels_;
  std::vector<std::pair<int, int>> p2p_pairs_;
  std::unordered_set<uint64_t> p2p_seen_;
  std::vector<int> timeline_ranks_;
  std::vector<std::vector<int>> timeline_labels_;  // per simulated rank: the recorded ranks it stands for
  std::vector<TimelineEvent> timeline_;
  std::vector<sim::LinkId> path_scratch_;
  sim::Time start_;
  // Folded ranks (executor_folds.cpp); empty: every rank simulated.
  std::vector<int> weight_;                  // per rank: ranks it stands for (0: not simulated)
  std::vector<int> rep_;                     // per rank: its representative
  std::vector<std::vector<int>> group_sim_;  // per group: its simulated members
  std::vector<uint32_t> group_need_;         // per group: arrivals (weights) that launch it
  // Replicas or alike nodes (simulate_fold); empty otherwise.
  std::vector<uint8_t> folded_group_;     // per group: a simulated replica's own (flows on folded links)
  std::vector<int> launches_;             // per group: instances one launch stands for
  std::vector<std::vector<int>> images_;  // per simulated rank: the ranks it stands for, itself first
  bool folded_copies_ = false;            // alike nodes: copies on folded links
  std::vector<uint8_t> orbit_group_;      // replica orbits: per group, launched as orbits (spanning)
  int weight(int r) const { return weight_.empty() ? 1 : weight_[r]; }
  int rep(int r) const { return rep_.empty() ? r : rep_[r]; }
  uint32_t group_need(int g) const { return group_need_.empty() ? uint32_t(groups_[g].ranks.size()) : group_need_[g]; }
  bool folded_group(int g) const { return !folded_group_.empty() && folded_group_[g]; }
  bool folded_rank(int r) const { return !images_.empty() && images_[r].size() > 1; }
  const std::vector<int>& simulated_members(int g) const { return weight_.empty() ? groups_[g].ranks : group_sim_[g]; }
  void set_simulated(std::vector<int> weight, std::vector<int> rep);  // weights, reps and group members
  void expand_classes();  // copies representatives' accounts (and transfers) to the ranks they stand for
  int done_ranks_ = 0;
  uint64_t launched_ = 0;
  uint64_t ops_done_ = 0;   // weighted: a representative's op counts for its class
  uint64_t ops_seen_ = 0;   // ops finished by simulated ranks (the wall-clock check's cadence)
  uint64_t total_ops_ = 0;  // timed operations of every rank's program
  bool stopped_ = false;
  std::optional<double> wall_limit_s_;
  std::chrono::steady_clock::time_point wall_start_;
  std::function<void(double)> progress_report_;
};

}  // namespace models::workload
