// StepExecutor: stream semantics, collective arrival matching and per-rank accounting (see
// executor.hpp for the definitions of each account).
#include "models/workload/executor.hpp"

#include <algorithm>

#include "sim/check.hpp"

namespace models::workload {

namespace {
const std::string kCpuStream = "cpu";  // timeline stream of host work
}  // namespace

StepExecutor::StepExecutor(sim::Simulator& sim, sim::FlowNetwork& net, collectives::CollectiveEngine& engine,
                           const World* world, std::vector<Program> programs, std::vector<collectives::Group> groups,
                           std::vector<RankSetup> ranks)
    : sim_(sim),
      net_(net),
      engine_(engine),
      world_(world),
      programs_(std::move(programs)),
      groups_(std::move(groups)),
      ranks_(std::move(ranks)) {
  const int n = int(ranks_.size());
  state_.resize(n);
  acct_.resize(n);
  gstate_.resize(groups_.size());
  for (std::size_t g = 0; g < groups_.size(); ++g) gstate_[g].member_seq.assign(groups_[g].ranks.size(), 0);
  slot_pos_.assign(std::size_t(n) * kMaxSlots, -1);
  for (std::size_t g = 0; g < groups_.size(); ++g) {
    const auto& members = groups_[g].ranks;
    for (std::size_t i = 0; i < members.size(); ++i) {
      const int r = members[i];
      SIM_CHECK(r >= 0 && r < n, "group member out of range");
      for (int s = 0; s < kMaxSlots; ++s)
        if (ranks_[r].group[s] == int(g)) slot_pos_[std::size_t(r) * kMaxSlots + s] = int(i);
    }
  }
  program_p2p_.assign(programs_.size(), 0);
  for (std::size_t p = 0; p < programs_.size(); ++p)
    for (const auto& stream : programs_[p].ops)
      for (const Op& op : stream) program_p2p_[p] |= op.kind == OpKind::Send || op.kind == OpKind::Recv;
  std::vector<uint64_t> timed_ops(programs_.size(), 0);
  for (std::size_t p = 0; p < programs_.size(); ++p)
    for (const auto& stream : programs_[p].ops)
      for (const Op& op : stream) timed_ops[p] += op.kind != OpKind::Record && op.kind != OpKind::Wait;
  for (int r = 0; r < n; ++r) {
    if (ranks_[r].program >= 0 && ranks_[r].program < int(programs_.size())) total_ops_ += timed_ops[ranks_[r].program];
    SIM_CHECK(ranks_[r].program >= 0 && ranks_[r].program < int(programs_.size()), "rank without program");
    const Program& p = programs_[ranks_[r].program];
    state_[r].streams.resize(p.streams());
    state_[r].events.assign(p.events, 0);
  }
  timeline_labels_.assign(n, {});
}

void StepExecutor::record_timeline(std::vector<int> ranks) { timeline_ranks_ = std::move(ranks); }

sim::Time StepExecutor::end() const {
  sim::Time t = start_;
  for (const auto& a : acct_) t = std::max(t, a.finish);
  return t;
}

void StepExecutor::run() {
  start_ranks();
  sim_.run();
  finish_run();
}

void StepExecutor::start_ranks() {
  start_ = sim_.now();
  for (auto& s : state_) s.last = start_;
  // A recorded rank that is not simulated is recorded from the rank that stands for it.
  for (int r : timeline_ranks_)
    if (r >= 0 && r < int(ranks_.size())) timeline_labels_[rep(r)].push_back(r);
  check_wall();  // a budget the set-up already spent stops the run before its first op
  if (!stopped_)
    for (int r = 0; r < int(ranks_.size()); ++r)
      if (weight(r) > 0) advance(r);
}

void StepExecutor::finish_run() {
  if (progress_report_) progress_report_(progress());
  expand_classes();
}

const Op& StepExecutor::current(int r, int s) const {
  return programs_[ranks_[r].program].ops[s][state_[r].streams[s].pc];
}

void StepExecutor::settle(int r) {
  RankState& st = state_[r];
  RankAccount& a = acct_[r];
  const sim::Time now = sim_.now();
  if (a.done) return;
  const sim::Time dt = now - st.last;
  if (dt > sim::Time::zero()) {
    if (st.comm_inflight > 0) a.comm += dt;
    if (!st.computing) {
      if (st.comm_inflight > 0)
        a.exposed += dt;
      else if (st.offload_inflight > 0)
        a.offload += dt;
    }
    add_span(r, a.parts, dt);
  }
  st.last = now;
}

// The order of the terms is step_breakdown.hpp's.
sim::Time* StepExecutor::breakdown_term(int r, StepBreakdown& b) const {
  const RankState& st = state_[r];
  if (st.computing) return &b.compute;
  if (st.comm_inflight > 0) return &b.exposed;
  if (st.offload_inflight > 0) return &b.host;
  if (st.coll_waiting > 0) return &b.barrier;
  if (st.p2p_waiting > 0) return &b.bubble;
  return &b.other;
}

void StepExecutor::add_span(int r, StepBreakdown& b, sim::Time dt) const {
  const RankState& st = state_[r];
  if (st.computing && compute_rate(r) < 1.0) {
    // Of dt at rate 1 / (1 + slowdown), dt / (1 + slowdown) is work done, the rest is lost.
    const sim::Time useful = sim::Time::from_seconds(dt.seconds() * compute_rate(r));
    b.compute += useful;
    b.interference += dt - useful;
    return;
  }
  *breakdown_term(r, b) += dt;
}

StepBreakdown StepExecutor::breakdown(int r, sim::Time step_end) const {
  const RankAccount& a = acct_[r];
  StepBreakdown b = a.parts;
  const int s = rep(r);  // the simulated rank's state is this one's
  if (a.done) {
    // Waiting for the slowest rank: the pipeline draining, or the next step's first collective.
    if (step_end > a.finish) (program_p2p_[ranks_[r].program] ? b.bubble : b.barrier) += step_end - a.finish;
  } else if (step_end > state_[s].last) {
    add_span(s, b, step_end - state_[s].last);  // a stopped run: the state it was left in
  }
  return b;
}

double StepExecutor::compute_rate(int r) const {
  return state_[r].comm_inflight > 0 && overlap_slowdown > 0 ? 1.0 / (1.0 + overlap_slowdown) : 1.0;
}

void StepExecutor::retime_compute(int r) {
  const double rate = compute_rate(r);
  const sim::Time now = sim_.now();
  for (int s = 0; s < int(state_[r].streams.size()); ++s) {
    StreamState& st = state_[r].streams[s];
    if (!st.gpu_op || st.rate == rate) continue;
    st.left_s = std::max(0.0, st.left_s - (now - st.mark).seconds() * st.rate);
    st.rate = rate;
    st.mark = now;
    sim_.cancel(st.finish_ev);
    st.finish_ev = sim_.schedule_in(sim::Time::from_seconds(st.left_s / rate), [this, r, s] { finish_op(r, s); });
  }
}

void StepExecutor::set_comm_rate_scale(std::span<const int> ranks) {
  if (comm_overlap_slowdown <= 0) return;
  const bool beside_compute = std::any_of(ranks.begin(), ranks.end(), [&](int r) { return state_[r].computing; });
  engine_.set_rate_scale(beside_compute ? 1.0 / (1.0 + comm_overlap_slowdown) : 1.0);
}

void StepExecutor::comm_begin(int r) {
  if (state_[r].comm_inflight++ == 0 && overlap_slowdown > 0) retime_compute(r);
}

void StepExecutor::comm_end(int r) {
  if (--state_[r].comm_inflight == 0 && overlap_slowdown > 0) retime_compute(r);
}

void StepExecutor::advance(int r) {
  bool changed = true;
  while (changed) {
    changed = false;
    for (int s = 0; s < int(state_[r].streams.size()); ++s) changed |= step_stream(r, s);
  }
}

bool StepExecutor::step_stream(int r, int s) {
  RankState& rs = state_[r];
  StreamState& st = rs.streams[s];
  const auto& ops = programs_[ranks_[r].program].ops[s];
  bool any = false;
  while (!st.busy && st.pc < ops.size()) {
    const Op& op = ops[st.pc];
    switch (op.kind) {
      case OpKind::Record:
        rs.events[op.arg] = 1;
        ++st.pc;
        any = true;
        continue;
      case OpKind::Wait:
        if (!rs.events[op.arg]) return any;
        ++st.pc;
        any = true;
        continue;
      case OpKind::Compute: {
        settle(r);
        st.busy = true;
        st.op_start = sim_.now();
        const Work w = Work(op.slot);
        sim::Time d = op.duration;
        if (w == Work::Host) {
          ++rs.offload_inflight;
          sim_.schedule_in(d, [this, r, s] { finish_op(r, s); });
          return true;
        }
        if (s == 0) rs.computing = true;
        if (ranks_[r].compute_scale != 1.0) d = sim::Time::from_seconds(d.seconds() * ranks_[r].compute_scale);
        st.gpu_op = true;
        st.left_s = d.seconds();
        st.rate = compute_rate(r);
        st.mark = sim_.now();
        st.finish_ev = sim_.schedule_in(st.rate == 1 ? d : sim::Time::from_seconds(st.left_s / st.rate),
                                        [this, r, s] { finish_op(r, s); });
        return true;
      }
      case OpKind::Collective:
        st.busy = true;
        st.op_start = sim_.now();
        arrive_collective(r, s, op);
        return true;
      case OpKind::Send:
      case OpKind::Recv:
        st.busy = true;
        st.op_start = sim_.now();
        arrive_p2p(r, s, op, op.kind == OpKind::Send);
        return true;
      case OpKind::Copy: {
        settle(r);
        st.busy = true;
        st.op_start = sim_.now();
        ++rs.offload_inflight;
        path_scratch_.clear();
        if (world_) {
          if (CopyDir(op.slot) == CopyDir::HostToGpu)
            world_->host_to_gpu(r, path_scratch_);
          else
            world_->gpu_to_host(r, path_scratch_);
        }
        if (path_scratch_.empty())
          sim_.schedule_in(sim::transfer_time(double(op.bytes), fallback_copy_bytes_per_s),
                           [this, r, s] { finish_op(r, s); });
        else {
          net_.set_fold_tag(folded_copies_);  // alike nodes: for every node's copy
          net_.start(path_scratch_, op.bytes, [this, r, s] { finish_op(r, s); });
          net_.set_fold_tag(false);
        }
        return true;
      }
    }
  }
  if (!st.busy && st.pc >= ops.size() && !st.ended) {
    st.ended = true;
    if (++rs.streams_done == int(rs.streams.size())) {
      settle(r);
      acct_[r].finish = sim_.now();
      acct_[r].done = true;
      done_ranks_ += weight(r);
    }
    return true;
  }
  return any;
}

void StepExecutor::finish_op(int r, int s) {
  settle(r);
  RankState& rs = state_[r];
  StreamState& st = rs.streams[s];
  const Op& op = current(r, s);
  const Program& prog = programs_[ranks_[r].program];
  switch (op.kind) {
    case OpKind::Compute:
      st.gpu_op = false;
      if (Work(op.slot) == Work::Host) {
        --rs.offload_inflight;
        acct_[r].busy_host += sim_.now() - st.op_start;
      } else {
        if (s == 0) rs.computing = false;
        acct_[r].compute += sim_.now() - st.op_start;
      }
      // Host work (CPU-Adam) is the CPU's, not the GPU stream's: the timeline shows it on "cpu".
      if (recording(r))
        note(r, s, Work(op.slot) == Work::Host ? kCpuStream : prog.stream_names[s], op.arg, {}, false, 0, st.op_start,
             nullptr);
      break;
    case OpKind::Copy:
      --rs.offload_inflight;
      if (recording(r)) note(r, s, "offload", op.arg, {}, false, op.bytes, st.op_start, nullptr);
      break;
    default: comm_end(r); break;
  }
  st.busy = false;
  ++st.pc;
  ops_done_ += uint64_t(weight(r));
  if ((++ops_seen_ & 1023) == 0) check_wall();
  advance(r);
}

void StepExecutor::check_wall() {
  if (progress_report_) progress_report_(progress());
  if (!wall_limit_s_ || stopped_) return;
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start_).count();
  if (elapsed > *wall_limit_s_) {
    stopped_ = true;
    sim_.stop();
  }
}

