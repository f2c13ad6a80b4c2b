// Closed-form blocks of flows (FlowNetwork::start_block, flow_network.hpp).
//
// A flow alone on every link of its path is a max-min component of its own: progressive filling
// fixes it at its first constraint, rate = cap if cap <= the narrowest capacity c_min, else c_min
// (the expression of rate_single_flow, so the same double), and it drains after
// transfer_time(bytes, rate) (the rounding apply_rate uses), its last byte arriving `latency`
// later. A block whose flows cross only idle links, none shared, is therefore solved at its
// start: drain_i = start + transfer_time(bytes_i, rate_i), the block ends at max(drain_i +
// latency_i). Nothing can change a rate until another flow arrives on one of its links; that
// flow's attach() materializes the block first: every flow not yet drained becomes a real flow
// with the state it would have had (remaining = total and last_update = start, rate_i, its drain
// event at drain_i), so the recompute of that instant, and every later one, is the flow engine's.
// Links are credited (bytes, busy time) when the block's last flow drains, when another block
// takes a link over, or at materialization; link_bytes()/link_busy() add a held flow's share
// meanwhile. Tests: tests/sim/flow_block_test.cpp.
#include <algorithm>
#include <cmath>

#include "sim/check.hpp"
#include "sim/flow_network.hpp"

