#pragma once
// sim::Simulator: the event loop. Events are ordered by (time, sequence), so events scheduled for
// the same time run in the order they were scheduled and every run is deterministic bit for bit.
// Passed by reference, never a global. Handlers live inline in a slot pool (no allocation per
// event once the pool has grown); cancellation is O(1) through a generation counter.
#include <cstdint>
#include <optional>
#include <vector>

#include "sim/inplace_function.hpp"
#include "sim/time.hpp"

namespace sim {

struct EventId {
  uint32_t slot = UINT32_MAX;
  uint32_t generation = 0;
  bool valid() const { return slot != UINT32_MAX; }
};

class Simulator {
 public:
  using Handler = InplaceFunction<void(), 48>;

  Time now() const { return now_; }
  EventId schedule_at(Time when, Handler handler);
  EventId schedule_in(Time delay, Handler handler) { return schedule_at(now_ + delay, std::move(handler)); }
  // Returns true if the event was pending and will now never run.
  bool cancel(EventId id);
  bool pending(EventId id) const;

  // Runs events until the queue is empty, stop() is called, or the next event is after `until`
  // (then now() becomes `until`). Returns the number of events run.
  uint64_t run(std::optional<Time> until = std::nullopt);
  // Runs exactly one event if there is one; returns false when the queue is empty.
  bool step();
  void stop() { stopped_ = true; }

  bool empty() const { return live_ == 0; }
  uint64_t events_run() const { return events_run_; }
  std::size_t pending_count() const { return live_; }

 private:
  struct Entry {
    int64_t time_ps;
    uint64_t sequence;
    uint32_t slot;
    uint32_t generation;
  };
  struct Slot {
    Handler handler;
    uint32_t generation = 0;
    bool live = false;
  };
  static bool later(const Entry& a, const Entry& b) {
    return a.time_ps != b.time_ps ? a.time_ps > b.time_ps : a.sequence > b.sequence;
  }
  void push(Entry e);
  Entry pop();
  bool pop_next_live(Entry& out);

  Time now_;
  uint64_t next_sequence_ = 0;
  uint64_t events_run_ = 0;
  std::size_t live_ = 0;
  bool stopped_ = false;
  std::vector<Entry> heap_;
  std::vector<Slot> slots_;
  std::vector<uint32_t> free_slots_;
};

}  // namespace sim