void StepExecutor::arrive_collective(int r, int s, const Op& op) {
  const int g = ranks_[r].group[op.slot];
  SIM_CHECK(g >= 0, "collective on a group slot this rank does not have");
  const int pos = slot_pos_[std::size_t(r) * kMaxSlots + op.slot];
  settle(r);
  ++state_[r].coll_waiting;
  GroupState& gs = gstate_[g];
  const uint64_t seq = gs.member_seq[pos]++;
  while (gs.base + gs.pending.size() <= seq) gs.pending.emplace_back();
  Instance& inst = gs.pending[seq - gs.base];
  if (inst.arrived == 0) {
    inst.stream = uint8_t(s);
    inst.op = op.coll;
    inst.bytes = op.bytes;
    inst.name = op.arg;
    inst.in_place = op.in_place;
  } else {
    SIM_CHECK(inst.op == op.coll && inst.bytes == op.bytes, "group members disagree on a collective");
  }
  inst.arrived += weight(r);  // a representative arrives for its whole class
  if (inst.arrived == group_need(g)) launch(g, seq);
}

void StepExecutor::launch(int g, uint64_t seq) {
  GroupState& gs = gstate_[g];
  Instance& inst = gs.pending[seq - gs.base];
  const sim::Time now = sim_.now();
  inst.launch = now;
  const auto& members = groups_[g].ranks;
  for (int m : simulated_members(g)) {
    settle(m);
    // Barrier wait: the collective starts when its last member arrives.
    acct_[m].barrier += now - state_[m].streams[inst.stream].op_start;
    --state_[m].coll_waiting;
    comm_begin(m);
  }
  launched_ += launches_.empty() ? 1 : uint64_t(launches_[g]);  // a replica's own: its images' too
  if (members.size() == 1) {  // a one-rank communicator moves nothing (copies are modelled as Memory ops)
    sim_.schedule_in(sim::Time::zero(), [this, g, seq] {
      collectives::CollectiveRecord rec{};
      collective_done(g, seq, rec);
    });
    return;
  }
  set_comm_rate_scale(simulated_members(g));  // a class's members compute when its representative does
  net_.set_fold_tag(folded_group(g));  // a replica's own: on folded links, for its images too
  if (!orbit_group_.empty()) engine_.set_node_orbits(orbit_group_[g]);  // replica orbits: spanning groups
  engine_.launch(
      groups_[g], inst.op, inst.bytes,
      [this, g, seq](const collectives::CollectiveRecord& rec) { collective_done(g, seq, rec); }, inst.in_place);
  if (!orbit_group_.empty()) engine_.set_node_orbits(false);
  net_.set_fold_tag(false);
  engine_.set_rate_scale(1.0);
}

