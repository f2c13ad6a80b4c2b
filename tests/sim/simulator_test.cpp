// sim::Simulator: (time, sequence) order, cancellation, run(until), end-of-instant events.
#include <algorithm>
#include <catch2/catch.hpp>
#include <vector>

#include "sim/simulator.hpp"

using namespace sim::literals;
using sim::Simulator;
using sim::Time;

TEST_CASE("simulator: events run in time order", "[sim]") {
  Simulator s;
  std::vector<int64_t> seen;
  for (int64_t t : {5, 1, 4, 2, 3}) s.schedule_at(Time::from_ps(t), [&, t] { seen.push_back(t); });
  CHECK(s.pending_count() == 5);
  CHECK(s.run() == 5);
  CHECK(seen == std::vector<int64_t>{1, 2, 3, 4, 5});
  CHECK(s.now() == 5_ps);
  CHECK(s.empty());
  CHECK(s.events_run() == 5);
}

TEST_CASE("simulator: same-time events keep scheduling order", "[sim]") {
  Simulator s;
  std::vector<int> seen;
  // 1000 events at the same instant, interleaved with later ones: FIFO within an instant
  for (int i = 0; i < 1000; ++i) {
    s.schedule_at(7_ns, [&, i] { seen.push_back(i); });
    s.schedule_at(9_ns, [&, i] { seen.push_back(10000 + i); });
  }
  s.run();
  REQUIRE(seen.size() == 2000);
  for (int i = 0; i < 1000; ++i) {
    CHECK(seen[i] == i);
    CHECK(seen[1000 + i] == 10000 + i);
  }
}

TEST_CASE("simulator: events at Time::max() run, in scheduling order, after earlier ones", "[sim]") {
  // The last representable instant: the queue's range arithmetic must not overflow there.
  for (int earlier : {0, 1, 40}) {
    Simulator s;
    std::vector<int> seen;
    for (int i = 0; i < earlier; ++i)
      s.schedule_at(Time::max() - Time::from_ps(int64_t(1) << (i % 62)), [&seen] { seen.push_back(-1); });
    s.schedule_at(Time::max(), [&] {
      seen.push_back(0);
      s.schedule_at(Time::max(), [&seen] { seen.push_back(3); });
      s.schedule_end_of_instant([&seen] { seen.push_back(4); });
    });
    s.schedule_at(Time::max(), [&seen] { seen.push_back(1); });
    s.schedule_at(Time::max(), [&seen] { seen.push_back(2); });
    CHECK(s.run() == uint64_t(earlier) + 5);
    CHECK(s.now() == Time::max());
    std::vector<int> want(std::size_t(earlier), -1);
    for (int i = 0; i <= 4; ++i) want.push_back(i);
    CHECK(seen == want);
  }
}

TEST_CASE("simulator: events scheduled during an instant for that instant run after it", "[sim]") {
  Simulator s;
  std::vector<int> seen;
  s.schedule_at(1_ns, [&] {
    seen.push_back(1);
    s.schedule_in(Time::zero(), [&] { seen.push_back(3); });
  });
  s.schedule_at(1_ns, [&] { seen.push_back(2); });
  s.run();
  CHECK(seen == std::vector<int>{1, 2, 3});
}

TEST_CASE("simulator: cancelled events never run", "[sim]") {
  Simulator s;
  std::vector<int> seen;
  auto a = s.schedule_at(1_ns, [&] { seen.push_back(1); });
  auto b = s.schedule_at(2_ns, [&] { seen.push_back(2); });
  auto c = s.schedule_at(3_ns, [&] { seen.push_back(3); });
  CHECK(s.pending(b));
  CHECK(s.cancel(b));
  CHECK_FALSE(s.pending(b));
  CHECK_FALSE(s.cancel(b));  // twice: nothing left to cancel
  CHECK(s.pending_count() == 2);
  // An event cancelled from inside another event, at the same instant, does not run either.
  s.schedule_at(3_ns, [&] { seen.push_back(4); });
  auto d = s.schedule_at(3_ns, [&] { seen.push_back(5); });
  s.schedule_at(1_ns, [&] { s.cancel(d); });
  s.run();
  CHECK(seen == std::vector<int>{1, 3, 4});
  // A slot reused after cancellation does not revive the old id.
  auto e = s.schedule_in(1_ns, [&] { seen.push_back(6); });
  CHECK_FALSE(s.cancel(b));
  CHECK_FALSE(s.pending(a));  // ran already
  CHECK_FALSE(s.cancel(c));
  CHECK(s.pending(e));
  s.run();
  CHECK(seen.back() == 6);
  CHECK_FALSE(s.cancel(sim::EventId{}));
}

TEST_CASE("simulator: an event cannot cancel itself while it runs", "[sim]") {
  Simulator s;
  sim::EventId self;
  bool cancelled = true;
  self = s.schedule_at(1_ns, [&] { cancelled = s.cancel(self); });
  s.run();
  CHECK_FALSE(cancelled);
}

