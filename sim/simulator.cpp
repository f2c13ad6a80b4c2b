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

// Drops the tombstones, keeping every bucket's order (and so the same-time order).
void Simulator::compact() {
  auto keep_live = [this](std::vector<Entry>& v, std::size_t head) {
    std::size_t kept = 0;
    for (std::size_t i = head; i < v.size(); ++i)
      if (alive(v[i])) v[kept++] = v[i];
    v.resize(kept);
  };
  keep_live(buckets_[0], head0_);
  head0_ = 0;
  keep_live(end_of_instant_, end_head_);
  end_head_ = 0;
  levels_ = 0;
  for (int b = 1; b < kBuckets; ++b) {
    const int level = (b - 1) / kDigits, digit = (b - 1) % kDigits;
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

void Simulator::spread(int b) {
  std::vector<Entry>& from = buckets_[b];
  last_ = bucket_min_[b];
  bucket_min_[b] = kNoTime;
  const int level = (b - 1) / kDigits, digit = (b - 1) % kDigits;
  digits_[level][digit / 64] &= ~(uint64_t{1} << (digit % 64));
  bool empty_level = true;
  for (uint64_t w : digits_[level]) empty_level = empty_level && w == 0;
  if (empty_level) levels_ &= ~(1u << level);
  if (level == 0 || from.size() == 1) {
    // All its events are at last_ (a level-0 bucket's differ from last_ in the lowest digit only
    // and share that digit), in order. Bucket 0 is empty: exchange the buffers instead.
    buckets_[0].swap(from);
    return;
  }
  // Every entry lands on a lower level: they all share last_'s digits from `level` up.
  for (const Entry& e : from) push(e);
  from.clear();
}

// Bucket 0, when not empty, holds events at now_: a handler only runs right after one of its
// events was taken, and run(until) returns only once bucket 0 is empty. So its events come
// first; end-of-instant events come next unless an ordinary event at now_ waits in a higher
// bucket (run(until) moved now_ past last_).
bool Simulator::front(int64_t limit, bool* end_of_instant) {
  std::vector<Entry>& zero = buckets_[0];
  for (;;) {
    if (head0_ < zero.size()) {
      const Entry& e = zero[head0_];
      if (e.time_ps > limit) return false;
      if (alive(e)) {
        *end_of_instant = false;
        return true;
      }
      --cancelled_;
      ++head0_;
      continue;
    }
    zero.clear();
    head0_ = 0;
    if (end_head_ < end_of_instant_.size() && (levels_ == 0 || bucket_min_[lowest_bucket()] > now_.ps())) {
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
      continue;
    }
    if (levels_ == 0) {
      // Nothing is queued: any reference time is valid, and now_ keeps it <= now_ even after
      // tombstones beyond now_ were taken out.
      last_ = now_.ps();
      return false;
    }
    const int b = lowest_bucket();
    if (bucket_min_[b] > limit) return false;
    spread(b);
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
    e = buckets_[0][head0_++];
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