void StepExecutor::collective_done(int g, uint64_t seq, const collectives::CollectiveRecord& rec) {
  GroupState& gs = gstate_[g];
  Instance& inst = gs.pending[seq - gs.base];
  const uint8_t s = inst.stream;
  inst.done = true;
  for (int m : simulated_members(g)) {
    if (recording(m))
      // The member's own op names it: members may run different programs (Megatron's embedding
      // group spans the first and the last pipeline stage).
      note(m, s, programs_[ranks_[m].program].stream_names[s], current(m, s).arg, inst.op, true, inst.bytes,
           inst.launch, &rec);
    finish_op(m, s);
  }
  while (!gs.pending.empty() && gs.pending.front().done) {
    gs.pending.pop_front();
    ++gs.base;
  }
}

void StepExecutor::arrive_p2p(int r, int s, const Op& op, bool is_send) {
  const int peer = ranks_[r].peer[op.slot];
  SIM_CHECK(peer >= 0 && peer != r, "send/recv without a peer");
  settle(r);
  // The side posted first waits (p2p_waiting) until the other side is posted.
  auto matched = [this](int waiting) {
    settle(waiting);
    --state_[waiting].p2p_waiting;
  };
  if (is_send) {
    Channel& ch = channels_[(uint64_t(uint32_t(r)) << 32) | uint32_t(peer)];
    if (!ch.recvs.empty()) {
      const Pending p = ch.recvs.front();
      ch.recvs.pop_front();
      matched(p.rank);
      start_transfer(r, uint8_t(s), p.rank, p.stream, op.bytes);
    } else {
      ch.sends.push_back(Pending{r, uint8_t(s), op.bytes});
      ++state_[r].p2p_waiting;
    }
  } else {
    Channel& ch = channels_[(uint64_t(uint32_t(peer)) << 32) | uint32_t(r)];
    if (!ch.sends.empty()) {
      const Pending p = ch.sends.front();
      ch.sends.pop_front();
      matched(p.rank);
      start_transfer(p.rank, p.stream, r, uint8_t(s), p.bytes);
    } else {
      ch.recvs.push_back(Pending{r, uint8_t(s), op.bytes});
      ++state_[r].p2p_waiting;
    }
  }
}