namespace sim {

bool FlowNetwork::start_block(std::span<const BlockFlow> flows, Completion on_all_done, uint64_t shape) {
  if (!closed_forms() || flows.empty()) return false;
  if (exclusive_ != UINT32_MAX) demote(exclusive_);  // its links are not marked: mark them
  const Time now = sim_.now();
  // Every link idle and used once: a fresh mark value (recompute compares marks only with the
  // epoch it raises first, so this one is never seen there).
  ++epoch_;
  for (const BlockFlow& bf : flows) {
    if (bf.bytes <= 0) continue;  // never on a link (start_impl)
    for (LinkId id : bf.path) {
      SIM_CHECK(id.index < links_.size(), "flow path names an unknown link");
      Link& l = links_[route(id.index)];
      if (!l.flows.empty() || l.mark == epoch_ || (l.held_by != UINT32_MAX && l.held_until > now)) return false;
      l.mark = epoch_;
    }
  }
  uint32_t b;
  if (!free_blocks_.empty()) {
    b = free_blocks_.back();
    free_blocks_.pop_back();
  } else {
    b = static_cast<uint32_t>(blocks_.size());
    blocks_.emplace_back();
  }
  Block& k = blocks_[b];
  if (k.flows.size() < flows.size()) k.flows.resize(flows.size());
  k.count = static_cast<uint32_t>(flows.size());
  k.solution = UINT32_MAX;
  k.start = now;
  k.last_drain = now;
  k.finish = now;
  k.floor = now;
  k.on_all_done = std::move(on_all_done);
  k.outstanding = 0;
  k.materialized = false;
  k.credited = false;
  for (uint32_t i = 0; i < k.count; ++i) {
    const BlockFlow& bf = flows[i];
    SIM_CHECK(bf.bytes >= 0, "a flow cannot carry a negative number of bytes");
    SIM_CHECK(bf.rate_cap > 0, "a flow's rate cap must be positive");
    SIM_CHECK(bf.latency >= Time::zero(), "a flow's latency must not be negative");
    HeldFlow& h = k.flows[i];
    h.total = static_cast<double>(bf.bytes);
    h.cap = bf.rate_cap;
    h.latency = bf.latency;
    h.links.clear();
    h.rate = 0;
    h.drain = now;
    if (bf.bytes > 0 && bf.path.empty()) {  // no shared resource: its own cap (start_impl)
      h.rate = std::isfinite(h.cap) ? h.cap : 0;
      if (std::isfinite(h.cap)) h.drain = now + transfer_time(h.total, h.cap);
    } else if (bf.bytes > 0) {
      double narrowest = kUnlimitedRate;
      for (LinkId id : bf.path) {
        const uint32_t li = route(id.index);
        Link& l = links_[li];
        narrowest = std::min(narrowest, l.capacity);
        if (l.held_by != UINT32_MAX) credit_links(l.held_by, l.held_flow);  // drained, not credited yet
        h.links.push_back(li);
      }
      h.rate = h.cap <= narrowest ? h.cap : narrowest;
      h.drain = now + transfer_time(h.total, h.rate);
      for (uint32_t li : h.links) {
        Link& l = links_[li];
        l.held_by = b;
        l.held_flow = i;
        l.held_until = h.drain;
        if (folded()) occupy(li, false, h.drain);
      }
    }
    k.last_drain = std::max(k.last_drain, h.drain);
    k.finish = std::max(k.finish, h.drain + h.latency);
  }
  ++blocks_closed_;
  ++live_blocks_;
  k.event = sim_.schedule_at(k.last_drain, [this, b] { block_drained(b); });
  if (shape != 0 && !solution_of_shape_.contains(shape)) {  // remember it, times relative to its start
    Solution sol;
    sol.flows.resize(k.count);
    for (uint32_t i = 0; i < k.count; ++i) {
      const HeldFlow& h = k.flows[i];
      HeldFlow& c = sol.flows[i];
      for (uint32_t li : h.links) c.links.push_back(li);
      c.total = h.total;
      c.rate = h.rate;
      c.cap = h.cap;
      c.latency = h.latency;
      c.drain = h.drain - now;
    }
    sol.last_drain = k.last_drain - now;
    sol.finish = k.finish - now;
    solution_of_shape_.emplace(shape, static_cast<uint32_t>(solutions_.size()));
    solutions_.push_back(std::move(sol));
  }
  return true;
}

uint32_t FlowNetwork::start_solo_block(std::span<const BlockFlow> flows, Completion on_all_done,
                                       std::vector<uint8_t>& solo) {
  solo.assign(flows.size(), 0);
  if (!closed_forms() || flows.empty()) return 0;
  if (exclusive_ != UINT32_MAX) demote(exclusive_);  // its links are not marked: mark them
  const Time now = sim_.now();
  // Uses per link among `flows`, counted in its `local` field (rate_component's scratch, which
  // numbers links afresh under a new epoch): the first use under this mark sets it.
  ++epoch_;
  for (const BlockFlow& bf : flows) {
    if (bf.bytes <= 0) continue;  // never on a link (start_impl)
    for (LinkId id : bf.path) {
      SIM_CHECK(id.index < links_.size(), "flow path names an unknown link");
      Link& l = links_[route(id.index)];
      if (l.mark != epoch_) {
        l.mark = epoch_;
        l.local = 0;
      }
      ++l.local;
    }
  }
  solo_flows_.clear();
  for (std::size_t i = 0; i < flows.size(); ++i) {
    const BlockFlow& bf = flows[i];
    bool alone = true;
    if (bf.bytes > 0)
      for (LinkId id : bf.path) {
        const Link& l = links_[route(id.index)];
        if (l.local != 1 || !l.flows.empty() || (l.held_by != UINT32_MAX && l.held_until > now)) {
          alone = false;
          break;
        }
      }
    if (!alone) continue;
    solo[i] = 1;
    solo_flows_.push_back(bf);
  }
  if (solo_flows_.empty()) return 0;
  // Room for the flows the caller starts next (a 131,072-GPU NVLSTree starts half a million):
  // once, instead of growing the records by doubling (each growth moves every record).
  const std::size_t need = flows_.size() + (flows.size() - solo_flows_.size());
  if (need > flows_.capacity() && need - flows_.size() > free_flows_.size()) {
    flows_.reserve(need);
    flow_mark_.reserve(need);
    flow_pos_.reserve(need);
    new_rate_.reserve(need);
  }
  const bool closed = start_block(solo_flows_, std::move(on_all_done));
  SIM_CHECK(closed, "flows alone on idle links must run in closed form");
  return static_cast<uint32_t>(solo_flows_.size());
}

bool FlowNetwork::start_cached_block(uint64_t shape, Completion on_all_done) {
  if (!closed_forms() || shape == 0 || active_flows_ != 0 || live_blocks_ != 0) return false;
  const auto it = solution_of_shape_.find(shape);
  if (it == solution_of_shape_.end()) return false;
  const Time now = sim_.now();
  uint32_t b;
  if (!free_blocks_.empty()) {
    b = free_blocks_.back();
    free_blocks_.pop_back();
  } else {
    b = static_cast<uint32_t>(blocks_.size());
    blocks_.emplace_back();
  }
  Block& k = blocks_[b];
  const Solution& sol = solutions_[it->second];
  k.count = 0;
  k.solution = it->second;
  k.start = now;
  k.last_drain = now + sol.last_drain;
  k.finish = now + sol.finish;
  k.floor = now;
  k.on_all_done = std::move(on_all_done);
  k.outstanding = 0;
  k.materialized = false;
  k.credited = false;
  exclusive_ = b;
  ++live_blocks_;
  ++blocks_closed_;
  ++blocks_repeated_;
  k.event = sim_.schedule_at(k.last_drain, [this, b] { block_drained(b); });
  return true;
}

void FlowNetwork::settle_blocks() {
  if (exclusive_ != UINT32_MAX) demote(exclusive_);  // link_bytes/link_busy count held flows
  // m repeated runs of a solution: m x its bytes and busy time on each of its links (whole
  // bytes and picoseconds: the same sums as crediting them one run at a time).
  for (uint32_t si : uncredited_) {
    Solution& sol = solutions_[si];
    const uint64_t m = sol.uncredited;
    for (const HeldFlow& h : sol.flows)
      for (uint32_t li : h.links) {
        links_[li].bytes_done += static_cast<double>(m) * h.total;
        links_[li].busy_total += Time::from_ps(static_cast<int64_t>(m) * h.drain.ps());
      }
    sol.uncredited = 0;
  }
  uncredited_.clear();
}

// Credits flow i of block b on the links it still holds (drained: its whole size, and its busy
// interval [start, drain], as detach() would have), and releases them.
void FlowNetwork::credit_links(uint32_t b, uint32_t i) {
  Block& k = blocks_[b];
  const HeldFlow& h = k.flows[i];
  for (uint32_t li : h.links) {
    Link& l = links_[li];
    if (l.held_by != b || l.held_flow != i) continue;  // credited already
    l.bytes_done += h.total;
    l.busy_total += h.drain - k.start;
    l.held_by = UINT32_MAX;
  }
}

void FlowNetwork::block_drained(uint32_t b) {
  Block& k = blocks_[b];
  if (k.solution != UINT32_MAX) {  // a repeated block: credited later, all runs at once
    exclusive_ = UINT32_MAX;
    if (solutions_[k.solution].uncredited++ == 0) uncredited_.push_back(k.solution);
  }
  for (uint32_t i = 0; i < k.count; ++i) credit_links(b, i);
  k.credited = true;
  --live_blocks_;
  k.event = sim_.schedule_at(k.finish, [this, b] { block_finished(b); });
}

void FlowNetwork::block_finished(uint32_t b) {
  Completion done = std::move(blocks_[b].on_all_done);
  blocks_[b].event = EventId{};
  free_blocks_.push_back(b);
  if (done) done();
}

void FlowNetwork::block_flow_arrived(uint32_t b) {
  Block& k = blocks_[b];
  SIM_CHECK(k.outstanding > 0, "a materialized block finished more flows than it had");
  if (--k.outstanding > 0) return;
  if (k.floor > sim_.now()) {
    k.event = sim_.schedule_at(k.floor, [this, b] { block_finished(b); });
    return;
  }
  block_finished(b);
}

// A repeated block becomes an ordinary held block: its solution's flows, with absolute drain
// times, hold their links (those already drained hold them until credited, as in start_block).
// O(its flows), what start_block would have cost; then the per-link guard decides exactly.
void FlowNetwork::demote(uint32_t b) {
  Block& k = blocks_[b];
  const Solution& sol = solutions_[k.solution];
  const uint32_t n = static_cast<uint32_t>(sol.flows.size());
  if (k.flows.size() < n) k.flows.resize(n);
  k.count = n;
  for (uint32_t i = 0; i < n; ++i) {
    const HeldFlow& from = sol.flows[i];
    HeldFlow& h = k.flows[i];
    h.links.clear();
    for (uint32_t li : from.links) {
      h.links.push_back(li);
      Link& l = links_[li];
      l.held_by = b;
      l.held_flow = i;
      l.held_until = k.start + from.drain;
      if (folded()) occupy(li, false, l.held_until);
    }
    h.total = from.total;
    h.rate = from.rate;
    h.cap = from.cap;
    h.latency = from.latency;
    h.drain = k.start + from.drain;
  }
  k.solution = UINT32_MAX;
  exclusive_ = UINT32_MAX;
}

void FlowNetwork::materialize(uint32_t b) {
  const Time now = sim_.now();
  SIM_CHECK(!blocks_[b].credited && !blocks_[b].materialized && blocks_[b].solution == UINT32_MAX,
            "only a held block still on its links can turn into flows");
  sim_.cancel(blocks_[b].event);
  blocks_[b].event = EventId{};
  ++blocks_materialized_;
  --live_blocks_;
  for (uint32_t i = 0; i < blocks_[b].count; ++i) {
    Block& k = blocks_[b];
    const HeldFlow& h = k.flows[i];
    const Time drain = h.drain;
    if (h.links.empty() || drain <= now) {  // drained (or never on a link): only its arrival is left
      credit_links(b, i);
      k.floor = std::max(k.floor, drain + h.latency);
      continue;
    }
    const uint32_t slot = alloc_slot();
    Flow& f = flows_[slot];
    f.hops.resize_uninitialized(h.links.size());
    Hop* hops = f.hops.data();
    for (uint32_t j = 0; j < h.links.size(); ++j) {
      const uint32_t li = h.links[j];
      Link& l = links_[li];
      SIM_CHECK(l.flows.empty() && l.held_by == b, "a held link carried another flow");
      l.held_by = UINT32_MAX;
      l.busy_since = k.start;
      hops[j].link = li;
      hops[j].position = 0;
      if (folded()) occupy(li, true, now);
      l.flows.push_back(slot);
      l.weight += 1;
    }
    // The state apply_rate gave it at the block's start: one settle at start, one drain event.
    f.total = h.total;
    f.remaining = h.total;
    f.weight = 1;
    f.rate = h.rate;
    f.cap = h.cap;
    f.last_update = k.start;
    f.latency = h.latency;
    f.state = State::Flowing;
    f.on_done = [this, b] { block_flow_arrived(b); };
    f.event = sim_.schedule_at(drain, [this, slot] { on_drained(slot); });
    ++active_flows_;
    ++k.outstanding;
  }
  blocks_[b].materialized = true;
  blocks_[b].credited = true;
  if (blocks_[b].outstanding == 0)
    blocks_[b].event = sim_.schedule_at(std::max(now, blocks_[b].floor), [this, b] { block_finished(b); });
}

}  // namespace sim
