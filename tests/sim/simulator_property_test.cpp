// Randomized property test of sim::Simulator's queue (a radix heap): a random script of
// schedules (ties, huge times, end-of-instant events), cancellations (enough to trigger the
// queue's compaction), run(until), step() and stop() is played on the Simulator and on a
// deliberately simple reference that keeps every pending event in a vector and takes the
// smallest (time, end-of-instant, sequence) key -- the order the simulator promises. The two
// must run the same events at the same times in the same order.
#include <array>
#include <catch2/catch.hpp>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <random>
#include <tuple>
#include <vector>

#include "sim/simulator.hpp"

using sim::Simulator;
using sim::Time;

namespace {

// The reference: O(n) per event, obviously correct.
class ReferenceSim {
 public:
  struct Id {
    std::size_t index = SIZE_MAX;
  };
  Time now() const { return now_; }
  template <typename F>
  Id schedule_at(Time when, F&& f) {
    return add(when.ps(), false, std::forward<F>(f));
  }
  template <typename F>
  Id schedule_end_of_instant(F&& f) {
    return add(now_.ps(), true, std::forward<F>(f));
  }
  bool cancel(Id id) {
    if (id.index >= events_.size() || !events_[id.index].pending) return false;
    events_[id.index].pending = false;
    return true;
  }
  uint64_t run(std::optional<Time> until) {
    stopped_ = false;
    uint64_t n = 0;
    for (;;) {
      if (stopped_) break;
      const std::size_t i = next();
      if (i == SIZE_MAX || (until && events_[i].time > until->ps())) break;
      fire(i);
      ++n;
    }
    if (until && !stopped_) now_ = std::max(now_, *until);
    return n;
  }
  bool step() {
    const std::size_t i = next();
    if (i == SIZE_MAX) return false;
    fire(i);
    return true;
  }
  void stop() { stopped_ = true; }

