#include "sim/flow_network.hpp"

#include <algorithm>
#include <cmath>

#include "sim/check.hpp"

namespace sim {

namespace {
// Rates are compared with a relative tolerance: a change smaller than this does not reschedule
// a completion (it would move it by less than a picosecond on any realistic transfer).
constexpr double kRateEpsilon = 1e-12;
bool same_rate(double a, double b) { return std::fabs(a - b) <= kRateEpsilon * std::max(std::fabs(a), std::fabs(b)); }
}  // namespace

LinkId FlowNetwork::add_link(std::string_view name, std::string_view kind, double capacity, Time latency) {
  SIM_CHECK(std::isfinite(capacity) && capacity > 0, "link capacity must be positive and finite");
  SIM_CHECK(latency >= Time::zero(), "link latency must not be negative");
  SIM_CHECK(links_.size() < UINT32_MAX - 1, "too many links");
  SIM_CHECK(names_.size() + name.size() < UINT32_MAX, "link names too long in all");
  // The kind: the last link's most of the time, else a short search of the few seen so far.
  std::size_t k = kind_of_link_.empty() ? 0 : kind_of_link_.back();
  if (k >= kinds_.size() || kinds_[k] != kind) {
    k = 0;
    while (k < kinds_.size() && kinds_[k] != kind) ++k;
    if (k == kinds_.size()) {
      SIM_CHECK(kinds_.size() < UINT16_MAX, "too many link kinds");
      kinds_.emplace_back(kind);
    }
  }
  kind_of_link_.push_back(static_cast<uint16_t>(k));
  names_.append(name);
  name_end_.push_back(static_cast<uint32_t>(names_.size()));
  Link& l = links_.emplace_back();
  l.capacity = capacity;
  l.latency = latency;
  return LinkId{static_cast<uint32_t>(links_.size() - 1)};
}

void FlowNetwork::reserve_links(std::size_t links, std::size_t name_bytes) {
  links_.reserve(links_.size() + links);
  name_end_.reserve(name_end_.size() + links);
  kind_of_link_.reserve(kind_of_link_.size() + links);
  names_.reserve(names_.size() + name_bytes);
}

void FlowNetwork::set_link(LinkId id, double capacity, Time latency) {
  SIM_CHECK(id.index < links_.size(), "set_link names an unknown link");
  SIM_CHECK(std::isfinite(capacity) && capacity > 0, "link capacity must be positive and finite");
  SIM_CHECK(latency >= Time::zero(), "link latency must not be negative");
  Link& l = links_[id.index];
  SIM_CHECK(l.flows.empty() && l.held_by == UINT32_MAX && l.bytes_done == 0, "set_link on a link already used");
  l.capacity = capacity;
  l.latency = latency;
}

FlowId FlowNetwork::start(std::span<const LinkId> path, int64_t bytes, Completion on_done, double rate_cap,
                          Time extra_latency) {
  return start_impl(path, static_cast<double>(bytes), std::move(on_done), rate_cap, extra_latency, true);
}

FlowId FlowNetwork::start_with_latency(std::span<const LinkId> path, int64_t bytes, Completion on_done, double rate_cap,
                                       Time latency) {
  SIM_CHECK(latency >= Time::zero(), "a flow's latency must not be negative");
  return start_impl(path, static_cast<double>(bytes), std::move(on_done), rate_cap, latency, false);
}

FlowId FlowNetwork::start_weighted(std::span<const LinkId> path, double bytes, Completion on_done, double rate_cap,
                                   Time latency, uint32_t weight) {
  SIM_CHECK(latency >= Time::zero(), "a flow's latency must not be negative");
  SIM_CHECK(weight >= 1, "a flow's weight must be at least 1");
  return start_impl(path, bytes, std::move(on_done), rate_cap, latency, false, weight);
}

double FlowNetwork::remaining(FlowId id) const {
  if (!active(id)) return 0;
  const Flow& f = flows_[id.slot];
  if (f.state != State::Flowing) return 0;
  return std::max(0.0, f.remaining - f.rate * (sim_.now() - f.last_update).seconds());
}

bool FlowNetwork::link_idle(LinkId id) const {
  const Link& l = links_[id.index];
  return l.flows.empty() && !(l.held_by != UINT32_MAX && l.held_until > sim_.now()) && exclusive_ == UINT32_MAX;
}

uint32_t FlowNetwork::alloc_slot() {
  uint32_t slot;
  if (!free_flows_.empty()) {
    slot = free_flows_.back();
    free_flows_.pop_back();
  } else {
    slot = static_cast<uint32_t>(flows_.size());
    flows_.emplace_back();
    flow_mark_.push_back(0);
    flow_pos_.push_back(0);
    new_rate_.push_back(0);
  }
  return slot;
}

FlowId FlowNetwork::start_impl(std::span<const LinkId> path, double bytes, Completion on_done, double rate_cap,
                               Time latency, bool add_path_latency, uint32_t weight) {
  SIM_CHECK(bytes >= 0, "a flow cannot carry a negative number of bytes");
  SIM_CHECK(rate_cap > 0, "a flow's rate cap must be positive");
  const uint32_t slot = alloc_slot();
  Flow& f = flows_[slot];
  SIM_CHECK(path.size() < UINT32_MAX, "flow path too long");
  f.hops.resize_uninitialized(static_cast<uint32_t>(path.size()));
  Hop* hops = f.hops.data();
  f.on_done = std::move(on_done);
  f.total = bytes;
  f.remaining = f.total;
  f.weight = weight;
  f.rate = 0;
  f.cap = rate_cap;
  f.last_update = sim_.now();
  f.latency = latency;
  f.state = State::Flowing;
  for (std::size_t i = 0; i < path.size(); ++i) {
    const uint32_t l = path[i].index;
    SIM_CHECK(l < links_.size(), "flow path names an unknown link");
    hops[i].link = route(l);
    if (add_path_latency) f.latency += links_[hops[i].link].latency;
  }
  ++active_flows_;
  const FlowId id{slot, f.generation};
  if (f.remaining <= 0) {
    f.state = State::Draining;  // nothing to move: only the latency is left
    f.event = sim_.schedule_in(f.latency, [this, slot] { on_finished(slot); });
    return id;
  }
  if (f.hops.empty()) {
    // No shared resource: the flow runs at its own cap, or arrives after its latency.
    const Time t = std::isfinite(f.cap) ? transfer_time(f.remaining, f.cap) : Time::zero();
    f.rate = std::isfinite(f.cap) ? f.cap : 0;
    f.event = sim_.schedule_in(t, [this, slot] { on_drained(slot); });
    return id;
  }
  attach(slot);
  return id;
}

void FlowNetwork::attach(uint32_t slot) {
  // The guard of closed-form blocks: a block still holding one of these links becomes flows
  // first, so this flow meets them as it would have without closed forms. (materialize() may
  // grow flows_: the record is looked up again after.)
  const Time now = sim_.now();
  // Watches first: the watcher may replace its flows (and so start and cancel flows).
  for (uint32_t i = 0; i < flows_[slot].hops.size(); ++i) {
    const Link& l = links_[flows_[slot].hops.data()[i].link];
    if (l.watch != UINT32_MAX && !l.flows.empty()) fire_watch(l.watch);
  }
  if (exclusive_ != UINT32_MAX) demote(exclusive_);
  for (uint32_t i = 0; i < flows_[slot].hops.size(); ++i) {
    const Link& l = links_[flows_[slot].hops.data()[i].link];
    if (l.held_by != UINT32_MAX && l.held_until > now) materialize(l.held_by);
  }
  Flow& f = flows_[slot];
  Hop* hops = f.hops.data();
  for (uint32_t i = 0; i < f.hops.size(); ++i) {
    Link& l = links_[hops[i].link];
    for (uint32_t j = 0; j < i; ++j) SIM_CHECK(hops[j].link != hops[i].link, "a flow path must not use a link twice");
    if (folded()) occupy(hops[i].link, l.flows.empty(), now);
    if (l.flows.empty()) l.busy_since = sim_.now();
    hops[i].position = static_cast<uint32_t>(l.flows.size());
    l.flows.push_back(slot);
    l.weight += f.weight;
    mark_dirty(hops[i].link);
  }
}

void FlowNetwork::detach(uint32_t slot) {
  Flow& f = flows_[slot];
  const Hop* hops = f.hops.data();
  for (uint32_t i = 0; i < f.hops.size(); ++i) {
    const uint32_t li = hops[i].link;
    Link& l = links_[li];
    const uint32_t pos = hops[i].position;
    const uint32_t moved = l.flows.back();
    l.flows[pos] = moved;
    l.flows.pop_back();
    l.weight -= f.weight;
    if (moved != slot) {
      Flow& m = flows_[moved];
      Hop* mh = m.hops.data();
      for (uint32_t k = 0; k < m.hops.size(); ++k)
        if (mh[k].link == li) {
          mh[k].position = pos;
          break;
        }
    }
    l.bytes_done += f.total - f.remaining;
    if (l.flows.empty()) {
      l.busy_total += sim_.now() - l.busy_since;
      if (folded()) vacate(li);
    }
    mark_dirty(li);
  }
}

void FlowNetwork::settle(Flow& f) {
  const Time now = sim_.now();
  if (now > f.last_update && f.rate > 0) {
    f.remaining = std::max(0.0, f.remaining - f.rate * (now - f.last_update).seconds());
  }
  f.last_update = now;
}

void FlowNetwork::schedule_recompute() {
  recompute_scheduled_ = true;
  sim_.schedule_end_of_instant([this] { recompute(); });
}

void FlowNetwork::recompute() {
  recompute_scheduled_ = false;
  ++recomputes_;
  ++epoch_;
  // Each dirty link seeds a component, unless an earlier seed's component already covered it
  // or it carries nothing (then nothing can reach it either). Seeds keep the order in which
  // their links were first marked, so components are rated, and completion events scheduled,
  // in the same order as without the fast paths.
  seeds_.swap(dirty_links_);  // dirty_links_ takes seeds_' empty buffer: no allocation
  ++dirty_round_;
  for (uint32_t seed : seeds_) {
    const Link& l = links_[seed];
    if (l.mark == epoch_ || l.flows.empty()) continue;
    if (fast_paths_ && rate_single_flow(seed)) continue;
    rate_component(seed);
  }
  seeds_.clear();
}

// A flow alone on every link of its path is its own component. Progressive filling would fix it
// at the first constraint: its cap if cap <= the narrowest capacity (each link's share is
// capacity / 1), else that capacity -- computed here with the same comparison, so the same double.
bool FlowNetwork::rate_single_flow(uint32_t seed) {
  const Link& first = links_[seed];
  if (first.flows.size() != 1) return false;
  const uint32_t fs = first.flows[0];
  const Flow& f = flows_[fs];
  const Hop* hops = f.hops.data();
  double narrowest = kUnlimitedRate;
  for (uint32_t i = 0; i < f.hops.size(); ++i) {
    const Link& l = links_[hops[i].link];
    if (l.flows.size() != 1) return false;
    narrowest = std::min(narrowest, l.capacity);
  }
  for (uint32_t i = 0; i < f.hops.size(); ++i) links_[hops[i].link].mark = epoch_;
  flow_mark_[fs] = epoch_;
  ++flows_rated_;
  ++single_flow_components_;
  const double rate = f.cap <= narrowest ? f.cap : narrowest;
  apply_rate(fs, rate);
  if (audit_) {
    comp_links_.clear();
    for (uint32_t i = 0; i < f.hops.size(); ++i) comp_links_.push_back(hops[i].link);
    comp_flows_.assign(1, fs);
    audit_component();
  }
  return true;
}

// The component's links get dense local numbers as the walk reaches them, and progressive
// filling works on dense arrays (each link's remaining capacity, unfixed weight, version; each
// flow's links by local number, its cap and weight): a million-link network's Link and Flow
// records are touched once each by the walk, not again at every step of the filling.
void FlowNetwork::rate_component(uint32_t seed) {
  comp_links_.clear();
  comp_flows_.clear();
  stack_.clear();
  local_link_.clear();
  local_remaining_.clear();
  local_unfixed_.clear();
  comp_local_.clear();
  comp_hops_.clear();
  comp_hop_begin_.clear();
  comp_cap_.clear();
  comp_weight_.clear();
  auto reach = [this](uint32_t li) {
    Link& l = links_[li];
    l.mark = epoch_;
    l.local = static_cast<uint32_t>(local_link_.size());
    local_link_.push_back(li);
    local_remaining_.push_back(l.capacity);
    local_unfixed_.push_back(l.weight);
    stack_.push_back(l.local);
  };
  reach(seed);
  while (!stack_.empty()) {
    const uint32_t lo = stack_.back();
    stack_.pop_back();
    const uint32_t li = local_link_[lo];
    comp_links_.push_back(li);
    comp_local_.push_back(lo);
    for (uint32_t fs : links_[li].flows) {
      if (flow_mark_[fs] == epoch_) continue;
      flow_mark_[fs] = epoch_;
      flow_pos_[fs] = static_cast<uint32_t>(comp_flows_.size());
      comp_flows_.push_back(fs);
      const Flow& f = flows_[fs];
      comp_cap_.push_back(f.cap);
      comp_weight_.push_back(f.weight);
      comp_hop_begin_.push_back(static_cast<uint32_t>(comp_hops_.size()));
      const Hop* hops = f.hops.data();
      for (uint32_t i = 0; i < f.hops.size(); ++i) {
        if (links_[hops[i].link].mark != epoch_) reach(hops[i].link);
        comp_hops_.push_back(links_[hops[i].link].local);
      }
    }
  }
  comp_hop_begin_.push_back(static_cast<uint32_t>(comp_hops_.size()));
  flows_rated_ += comp_flows_.size();
  if (comp_flows_.empty()) return;

  // Progressive filling: raise every unfixed flow's rate together; the first constraint to
  // saturate (a link's equal share, or a flow's own cap) fixes its flows; repeat.
  auto heap_less = [](const Share& a, const Share& b) { return a.share > b.share; };
  heap_.clear();
  local_version_.assign(local_link_.size(), 0);
  for (uint32_t lo : comp_local_) heap_.push_back({local_remaining_[lo] / local_unfixed_[lo], lo, 0});
  std::make_heap(heap_.begin(), heap_.end(), heap_less);
  // By cap per unit of weight (a weight-1 flow's cap itself: the same order as unweighted), ties
  // by slot.
  capped_.clear();
  for (uint32_t k = 0; k < comp_flows_.size(); ++k) {
    new_rate_[comp_flows_[k]] = -1;  // unfixed
    if (std::isfinite(comp_cap_[k])) capped_.push_back({comp_cap_[k] / comp_weight_[k], comp_flows_[k]});
  }
  std::sort(capped_.begin(), capped_.end());
  std::size_t next_cap = 0;
  std::size_t fixed = 0;
  // The fill level only rises. Rounding can leave a link's computed share a hair under the level
  // already reached (or its remaining capacity clamped to 0); such a link saturates at the level.
  double level = 0;

  // Fixing a flow at the current level r <= share(l) can only raise share(l) = remaining/unfixed:
  // (rem - r) / (n - 1) >= rem / n (weighted: (rem - w r) / (n - w) >= rem / n). So a link's heap entry is never above
  // its true share, and the heap is updated lazily: one entry per link, refreshed only when a stale one reaches the
  // top. A fresh entry on top is then the true minimum. This keeps the heap at the component's
  // link count instead of pushing once per (flow, link) pair.
  auto fix = [&](uint32_t fs, double rate) {
    new_rate_[fs] = rate;
    ++fixed;
    const uint32_t k = flow_pos_[fs];
    const uint64_t w = comp_weight_[k];
    for (uint32_t j = comp_hop_begin_[k]; j < comp_hop_begin_[k + 1]; ++j) {
      const uint32_t lo = comp_hops_[j];
      local_remaining_[lo] = std::max(0.0, local_remaining_[lo] - rate);
      local_unfixed_[lo] -= w;
      ++local_version_[lo];
    }
  };

  while (fixed < comp_flows_.size()) {
    while (!heap_.empty()) {
      Share& top = heap_.front();
      const uint32_t lo = top.link;
      if (local_unfixed_[lo] == 0) {
        std::pop_heap(heap_.begin(), heap_.end(), heap_less);
        heap_.pop_back();
      } else if (local_version_[lo] != top.version) {
        const Share fresh{local_remaining_[lo] / local_unfixed_[lo], lo, local_version_[lo]};
        std::pop_heap(heap_.begin(), heap_.end(), heap_less);
        heap_.back() = fresh;
        std::push_heap(heap_.begin(), heap_.end(), heap_less);
      } else {
        break;
      }
    }
    while (next_cap < capped_.size() && new_rate_[capped_[next_cap].second] >= 0) ++next_cap;
    const double link_share = heap_.empty() ? kUnlimitedRate : std::max(level, heap_.front().share);
    const double cap_share = next_cap < capped_.size() ? capped_[next_cap].first : kUnlimitedRate;
    SIM_CHECK(std::isfinite(link_share) || std::isfinite(cap_share),
              "progressive filling found no constraint for an unfixed flow");
    if (cap_share <= link_share) {
      level = std::max(level, cap_share);
      const uint32_t fs = capped_[next_cap].second;
      fix(fs, comp_cap_[flow_pos_[fs]]);
      continue;
    }
    level = link_share;
    const uint32_t li = local_link_[heap_.front().link];
    std::pop_heap(heap_.begin(), heap_.end(), heap_less);
    heap_.pop_back();
    // Fix every unfixed flow on the bottleneck link at its share (times its weight). Copy first:
    // fix() edits links.
    stack_.clear();
    for (uint32_t fs : links_[li].flows)
      if (new_rate_[fs] < 0) stack_.push_back(fs);
    for (uint32_t fs : stack_) {
      const uint32_t w = comp_weight_[flow_pos_[fs]];
      fix(fs, w == 1 ? link_share : link_share * w);
    }
  }

  for (uint32_t fs : comp_flows_) apply_rate(fs, new_rate_[fs]);

  if (audit_) audit_component();
}

void FlowNetwork::audit_component() const {
  constexpr double kTolerance = 1e-9;  // relative: rates are doubles summed along links
  for (uint32_t li : comp_links_) {
    const Link& l = links_[li];
    double load = 0;
    for (uint32_t fs : l.flows) load += flows_[fs].rate;
    SIM_CHECK(load <= l.capacity * (1 + kTolerance), "a link carries more than its capacity");
  }
  // Max-min optimality (Bertsekas & Gallager, prop. 6.5.2): a flow's rate can only be raised by
  // lowering a flow with an equal or smaller rate, i.e. it is at its cap or it has a bottleneck:
  // a saturated link on its path where no flow has a larger rate (rates per unit of weight).
  for (uint32_t fs : comp_flows_) {
    const Flow& f = flows_[fs];
    SIM_CHECK(f.rate > 0 && f.rate <= f.cap * (1 + kTolerance), "a flow's rate is outside (0, cap]");
    if (f.rate >= f.cap * (1 - kTolerance)) continue;
    bool bottlenecked = false;
    const Hop* hops = f.hops.data();
    for (uint32_t i = 0; i < f.hops.size(); ++i) {
      const Link& l = links_[hops[i].link];
      double load = 0, top = 0;
      for (uint32_t other : l.flows) {
        load += flows_[other].rate;
        top = std::max(top, flows_[other].rate / flows_[other].weight);
      }
      if (load >= l.capacity * (1 - kTolerance) && f.rate / f.weight >= top * (1 - kTolerance)) {
        bottlenecked = true;
        break;
      }
    }
    SIM_CHECK(bottlenecked, "a flow could go faster: the rates are not max-min fair");
  }
}

void FlowNetwork::apply_rate(uint32_t slot, double rate) {
  Flow& f = flows_[slot];
  if (f.event.valid() && same_rate(f.rate, rate)) return;
  settle(f);
  f.rate = rate;
  sim_.cancel(f.event);
  SIM_CHECK(rate > 0, "max-min filling gave a flow a zero rate");
  f.event = sim_.schedule_in(transfer_time(f.remaining, rate), [this, slot] { on_drained(slot); });
}

void FlowNetwork::on_drained(uint32_t slot) {
  Flow& f = flows_[slot];
  f.remaining = 0;
  if (!f.hops.empty()) detach(slot);
  f.rate = 0;
  f.state = State::Draining;
  f.event = sim_.schedule_in(f.latency, [this, slot] { on_finished(slot); });
}

void FlowNetwork::on_finished(uint32_t slot) {
  Completion done = std::move(flows_[slot].on_done);
  free_slot(slot);
  if (done) done();
}

void FlowNetwork::free_slot(uint32_t slot) {
  Flow& f = flows_[slot];
  f.state = State::Free;
  f.on_done.reset();
  f.event = EventId{};
  ++f.generation;
  --active_flows_;
  free_flows_.push_back(slot);
}

bool FlowNetwork::active(FlowId id) const {
  return id.valid() && id.slot < flows_.size() && flows_[id.slot].generation == id.generation &&
         flows_[id.slot].state != State::Free;
}

bool FlowNetwork::cancel(FlowId id) {
  if (!active(id)) return false;
  Flow& f = flows_[id.slot];
  // Its pending event (drain or arrival) must go too: left queued, it would later run on the
  // slot after the slot has been reused by another flow.
  sim_.cancel(f.event);
  if (f.state == State::Flowing) {
    settle(f);  // the bytes it moved so far count in the links' accounting
    if (!f.hops.empty()) detach(id.slot);
  }
  free_slot(id.slot);
  return true;
}

double FlowNetwork::rate(FlowId id) const { return active(id) ? flows_[id.slot].rate : 0.0; }

double FlowNetwork::link_bytes(LinkId l) const {
  SIM_CHECK(uncredited_.empty() && exclusive_ == UINT32_MAX, "link totals read before settle_blocks()");
  const Link& link = links_[l.index];
  double b = link.bytes_done;
  const Time now = sim_.now();
  if (link.held_by != UINT32_MAX) {  // a closed-form block's flow, not credited yet
    const Block& k = blocks_[link.held_by];
    const HeldFlow& h = k.flows[link.held_flow];
    b += h.total - std::max(0.0, h.total - h.rate * (now - k.start).seconds());
  }
  for (uint32_t fs : link.flows) {
    const Flow& f = flows_[fs];
    b += f.total - std::max(0.0, f.remaining - f.rate * (now - f.last_update).seconds());
  }
  return b;
}

Time FlowNetwork::link_busy(LinkId l) const {
  SIM_CHECK(uncredited_.empty() && exclusive_ == UINT32_MAX, "link totals read before settle_blocks()");
  const Link& link = links_[l.index];
  Time busy = link.flows.empty() ? link.busy_total : link.busy_total + (sim_.now() - link.busy_since);
  if (link.held_by != UINT32_MAX) {  // a closed-form block's flow, not credited yet
    const Block& k = blocks_[link.held_by];
    busy += std::min(sim_.now(), k.flows[link.held_flow].drain) - k.start;
  }
  return busy;
}

double FlowNetwork::link_load(LinkId l) const {
  double load = 0;
  for (uint32_t fs : links_[l.index].flows) load += flows_[fs].rate;
  return load;
}

}  // namespace sim
