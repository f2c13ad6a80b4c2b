#include "sim/simulator.hpp"

#include <algorithm>
#include <limits>

namespace sim {

namespace {
constexpr int64_t kNoTime = std::numeric_limits<int64_t>::max();
}

Simulator::Simulator() { std::fill(std::begin(bucket_min_), std::end(bucket_min_), kNoTime); }

uint32_t Simulator::new_slot() {
  SIM_CHECK(slot_count_ < UINT32_MAX - kChunk, "too many pending events");
  if ((slot_count_ & (kChunk - 1)) == 0) chunks_.push_back(std::make_unique<Slot[]>(kChunk));
  return slot_count_++;
}

uint32_t Simulator::acquire_large() {
  if (!free_large_.empty()) {
    const uint32_t i = free_large_.back();
    free_large_.pop_back();
    return i;
  }
  SIM_CHECK(large_count_ < UINT32_MAX - kChunk, "too many pending events");
  if ((large_count_ & (kChunk - 1)) == 0) large_chunks_.push_back(std::make_unique<Handler[]>(kChunk));
  return large_count_++;
}

bool Simulator::pending(EventId id) const {
  return id.valid() && id.slot < slot_count_ && (id.generation & 1) && slot(id.slot).generation == id.generation;
}

bool Simulator::cancel(EventId id) {
  if (!pending(id)) return false;
  Slot& s = slot(id.slot);
  release(s);
  ++s.generation;  // the queue's entry still points here; its old generation makes it a tombstone
  free_slots_.push_back(id.slot);
  --live_;
  // Tombstones leave the queue when they reach its front. A flow network that re-rates thousands
  // of flows per change cancels far-future events at that pace, so sweep them out once they
  // outnumber the live events (amortized O(1) per cancel).
  if (++cancelled_ > live_ + 1024) compact();
  return true;
}

// Drops the tombstones, keeping the run's and every bucket's order (and so the same-time order).
void Simulator::compact() {
  auto keep_live = [this](std::vector<Entry>& v, std::size_t head) {
    std::size_t kept = 0;
    for (std::size_t i = head; i < v.size(); ++i)
      if (alive(v[i])) v[kept++] = v[i];
    v.resize(kept);
  };
  keep_live(run_, run_head_);
  run_head_ = 0;
  keep_live(end_of_instant_, end_head_);
  end_head_ = 0;
  levels_ = 0;
  for (int b = 0; b < kBuckets; ++b) {
    const int level = b / kDigits, digit = b % kDigits;
    if (digit % 64 == 0) digits_[level][digit / 64] = 0;
    keep_live(buckets_[b], 0);
    bucket_min_[b] = kNoTime;
    for (const Entry& e : buckets_[b]) bucket_min_[b] = std::min(bucket_min_[b], e.time_ps);
    if (!buckets_[b].empty()) {
      levels_ |= 1u << level;
      digits_[level][digit / 64] |= uint64_t{1} << (digit % 64);
    }
  }
  cancelled_ = 0;
}

// e goes before the run's last entry: after every entry of a time <= its own. The taken entries
// before run_head_ leave room at the front, so the shorter side moves.
void Simulator::run_insert_before_back(const Entry& e) {
  const auto begin = run_.begin() + static_cast<std::ptrdiff_t>(run_head_);
  const auto at =
      std::upper_bound(begin, run_.end(), e.time_ps, [](int64_t t, const Entry& x) { return t < x.time_ps; });
  if (run_head_ > 0 && at - begin <= run_.end() - at) {
    std::move(begin, at, begin - 1);
    --run_head_;
    *(at - 1) = e;
  } else {
    run_.insert(at, e);
  }
}

// Called when the run's vector passes run_trim_at_; the next call waits until it doubles (or,
// after a spill, reaches kRunMax again), so a long FIFO costs O(1) per append.
void Simulator::trim_run() {
  if (run_head_ * 2 >= run_.size()) {
    run_.erase(run_.begin(), run_.begin() + static_cast<std::ptrdiff_t>(run_head_));
    run_head_ = 0;
  }
  run_trim_at_ = std::max(kRunMax, 2 * run_.size());
  if (run_.size() - run_head_ <= kRunMax) return;
  const int64_t first = run_[run_head_].time_ps;
  if (run_.back().time_ps == first) return;  // one time: a FIFO, appends stay O(1)
  // The later half moves to the levels, all entries of one time together: from the first entry
  // of time t, the middle entry's time or, if that is the first time, the next one. t > last_.
  auto by_time = [](const Entry& x, int64_t t) { return x.time_ps < t; };
  auto mid = run_.begin() + static_cast<std::ptrdiff_t>(run_head_ + (run_.size() - run_head_) / 2);
  int64_t t = mid->time_ps;
  if (t == first)
    t = std::upper_bound(mid, run_.end(), first, [](int64_t v, const Entry& x) { return v < x.time_ps; })->time_ps;
  const auto cut = std::lower_bound(run_.begin() + static_cast<std::ptrdiff_t>(run_head_), run_.end(), t, by_time);
  run_limit_ = static_cast<uint64_t>(t);
  for (auto it = cut; it != run_.end(); ++it) radix_push(*it);
  run_.erase(cut, run_.end());
  run_trim_at_ = std::max(kRunMax, 2 * run_.size());
}

void Simulator::refill(int b) {
  std::vector<Entry>& from = buckets_[b];
  last_ = bucket_min_[b];
  bucket_min_[b] = kNoTime;
  const int level = b / kDigits, digit = b % kDigits;
  digits_[level][digit / 64] &= ~(uint64_t{1} << (digit % 64));
  bool empty_level = true;
  for (uint64_t w : digits_[level]) empty_level = empty_level && w == 0;
  if (empty_level) levels_ &= ~(1u << level);
  if (level == 0 || from.size() <= kSortMax) {
    // The whole bucket becomes the run. Its range (the times that share last_'s digits from
    // `level` up) lies below every other bucket's times, so the run may hold all of it. A
    // level-0 bucket holds one time; others are sorted by time, stably (a bucket holds each
    // time's events in scheduling order).
    run_head_ = 0;
    if (level == 0) {
      run_.swap(from);
    } else {
      // Counting ranks instead of an insertion sort: no branch depends on the times.
      const std::size_t n = from.size();
      run_.resize(n);
      for (std::size_t i = 0; i < n; ++i) {
        const int64_t t = from[i].time_ps;
        std::size_t rank = 0;
        for (std::size_t j = 0; j < i; ++j) rank += from[j].time_ps <= t;
        for (std::size_t j = i + 1; j < n; ++j) rank += from[j].time_ps < t;
        run_[rank] = from[i];
      }
    }
    from.clear();
    const uint64_t span = uint64_t{1} << (kDigitBits * level);
    run_limit_ = (static_cast<uint64_t>(last_) & ~(span - 1)) + span;
    return;
  }
  // Too many to sort: the events at last_ start the run, the others land on lower levels (they
  // all share last_'s digits from `level` up).
  run_limit_ = static_cast<uint64_t>(last_) + 1;
  for (const Entry& e : from) push(e);
  from.clear();
}

// The run holds the earliest ordinary events. End-of-instant events (at now_) come after the
// ordinary events at now_: those are at the run's front if anywhere (every bucket's times are
// >= run_limit_), unless the run is empty and run(until) moved now_ past last_.
bool Simulator::front(int64_t limit, bool* end_of_instant) {
  for (;;) {
    if (run_head_ < run_.size()) {
      const Entry& e = run_[run_head_];
      if (!alive(e)) {
        --cancelled_;
        ++run_head_;
        continue;
      }
      if (e.time_ps <= now_.ps() || end_head_ == end_of_instant_.size()) {
        if (e.time_ps > limit) return false;
        *end_of_instant = false;
        return true;
      }
    } else {
      run_.clear();
      run_head_ = 0;
      run_trim_at_ = kRunMax;
      if (end_head_ == end_of_instant_.size() || (levels_ != 0 && bucket_min_[lowest_bucket()] <= now_.ps())) {
        if (levels_ == 0) {
          // Nothing is queued: any reference time is valid, and now_ keeps it <= now_ even after
          // tombstones beyond now_ were taken out.
          last_ = now_.ps();
          run_limit_ = static_cast<uint64_t>(last_) + 1;
          return false;
        }
        const int b = lowest_bucket();
        if (bucket_min_[b] > limit) return false;
        refill(b);
        continue;
      }
    }
    // The next event is the end-of-instant FIFO's front.
    if (now_.ps() > limit) return false;
    if (alive(end_of_instant_[end_head_])) {
      *end_of_instant = true;
      return true;
    }
    --cancelled_;
    if (++end_head_ == end_of_instant_.size()) {
      end_of_instant_.clear();
      end_head_ = 0;
    }
  }
}

void Simulator::run_front(bool end_of_instant) {
  Entry e;
  if (end_of_instant) [[unlikely]] {
    e = end_of_instant_[end_head_];
    e.time_ps = now_.ps();
    if (++end_head_ == end_of_instant_.size()) {
      end_of_instant_.clear();
      end_head_ = 0;
    }
  } else {
    e = run_[run_head_++];
  }
  SIM_CHECK(e.time_ps >= now_.ps(), "time went backwards");
  now_ = Time::from_ps(e.time_ps);
  Slot& s = slot(e.slot);
  ++s.generation;  // even: no longer pending
  --live_;
  ++events_run_;
  // The handler runs in its slot (slots never move); the slot is recycled only afterwards, so
  // events the handler schedules cannot overwrite it.
  s.handler();
  release(s);
  free_slots_.push_back(e.slot);
}

bool Simulator::step() {
  bool end_of_instant = false;
  if (!front(kNoTime, &end_of_instant)) return false;
  run_front(end_of_instant);
  return true;
}

uint64_t Simulator::run(std::optional<Time> until) {
  stopped_ = false;
  const uint64_t before = events_run_;
  const int64_t limit = until ? until->ps() : kNoTime;
  bool end_of_instant = false;
  while (!stopped_ && front(limit, &end_of_instant)) run_front(end_of_instant);
  if (until && !stopped_) now_ = std::max(now_, *until);
  return events_run_ - before;
}

}  // namespace sim