 private:
  struct Event {
    int64_t time;
    bool end_of_instant;
    uint64_t sequence;
    bool pending;
    std::function<void()> f;
  };
  template <typename F>
  Id add(int64_t t, bool eoi, F&& f) {
    events_.push_back(Event{t, eoi, sequence_++, true, std::forward<F>(f)});
    return Id{events_.size() - 1};
  }
  std::size_t next() const {
    std::size_t best = SIZE_MAX;
    for (std::size_t i = 0; i < events_.size(); ++i) {
      const Event& e = events_[i];
      if (!e.pending) continue;
      if (best == SIZE_MAX) {
        best = i;
        continue;
      }
      const Event& b = events_[best];
      if (std::tie(e.time, e.end_of_instant, e.sequence) < std::tie(b.time, b.end_of_instant, b.sequence)) best = i;
    }
    return best;
  }
  void fire(std::size_t i) {
    events_[i].pending = false;
    now_ = Time::from_ps(events_[i].time);
    auto f = std::move(events_[i].f);
    f();
  }
  std::vector<Event> events_;
  uint64_t sequence_ = 0;
  Time now_;
  bool stopped_ = false;
};

struct Fired {
  int id;
  int64_t time;
  bool operator==(const Fired&) const = default;
};

// Plays one random script on `S`. Every decision is drawn from a generator seeded the same way
// for both simulators, and drawn in the same order as long as they run the same events.
// `dense` crowds hundreds of events into a few microseconds with many equal times: the queue's
// sorted run then grows past its limit and spills back to the radix levels, equal times sit on
// both sides of the boundary, run(until) stops inside the run, and end-of-instant events wait
// while the run's front is later than now().
template <typename S>
std::vector<Fired> play(uint64_t seed, bool dense = false) {
  S s;
  std::mt19937_64 rng(seed);
  std::vector<Fired> log;
  using Id = decltype(s.schedule_at(Time::zero(), [] {}));
  std::vector<Id> ids;
  int next_id = 0;
  // Delays from several scales: ties (0), picoseconds, microseconds, seconds, days.
  std::optional<int64_t> burst;  // while set, every ordinary event gets this delay
  auto delay = [&rng, dense, &burst]() -> int64_t {
    if (burst) return *burst;
    if (dense) {
      switch (rng() % 6) {
        case 0: return 0;
        case 1: return int64_t(rng() % 8);
        case 2: return int64_t(rng() % 300);
        case 3: return int64_t(rng() % 5000);
        case 4: return int64_t(rng() % 300'000);
        default: return int64_t(rng() % 10'000'000);
      }
    }
    switch (rng() % 6) {
      case 0: return 0;
      case 1: return int64_t(rng() % 64);
      case 2: return int64_t(rng() % 5000);
      case 3: return int64_t(rng() % 10'000'000);
      case 4: return int64_t(rng() % 1'000'000'000'000);
      default: return int64_t(rng() % (int64_t{1} << 56));
    }
  };
  std::function<void(int)> schedule;
  auto action = [&](int id) {
    log.push_back(Fired{id, s.now().ps()});
    const int spawn = int(rng() % 3);
    for (int k = 0; k < spawn; ++k) schedule(0);
    if (rng() % 4 == 0 && !ids.empty()) s.cancel(ids[rng() % ids.size()]);
    if (rng() % 50 == 0) s.stop();
  };
  schedule = [&](int) {
    const int id = next_id++;
    if (rng() % 8 == 0) {
      ids.push_back(s.schedule_end_of_instant([&action, id] { action(id); }));
    } else {
      // Some handlers capture more than the record holds inline (the large pool).
      if (rng() % 5 == 0) {
        std::array<int64_t, 8> ballast{};
        ballast[7] = id;
        ids.push_back(s.schedule_at(s.now() + Time::from_ps(delay()),
                                    [&action, ballast] { action(static_cast<int>(ballast[7])); }));
      } else {
        ids.push_back(s.schedule_at(s.now() + Time::from_ps(delay()), [&action, id] { action(id); }));
      }
    }
  };
  for (int round = 0; round < 40; ++round) {
    const int adds = int(rng() % (dense ? 400 : 60));
    for (int k = 0; k < adds; ++k) schedule(0);
    if (dense && rng() % 8 == 0) {  // hundreds of events at one time: the run is a FIFO
      burst = int64_t(rng() % 3);
      for (int k = 0; k < 300; ++k) schedule(0);
      burst.reset();
    }
    if (rng() % 3 == 0) {  // mass cancellation
      for (std::size_t k = 0; k < ids.size(); ++k)
        if (rng() % 4 != 0) s.cancel(ids[k]);
    }
    // Crowded scripts rarely drain the queue, so that tombstones pile up (the compaction).
    const int how = int(rng() % 3);
    switch (dense && rng() % 8 != 0 ? 0 : how) {
      case 0: s.run(s.now() + Time::from_ps(delay())); break;
      case 1:
        for (int k = int(rng() % 20); k > 0; --k) s.step();
        break;
      default: s.run(std::nullopt); break;
    }
  }
  s.run(std::nullopt);
  log.push_back(Fired{-1, s.now().ps()});
  return log;
}

}  // namespace

TEST_CASE("simulator: random scripts run in (time, end-of-instant, sequence) order, as the reference", "[sim]") {
  for (uint64_t seed = 1; seed <= 200; ++seed) {
    INFO("seed " << seed);
    const std::vector<Fired> got = play<Simulator>(seed);
    const std::vector<Fired> want = play<ReferenceSim>(seed);
    REQUIRE(got.size() == want.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
      INFO("event " << i);
      REQUIRE(got[i].id == want[i].id);
      REQUIRE(got[i].time == want[i].time);
    }
  }
}

TEST_CASE(
    "simulator: crowded random scripts (the sorted run grows, spills and is cut by run(until)) run as the reference",
    "[sim]") {
  for (uint64_t seed = 1; seed <= 80; ++seed) {
    INFO("seed " << seed);
    const std::vector<Fired> got = play<Simulator>(seed, true);
    const std::vector<Fired> want = play<ReferenceSim>(seed, true);
    REQUIRE(got.size() == want.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
      INFO("event " << i);
      REQUIRE(got[i].id == want[i].id);
      REQUIRE(got[i].time == want[i].time);
    }
  }
}

TEST_CASE("simulator: a large handler's captures are destroyed when it runs or is cancelled", "[sim]") {
  Simulator s;
  auto token = std::make_shared<int>(7);
  std::array<int64_t, 6> big{};  // more than Simulator::kSmallCapture bytes: the large pool
  int ran = 0;
  s.schedule_at(Time::from_ps(5), [token, big, &ran] { ran += *token + int(big[0]); });
  auto id = s.schedule_at(Time::from_ps(6), [token, big, &ran] { ran += 100 + int(big[0]); });
  CHECK(token.use_count() == 3);
  CHECK(s.cancel(id));
  CHECK(token.use_count() == 2);
  s.run();
  CHECK(ran == 7);
  CHECK(token.use_count() == 1);
}