TEST_CASE("simulator: run(until) stops before later events and sets now", "[sim]") {
  Simulator s;
  std::vector<int> seen;
  s.schedule_at(1_us, [&] { seen.push_back(1); });
  s.schedule_at(2_us, [&] { seen.push_back(2); });  // exactly at `until`: runs
  s.schedule_at(3_us, [&] { seen.push_back(3); });
  CHECK(s.run(2_us) == 2);
  CHECK(seen == std::vector<int>{1, 2});
  CHECK(s.now() == 2_us);
  // Time passes to `until` even when nothing is left before it.
  CHECK(s.run(Time::from_ns(2500)) == 0);
  CHECK(s.now() == 2500_ns);
  CHECK(s.run(10_us) == 1);
  CHECK(s.now() == 10_us);  // queue drained at 3 us, clock still moves to 10 us
  // A bound in the past leaves the clock alone.
  CHECK(s.run(1_us) == 0);
  CHECK(s.now() == 10_us);
  // schedule_in is relative to the advanced clock
  s.schedule_in(1_us, [&] { seen.push_back(4); });
  s.run();
  CHECK(s.now() == 11_us);
}

TEST_CASE("simulator: stop() ends run without moving the clock to until", "[sim]") {
  Simulator s;
  int ran = 0;
  s.schedule_at(1_us, [&] {
    ++ran;
    s.stop();
  });
  s.schedule_at(2_us, [&] { ++ran; });
  CHECK(s.run(5_us) == 1);
  CHECK(s.now() == 1_us);
  CHECK(ran == 1);
  CHECK(s.run() == 1);  // run again resumes
  CHECK(ran == 2);
}

TEST_CASE("simulator: step runs one event at a time", "[sim]") {
  Simulator s;
  int ran = 0;
  s.schedule_at(1_ns, [&] { ++ran; });
  s.schedule_at(2_ns, [&] { ++ran; });
  CHECK(s.step());
  CHECK(ran == 1);
  CHECK(s.now() == 1_ns);
  CHECK(s.step());
  CHECK_FALSE(s.step());
  CHECK(ran == 2);
}

TEST_CASE("simulator: end-of-instant events run after everything else at their instant", "[sim]") {
  Simulator s;
  std::vector<int> seen;
  s.schedule_at(1_ns, [&] {
    seen.push_back(1);
    s.schedule_end_of_instant([&] { seen.push_back(10); });
    s.schedule_end_of_instant([&] { seen.push_back(11); });
    // scheduled later in the same instant, yet it runs before the end-of-instant events
    s.schedule_in(Time::zero(), [&] { seen.push_back(3); });
  });
  s.schedule_at(1_ns, [&] { seen.push_back(2); });
  s.schedule_at(2_ns, [&] { seen.push_back(20); });
  s.run();
  CHECK(seen == std::vector<int>{1, 2, 3, 10, 11, 20});
  // and they can be cancelled like any other
  auto id = s.schedule_end_of_instant([&] { seen.push_back(99); });
  CHECK(s.cancel(id));
  s.run();
  CHECK(seen.back() == 20);
}

TEST_CASE("simulator: handlers may schedule many events while running (slot pool grows)", "[sim]") {
  Simulator s;
  int64_t count = 0;
  // A chain: each event schedules two more until depth 12 -> 2^13 - 1 events in total
  struct Spawner {
    Simulator* s;
    int64_t* count;
    int depth;
    void operator()() const {
      ++*count;
      if (depth < 12) {
        s->schedule_in(1_ns, Spawner{s, count, depth + 1});
        s->schedule_in(1_ns, Spawner{s, count, depth + 1});
      }
    }
  };
  s.schedule_at(Time::zero(), Spawner{&s, &count, 0});
  s.run();
  CHECK(count == (1 << 13) - 1);
  CHECK(s.now() == 12_ns);
}

TEST_CASE("simulator: mass cancellation (heap compaction) keeps order and drops nothing live", "[sim]") {
  Simulator s;
  std::vector<sim::EventId> ids;
  std::vector<int64_t> seen;
  // 20,000 events at scrambled times; cancel all but every 7th: tombstones far outnumber the live
  for (int64_t i = 0; i < 20000; ++i) {
    const int64_t t = (i * 7919) % 20000;
    ids.push_back(s.schedule_at(Time::from_ps(t), [&, t] { seen.push_back(t); }));
  }
  std::size_t kept = 0;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (i % 7 == 0) {
      ++kept;
      continue;
    }
    CHECK(s.cancel(ids[i]));
  }
  CHECK(s.pending_count() == kept);
  for (std::size_t i = 0; i < ids.size(); ++i) CHECK(s.pending(ids[i]) == (i % 7 == 0));
  s.run();
  REQUIRE(seen.size() == kept);
  CHECK(std::is_sorted(seen.begin(), seen.end()));
}
