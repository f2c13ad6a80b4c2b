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
  // A tagged flow that crosses one class twice (the same link of two replicas' nodes: a flow
  // between them) cannot stand for its images on the folded links: the fold does not hold. Its
  // guard stops the run (the caller runs unfolded), and the flow keeps its real links meanwhile.
  if (fold_tag_ && folded())
    for (std::size_t i = 1; i < path.size(); ++i)
      for (std::size_t j = 0; j < i; ++j)
        if (hops[j].link == hops[i].link && hops[i].link >= first_folded_) {
          violate(hops[i].link);
          for (std::size_t k = 0; k < path.size(); ++k) hops[k].link = path[k].index;
          i = path.size();
          break;
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