void StepExecutor::start_transfer(int src, uint8_t ss, int dst, uint8_t ds, int64_t bytes) {
  settle(src);
  settle(dst);
  // Barrier wait at send/recv (pipeline stages): the transfer starts when both sides have
  // arrived; the one that came first waited for the other.
  acct_[src].barrier += sim_.now() - state_[src].streams[ss].op_start;
  acct_[dst].barrier += sim_.now() - state_[dst].streams[ds].op_start;
  comm_begin(src);
  comm_begin(dst);
  const uint64_t key = (uint64_t(uint32_t(src)) << 32) | uint32_t(dst);
  if (p2p_seen_.insert(key).second) p2p_pairs_.emplace_back(src, dst);
  const sim::Time started = sim_.now();
  const int pair[2] = {src, dst};
  set_comm_rate_scale(pair);
  net_.set_fold_tag(folded_rank(src));  // a replica's own pipeline transfer, for its images too
  const int comm = ranks_[src].peer_comm[current(src, ss).slot];
  engine_.send_recv(
      src, dst, bytes,
      [this, src, ss, dst, ds, bytes, started](const collectives::CollectiveRecord& rec) {
        for (auto [r, s] : {std::pair<int, int>{src, ss}, std::pair<int, int>{dst, ds}}) {
          if (recording(r))
            note(r, s, programs_[ranks_[r].program].stream_names[s], current(r, s).arg, nccl::CollOp::SendRecv, true,
                 bytes, started, &rec);
          finish_op(r, s);
        }
      },
      comm >= 0 ? &groups_[comm].ranks : nullptr);
  net_.set_fold_tag(false);
  engine_.set_rate_scale(1.0);
}

void StepExecutor::note(int r, int s, const std::string& stream, uint32_t name, nccl::CollOp op, bool is_coll,
                        int64_t bytes, sim::Time start, const collectives::CollectiveRecord* rec) {
  TimelineEvent e;
  e.stream = stream;
  e.name = programs_[ranks_[r].program].names[name];
  if (is_coll) e.op = nccl::coll_op_name(op);
  e.start_s = (start - start_).seconds();
  e.end_s = (sim_.now() - start_).seconds();
  e.bytes = bytes;
  if (rec && rec->channels > 0) {
    e.algo = nccl::algo_name(rec->algo);
    e.proto = nccl::proto_name(rec->proto);
  }
  for (int label : timeline_labels_[r]) {  // r itself, or the recorded ranks it stands for
    e.rank = label;
    timeline_.push_back(e);
  }
}

}  // namespace models::workload
