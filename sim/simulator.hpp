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
  // 96 bytes: room for a handler that captures another callback (a CollectiveEngine::Done).
  using Handler = InplaceFunction<void(), 96>;

  Time now() const { return now_; }
  EventId schedule_at(Time when, Handler handler);
  EventId schedule_in(Time delay, Handler handler);
  // Schedules at now(), after every event of this instant, including those scheduled later
  // during it (several of these run in scheduling order). For work that should see the whole
  // instant at once, such as re-rating the flow network once after many arrivals and departures.
  EventId schedule_end_of_instant(Handler handler);
  // Returns true if the event was pending and will now never run.
  bool cancel(EventId id);
  bool pending(EventId id) const;

  // Runs events until the queue is empty, stop() is called, or the next event is after `until`.
  // Unless stopped, now() is `until` afterwards (time passes even when nothing happens), so
  // run(t1); run(t2); simulates exactly up to t2. Returns the number of events run.
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
  // End-of-instant events carry this bit in their sequence: same time, ordered after all others.
  static constexpr uint64_t kEndOfInstant = uint64_t{1} << 63;
  EventId insert(Time when, uint64_t sequence, Handler&& handler);
  // Bitwise, not short-circuit: compiles to flag arithmetic without branches.
  static bool later(const Entry& a, const Entry& b) {
    return (a.time_ps > b.time_ps) | ((a.time_ps == b.time_ps) & (a.sequence > b.sequence));
  }
  void push(Entry e);
  Entry pop();
  void sift_down(std::size_t i);
  void compact();
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
