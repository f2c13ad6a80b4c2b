#include "sim/simulator.hpp"

#include <algorithm>

#include "sim/check.hpp"

namespace sim {

EventId Simulator::schedule_at(Time when, Handler handler) {
  SIM_CHECK(when >= now_, "an event was scheduled in the past: time must never go backwards");
  return insert(when, next_sequence_++, std::move(handler));
}

EventId Simulator::schedule_in(Time delay, Handler handler) {
  SIM_CHECK(delay >= Time::zero(), "an event was scheduled in the past: time must never go backwards");
  return insert(now_ + delay, next_sequence_++, std::move(handler));
}

EventId Simulator::schedule_end_of_instant(Handler handler) {
  return insert(now_, (next_sequence_++) | kEndOfInstant, std::move(handler));
}

EventId Simulator::insert(Time when, uint64_t sequence, Handler&& handler) {
  uint32_t slot;
  if (!free_slots_.empty()) {
    slot = free_slots_.back();
    free_slots_.pop_back();
  } else {
    slot = static_cast<uint32_t>(slots_.size());
    slots_.emplace_back();
  }
  Slot& s = slots_[slot];
  s.handler = std::move(handler);
  s.live = true;
  ++live_;
  push(Entry{when.ps(), sequence, slot, s.generation});
  return EventId{slot, s.generation};
}

bool Simulator::pending(EventId id) const {
  return id.valid() && id.slot < slots_.size() && slots_[id.slot].live && slots_[id.slot].generation == id.generation;
}

bool Simulator::cancel(EventId id) {
  if (!pending(id)) return false;
  Slot& s = slots_[id.slot];
  s.handler.reset();
  s.live = false;
  ++s.generation;  // the heap entry still points here; its old generation makes it a tombstone
  free_slots_.push_back(id.slot);
  --live_;
  // Tombstones leave the heap only when they reach its top. A flow network that re-rates
  // thousands of flows per change cancels far-future events at that pace, so sweep them out
  // once they outnumber the live events (amortized O(1) per cancel).
  if (heap_.size() > 2 * live_ + 1024) compact();
  return true;
}

void Simulator::compact() {
  std::size_t kept = 0;
  for (const Entry& e : heap_) {
    const Slot& s = slots_[e.slot];
    if (s.live && s.generation == e.generation) heap_[kept++] = e;
  }
  heap_.resize(kept);
  for (std::size_t i = kept / 4 + 1; i-- > 0;) sift_down(i);
}

// Bottom-up sift-down (Floyd): walk the hole to a leaf along the smallest children without
// comparing against the moved entry (it came from the bottom and usually belongs near there),
// then sift the entry up from that leaf. Half the comparisons of the textbook loop, and the
// child comparisons are branch-free (they are unpredictable by nature).
void Simulator::sift_down(std::size_t i) {
  const std::size_t n = heap_.size();
  if (i >= n) return;
  const Entry e = heap_[i];
  const std::size_t top = i;
  Entry* h = heap_.data();
  for (;;) {
    const std::size_t first = 4 * i + 1;
    std::size_t best;
    if (first + 4 <= n) {
      const std::size_t a = first + static_cast<std::size_t>(later(h[first], h[first + 1]));
      const std::size_t b = first + 2 + static_cast<std::size_t>(later(h[first + 2], h[first + 3]));
      best = later(h[a], h[b]) ? b : a;
    } else if (first < n) {
      best = first;
      for (std::size_t c = first + 1; c < n; ++c)
        if (later(h[best], h[c])) best = c;
    } else {
      break;
    }
    h[i] = h[best];
    i = best;
  }
  while (i > top) {
    const std::size_t parent = (i - 1) / 4;
    if (!later(h[parent], e)) break;
    h[i] = h[parent];
    i = parent;
  }
  h[i] = e;
}

// A 4-ary heap: shallower than a binary heap, and its children share a cache line.
void Simulator::push(Entry e) {
  heap_.push_back(e);
  std::size_t i = heap_.size() - 1;
  while (i > 0) {
    std::size_t parent = (i - 1) / 4;
    if (!later(heap_[parent], e)) break;
    heap_[i] = heap_[parent];
    i = parent;
  }
  heap_[i] = e;
}

Simulator::Entry Simulator::pop() {
  const Entry top = heap_.front();
  heap_.front() = heap_.back();
  heap_.pop_back();
  sift_down(0);
  return top;
}

bool Simulator::pop_next_live(Entry& out) {
  while (!heap_.empty()) {
    const Entry& top = heap_.front();
    const Slot& s = slots_[top.slot];
    if (s.live && s.generation == top.generation) {
      out = top;
      return true;
    }
    pop();  // tombstone of a cancelled event
  }
  return false;
}

bool Simulator::step() {
  Entry e;
  if (!pop_next_live(e)) return false;
  pop();
  SIM_CHECK(e.time_ps >= now_.ps(), "time went backwards");
  now_ = Time::from_ps(e.time_ps);
  Slot& s = slots_[e.slot];
  Handler h = std::move(s.handler);
  s.live = false;
  ++s.generation;
  free_slots_.push_back(e.slot);
  --live_;
  ++events_run_;
  h();
  return true;
}

uint64_t Simulator::run(std::optional<Time> until) {
  stopped_ = false;
  const uint64_t before = events_run_;
  Entry e;
  while (!stopped_ && pop_next_live(e)) {
    if (until && e.time_ps > until->ps()) break;
    step();
  }
  if (until && !stopped_) now_ = std::max(now_, *until);
  return events_run_ - before;
}

}  // namespace sim
