#pragma once
// sim::Simulator: the event loop. Events are ordered by (time, sequence), so events scheduled for
// the same time run in the order they were scheduled and every run is deterministic bit for bit.
// Passed by reference, never a global. Handlers live inline in a slot pool (no allocation per
// event once the pool has grown); cancellation is O(1) through a generation counter.
//
// The queue is a radix heap (Ahuja, Mehlhorn, Orlin & Tarjan, "Faster algorithms for the shortest
// path problem", J. ACM 37(2), 1990) with 6-bit digits, in front of which the earliest events
// wait in a short sorted array, the run. Radix heaps fit a simulator's clock: keys are integer
// picoseconds and never lie before the last key taken out (`last_`).
// - The run holds exactly the events with time in [last_, run_limit_), sorted by (time,
//   scheduling order); the next event is its front. An event for that range is inserted after
//   the last entry of a time <= its own (usually it goes last: an append).
// - Every later event waits in the bucket named by the highest 6-bit digit in which its time
//   differs from last_ (the level) and its own value of that digit. Insertion is an append.
// - When the run is exhausted, the lowest non-empty bucket (it holds the smallest times) is
//   taken and last_ set to its smallest time. If it is of level 0 (one time) or holds at most
//   kSortMax events, it is sorted into the run whole and run_limit_ becomes the end of the range
//   of times the bucket stands for (no other bucket holds times in it); otherwise its events at last_ start the run and
//   the others are spread over the levels below it (each a sequential copy of 16 bytes; an event moves down at most 10
//   times). With 1 k events pending over a microsecond, an event is appended once, spread once and sorted into the run
//   once.
// - A run grown past kRunMax entries spills its later times back to the buckets (all events of
//   one time together; a run of one time is a FIFO and stays).
// Same-time order needs no sequence number: a bucket keeps each time's events in scheduling
// order (appends are in that order; a bucket is refilled only while empty, from a bucket or a
// run's tail that was itself in order), and the sort into the run is stable. End-of-instant
// events wait in their own FIFO until no ordinary event of the instant is left.
#include <cstdint>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "sim/check.hpp"
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
  // Handlers that capture up to kSmallCapture bytes (a few pointers and indices: every handler
  // of the models) live in the event's 64-byte record; larger ones in a second pool.
  using Handler = InplaceFunction<void(), 96>;
  static constexpr std::size_t kSmallCapture = 32;

  Simulator();
  Simulator(const Simulator&) = delete;
  Simulator& operator=(const Simulator&) = delete;

  Time now() const { return now_; }
  // The handler (a Handler or any callable that fits one) is built in its slot directly.
  template <typename F>
  EventId schedule_at(Time when, F&& handler) {
    SIM_CHECK(when >= now_, "an event was scheduled in the past: time must never go backwards");
    return insert(when.ps(), false, std::forward<F>(handler));
  }
  template <typename F>
  EventId schedule_in(Time delay, F&& handler) {
    SIM_CHECK(delay >= Time::zero(), "an event was scheduled in the past: time must never go backwards");
    return insert((now_ + delay).ps(), false, std::forward<F>(handler));
  }
  // Schedules at now(), after every event of this instant, including those scheduled later
  // during it (several of these run in scheduling order). For work that should see the whole
  // instant at once, such as re-rating the flow network once after many arrivals and departures.
  template <typename F>
  EventId schedule_end_of_instant(F&& handler) {
    return insert(now_.ps(), true, std::forward<F>(handler));
  }
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
    uint32_t slot;
    uint32_t generation;
  };
  // One event's record, one cache line: the handler (inline, or a call into the large pool) and
  // its generation, odd while the event is pending; running or cancelling it makes it even.
  using SmallHandler = InplaceFunction<void(), kSmallCapture>;
  static constexpr uint32_t kNone = UINT32_MAX;
  struct alignas(64) Slot {
    SmallHandler handler;
    uint32_t generation = 0;
    uint32_t large = kNone;  // index of the handler in the large pool, if there
  };
  static_assert(sizeof(Slot) == 64, "an event record should fill one cache line");
  struct CallLarge {
    Simulator* sim;
    uint32_t index;
    void operator()() const { sim->large(index)(); }
  };
  // Slots live in fixed-size chunks, so a slot never moves: a handler runs where it is stored,
  // even when it schedules events that grow the pool.
  static constexpr uint32_t kChunkBits = 8;
  static constexpr uint32_t kChunk = 1u << kChunkBits;
  // Times are >= 0, so they differ from last_ below bit 63: 11 levels of 6-bit digits. Level l,
  // digit d (a later time has the larger digit) is bucket 64 l + d.
  static constexpr int kDigitBits = 6;  // 6 and 8 measured: 6 runs fewer instructions
  static constexpr int kDigits = 1 << kDigitBits;
  static constexpr int kWords = kDigits / 64;  // occupancy words per level
  static constexpr int kLevels = (63 + kDigitBits - 1) / kDigitBits;
  static constexpr int kBuckets = kDigits * kLevels;
  // A bucket of at most kSortMax entries is sorted into the run whole; a larger one is spread
  // over the levels below it first. The run spills its later half back to the levels when it
  // holds more than kRunMax entries (unless they all share one time: then it is a FIFO).
  static constexpr std::size_t kSortMax = 32;
  static constexpr std::size_t kRunMax = 4 * kSortMax;

  Slot& slot(uint32_t i) { return chunks_[i >> kChunkBits][i & (kChunk - 1)]; }
  Handler& large(uint32_t i) { return large_chunks_[i >> kChunkBits][i & (kChunk - 1)]; }
  const Slot& slot(uint32_t i) const { return chunks_[i >> kChunkBits][i & (kChunk - 1)]; }
  bool alive(const Entry& e) const { return slot(e.slot).generation == e.generation; }
  uint32_t acquire_slot() {
    if (!free_slots_.empty()) [[likely]] {
      const uint32_t i = free_slots_.back();
      free_slots_.pop_back();
      return i;
    }
    return new_slot();
  }
  uint32_t new_slot();
  uint32_t acquire_large();
  void release(Slot& s) {
    s.handler.reset();
    if (s.large != kNone) [[unlikely]] {
      large(s.large).reset();
      free_large_.push_back(s.large);
      s.large = kNone;
    }
  }
  template <typename F>
  EventId insert(int64_t time_ps, bool end_of_instant, F&& handler) {
    using Fn = std::decay_t<F>;
    const uint32_t i = acquire_slot();
    Slot& s = slot(i);
    if constexpr (sizeof(Fn) <= kSmallCapture && alignof(Fn) <= alignof(std::max_align_t)) {
      s.handler = std::forward<F>(handler);
    } else {
      s.large = acquire_large();
      large(s.large) = std::forward<F>(handler);
      s.handler = CallLarge{this, s.large};
    }
    const uint32_t generation = ++s.generation;  // odd: pending
    ++live_;
    if (end_of_instant) {
      end_of_instant_.push_back(Entry{time_ps, i, generation});
    } else {
      SIM_CHECK(time_ps >= last_, "event queue: a key before the radix heap's reference time");
      push(Entry{time_ps, i, generation});
    }
    return EventId{i, generation};
  }
  void push(const Entry& e) {
    if (static_cast<uint64_t>(e.time_ps) < run_limit_) {
      run_insert(e);
    } else {
      radix_push(e);
    }
  }
  // Into the sorted run, after every entry of an earlier or equal time (so in scheduling order
  // among equal times). Most events go last: then it is an append.
  void run_insert(const Entry& e) {
    if (run_head_ == run_.size() || run_.back().time_ps <= e.time_ps) [[likely]] {
      run_.push_back(e);
    } else {
      run_insert_before_back(e);
    }
    if (run_.size() > run_trim_at_) [[unlikely]]
      trim_run();
  }
  // Into the radix levels: time_ps >= run_limit_ > last_, so it differs from last_.
  void radix_push(const Entry& e) {
    const uint64_t diff = static_cast<uint64_t>(e.time_ps ^ last_);
    const int level = (63 - __builtin_clzll(diff)) / kDigitBits;
    const int digit = static_cast<int>((static_cast<uint64_t>(e.time_ps) >> (kDigitBits * level)) & (kDigits - 1));
    const int b = kDigits * level + digit;
    buckets_[b].push_back(e);
    levels_ |= 1u << level;
    digits_[level][digit / 64] |= uint64_t{1} << (digit % 64);
    if (e.time_ps < bucket_min_[b]) bucket_min_[b] = e.time_ps;
  }
  // The bucket that holds the smallest times (levels_ != 0).
  int lowest_bucket() const {
    const int level = __builtin_ctz(levels_);
    int w = 0;
    while (digits_[level][w] == 0) ++w;
    return kDigits * level + 64 * w + __builtin_ctzll(digits_[level][w]);
  }
  void run_insert_before_back(const Entry& e);
  void trim_run();  // drops the run's taken entries and spills its tail when it grew too long
  // Makes the next live event with time <= limit the front of the run or of the end-of-instant
  // FIFO (*end_of_instant says which); false if there is none. Never moves last_ past `limit`,
  // so events may still be scheduled from now() on.
  bool front(int64_t limit, bool* end_of_instant);
  void refill(int b);  // the run is empty: fills it from bucket b, the lowest
  void run_front(bool end_of_instant);
  void compact();

  Time now_;
  int64_t last_ = 0;
  // The run: the events with time in [last_, run_limit_), sorted by (time, scheduling order);
  // entries before run_head_ were taken. run_limit_ > last_, and every bucket's times are >= it.
  uint64_t run_limit_ = 1;  // unsigned: 2^63 when last_ is Time::max()
  std::size_t run_head_ = 0;
  std::size_t run_trim_at_ = kRunMax;  // trim_run() when the run's vector grows past this
  std::size_t end_head_ = 0;
  uint32_t levels_ = 0;  // bit l: a bucket of level l is non-empty
  bool stopped_ = false;
  uint64_t events_run_ = 0;
  std::size_t live_ = 0;
  std::size_t cancelled_ = 0;           // entries of cancelled events still queued
  uint64_t digits_[kLevels][kWords]{};  // bit d: bucket (l, d) is non-empty
  std::vector<Entry> buckets_[kBuckets];
  int64_t bucket_min_[kBuckets];
  std::vector<Entry> run_;
  std::vector<Entry> end_of_instant_;
  std::vector<std::unique_ptr<Slot[]>> chunks_;
  uint32_t slot_count_ = 0;
  std::vector<uint32_t> free_slots_;
  std::vector<std::unique_ptr<Handler[]>> large_chunks_;
  uint32_t large_count_ = 0;
  std::vector<uint32_t> free_large_;
};

}  // namespace sim
