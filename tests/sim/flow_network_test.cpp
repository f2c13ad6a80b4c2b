// sim::FlowNetwork against closed forms: one flow, fair sharing, the classic max-min example,
// caps, zero-byte flows, cancellation, per-link accounting, batching of recomputes.
#include <catch2/catch.hpp>
#include <optional>
#include <vector>

#include "sim/flow_network.hpp"

using namespace sim::literals;
using sim::FlowNetwork;
using sim::LinkId;
using sim::Simulator;
using sim::Time;

namespace {
struct Net {
  Simulator sim;
  FlowNetwork net{sim};
  Net() { net.set_audit(true); }
};
constexpr double kGBps = 1e9;
}  // namespace

TEST_CASE("flow network: one flow takes latency + bytes / bandwidth", "[sim]") {
  Net n;
  const LinkId l = n.net.add_link("nvlink", "NVLink", 100 * kGBps, 2_us);
  std::optional<Time> done;
  const LinkId path[] = {l};
  auto id = n.net.start(path, 50'000'000, [&] { done = n.sim.now(); });
  CHECK(n.net.active(id));
  CHECK(n.net.active_flows() == 1);
  n.sim.run(Time::zero());
  // rate = the link's whole capacity: 100 GB/s
  CHECK(n.net.rate(id) == 100 * kGBps);
  n.sim.run();
  // T = 2 us + 50 MB / 100 GB/s = 2 us + 500 us = 502 us, to the picosecond
  REQUIRE(done);
  CHECK(*done == 502_us);
  CHECK_FALSE(n.net.active(id));
  CHECK(n.net.active_flows() == 0);
}

TEST_CASE("flow network: latency adds up along the path, plus the flow's extra latency", "[sim]") {
  Net n;
  const LinkId a = n.net.add_link("a", "PCIe", 10 * kGBps, 1_us);
  const LinkId b = n.net.add_link("b", "PCIe", 20 * kGBps, 3_us);
  std::optional<Time> done;
  const LinkId path[] = {a, b};
  n.net.start(
      path, 1'000'000, [&] { done = n.sim.now(); }, sim::kUnlimitedRate, 500_ns);
  n.sim.run();
  // bottleneck 10 GB/s: T = (1 + 3) us + 0.5 us + 1 MB / 10 GB/s = 4.5 us + 100 us = 104.5 us
  REQUIRE(done);
  CHECK(*done == 104'500_ns);
}

TEST_CASE("flow network: two flows share a link equally, the survivor speeds up", "[sim]") {
  Net n;
  const LinkId l = n.net.add_link("l", "NVLink", 1 * kGBps, Time::zero());
  const LinkId path[] = {l};
  std::optional<Time> done_a, done_b;
  auto a = n.net.start(path, 1'000'000, [&] { done_a = n.sim.now(); });
  auto b = n.net.start(path, 2'000'000, [&] { done_b = n.sim.now(); });
  n.sim.run(Time::zero());
  // C / 2 each: 0.5 GB/s
  CHECK(n.net.rate(a) == 0.5 * kGBps);
  CHECK(n.net.rate(b) == 0.5 * kGBps);
  CHECK(n.net.link_load(l) == 1 * kGBps);
  n.sim.run(2_ms);
  // A: 1 MB at 0.5 GB/s = 2 ms
  REQUIRE(done_a);
  CHECK(*done_a == 2_ms);
  // B alone now: the whole 1 GB/s
  CHECK(n.net.rate(b) == 1 * kGBps);
  n.sim.run();
  // B: 1 MB moved by 2 ms, the other 1 MB at 1 GB/s = 1 ms more -> 3 ms
  REQUIRE(done_b);
  CHECK(*done_b == 3_ms);
}

TEST_CASE("flow network: the classic three-flow, two-link max-min example", "[sim]") {
  // Bertsekas & Gallager sec. 6.5: A crosses links 1 and 2, B only link 1, C only link 2.
  Net n;
  const LinkId l1 = n.net.add_link("l1", "x", 1 * kGBps, Time::zero());
  const LinkId l2 = n.net.add_link("l2", "x", 2 * kGBps, Time::zero());
  const LinkId pa[] = {l1, l2}, pb[] = {l1}, pc[] = {l2};
  auto a = n.net.start(pa, 1'000'000'000, nullptr);
  auto b = n.net.start(pb, 1'000'000'000, nullptr);
  auto c = n.net.start(pc, 1'000'000'000, nullptr);
  n.sim.run(Time::zero());
  // Link 1 saturates first: share c1/2 = 0.5 < c2/2 = 1, so A = B = c1/2 = 0.5 GB/s;
  // C takes what A leaves of link 2: c2 - A = 2 - 0.5 = 1.5 GB/s
  CHECK(n.net.rate(a) == Approx(0.5 * kGBps));
  CHECK(n.net.rate(b) == Approx(0.5 * kGBps));
  CHECK(n.net.rate(c) == Approx(1.5 * kGBps));
  // Both links are full: c1 = A + B, c2 = A + C
  CHECK(n.net.link_load(l1) == Approx(1 * kGBps));
  CHECK(n.net.link_load(l2) == Approx(2 * kGBps));
  // When B leaves, A is limited by link 1 alone (1 GB/s) and C = c2 - A = 1 GB/s: equal shares.
  REQUIRE(n.net.cancel(b));
  n.sim.run(n.sim.now());
  CHECK(n.net.rate(a) == Approx(1 * kGBps));
  CHECK(n.net.rate(c) == Approx(1 * kGBps));
}

TEST_CASE("flow network: rate caps limit a flow and leave the rest to others", "[sim]") {
  Net n;
  const LinkId l = n.net.add_link("l", "x", 1 * kGBps, Time::zero());
  const LinkId path[] = {l};
  std::optional<Time> done;
  auto capped = n.net.start(
      path, 100'000'000, [&] { done = n.sim.now(); }, 0.1 * kGBps);
  n.sim.run(Time::zero());
  // alone, a capped flow runs at min(cap, C) = 0.1 GB/s
  CHECK(n.net.rate(capped) == 0.1 * kGBps);
  auto free_flow = n.net.start(path, 1'000'000'000, nullptr);
  n.sim.run(Time::zero());
  // the other gets C - cap = 0.9 GB/s, more than C/2: max-min, not equal split
  CHECK(n.net.rate(capped) == Approx(0.1 * kGBps));
  CHECK(n.net.rate(free_flow) == Approx(0.9 * kGBps));
  // a cap above the fair share does not bind: two flows capped at 0.8 GB/s get C/2 = 0.5 each
  Net m;
  const LinkId k = m.net.add_link("k", "x", 1 * kGBps, Time::zero());
  const LinkId pk[] = {k};
  auto x = m.net.start(pk, 1'000'000, nullptr, 0.8 * kGBps);
  auto y = m.net.start(pk, 1'000'000, nullptr, 0.8 * kGBps);
  m.sim.run(Time::zero());
  CHECK(m.net.rate(x) == 0.5 * kGBps);
  CHECK(m.net.rate(y) == 0.5 * kGBps);
  n.sim.run();
  // 100 MB at 0.1 GB/s = 1 s
  REQUIRE(done);
  CHECK(*done == 1_s);
}

TEST_CASE("flow network: flows with an empty path run at their cap or arrive after latency", "[sim]") {
  Net n;
  std::optional<Time> capped, uncapped;
  // no shared link: T = extra latency + bytes / cap = 1 us + 1 MB / 1 GB/s = 1001 us
  n.net.start(
      {}, 1'000'000, [&] { capped = n.sim.now(); }, 1 * kGBps, 1_us);
  // no link, no cap: T = extra latency only
  n.net.start(
      {}, 1'000'000, [&] { uncapped = n.sim.now(); }, sim::kUnlimitedRate, 3_us);
  n.sim.run();
  REQUIRE(capped);
  REQUIRE(uncapped);
  CHECK(*capped == 1001_us);
  CHECK(*uncapped == 3_us);
}

TEST_CASE("flow network: zero-byte flows take only the latency and load no link", "[sim]") {
  Net n;
  const LinkId l = n.net.add_link("l", "x", 1 * kGBps, 5_us);
  const LinkId path[] = {l};
  std::optional<Time> done;
  auto id = n.net.start(path, 0, [&] { done = n.sim.now(); });
  CHECK(n.net.active(id));
  n.sim.run(Time::zero());
  CHECK(n.net.link_flow_count(l) == 0);
  n.sim.run();
  // T = latency + 0 / C = 5 us
  REQUIRE(done);
  CHECK(*done == 5_us);
  CHECK(n.net.link_bytes(l) == 0);
  CHECK(n.net.link_busy(l) == Time::zero());
  // and a zero-byte flow can be cancelled before it arrives
  bool ran = false;
  auto z = n.net.start(path, 0, [&] { ran = true; });
  CHECK(n.net.cancel(z));
  n.sim.run();
  CHECK_FALSE(ran);
  CHECK(n.net.active_flows() == 0);
}

TEST_CASE("flow network: a cancelled flow never completes and frees its share", "[sim]") {
  Net n;
  const LinkId l = n.net.add_link("l", "x", 1 * kGBps, Time::zero());
  const LinkId path[] = {l};
  bool a_ran = false;
  std::optional<Time> done_b;
  auto a = n.net.start(path, 10'000'000, [&] { a_ran = true; });
  auto b = n.net.start(path, 2'000'000, [&] { done_b = n.sim.now(); });
  n.sim.run(1_ms);
  CHECK(n.net.rate(b) == 0.5 * kGBps);  // C / 2 while both flow
  CHECK(n.net.cancel(a));
  CHECK_FALSE(n.net.active(a));
  CHECK_FALSE(n.net.cancel(a));  // already gone
  n.sim.run();
  CHECK_FALSE(a_ran);
  CHECK(n.net.rate(b) == 0);  // finished flows report no rate
  // B: 0.5 MB in the first 1 ms at 0.5 GB/s, then 1.5 MB alone at 1 GB/s = 1.5 ms -> 2.5 ms
  REQUIRE(done_b);
  CHECK(*done_b == 2500_us);
  // the link carried A's 0.5 MB before the cancel plus B's 2 MB
  CHECK(n.net.link_bytes(l) == Approx(2'500'000));
}

TEST_CASE("flow network: cancelling a flow in its latency tail stops its handler, the slot is reused safely", "[sim]") {
  Net n;
  const LinkId l = n.net.add_link("l", "x", 1 * kGBps, 10_us);
  const LinkId path[] = {l};
  bool a_ran = false;
  auto a = n.net.start(path, 1'000, [&] { a_ran = true; });
  // drains at 1 us, arrives at 11 us; cancel at 5 us while its last bytes are in flight
  n.sim.run(5_us);
  CHECK(n.net.active(a));
  CHECK(n.net.link_flow_count(l) == 0);
  CHECK(n.net.cancel(a));
  CHECK_FALSE(n.net.active(a));
  CHECK(n.net.active_flows() == 0);
  // A new flow takes A's slot. A's old arrival event (11 us) must not finish it early.
  std::optional<Time> done_b;
  auto b = n.net.start(path, 20'000, [&] { done_b = n.sim.now(); });
  CHECK(b.slot == a.slot);
  n.sim.run();
  CHECK_FALSE(a_ran);
  // B: 5 us + 20 kB / 1 GB/s + 10 us = 35 us
  REQUIRE(done_b);
  CHECK(*done_b == 35_us);
  CHECK(n.net.active_flows() == 0);
}

TEST_CASE("flow network: per-link bytes and busy time", "[sim]") {
  Net n;
  const LinkId l1 = n.net.add_link("l1", "x", 1 * kGBps, 1_us);
  const LinkId l2 = n.net.add_link("l2", "x", 2 * kGBps, Time::zero());
  const LinkId both[] = {l1, l2}, only2[] = {l2};
  n.net.start(both, 1'000'000, nullptr);  // 1 ms at 1 GB/s (l1 is its bottleneck)
  n.sim.run(500_us);
  // in progress: bytes so far = rate * t = 1 GB/s * 0.5 ms = 0.5 MB on both links
  CHECK(n.net.link_bytes(l1) == Approx(500'000));
  CHECK(n.net.link_bytes(l2) == Approx(500'000));
  CHECK(n.net.link_busy(l1) == 500_us);
  n.sim.run(3_ms);
  // idle from 1 ms (drain; the 1 us latency does not occupy the link) to 3 ms
  CHECK(n.net.link_busy(l1) == 1_ms);
  CHECK(n.net.link_bytes(l1) == 1'000'000);
  n.net.start(only2, 4'000'000, nullptr);  // 2 ms at 2 GB/s on l2
  n.sim.run();
  // busy = 1 ms + 2 ms; bytes = 1 MB + 4 MB; l1 untouched by the second flow
  CHECK(n.net.link_busy(l2) == 3_ms);
  CHECK(n.net.link_bytes(l2) == 5'000'000);
  CHECK(n.net.link_busy(l1) == 1_ms);
  CHECK(n.net.link_bytes(l1) == 1'000'000);
  CHECK(n.net.link_name(l2) == "l2");
  CHECK(n.net.link_kind(l2) == "x");
  CHECK(n.net.link_capacity(l2) == 2 * kGBps);
  CHECK(n.net.link_latency(l1) == 1_us);
  CHECK(n.net.link_count() == 2);
}

TEST_CASE("flow network: one recompute per instant, however many arrivals and departures", "[sim]") {
  Net n;
  const LinkId l = n.net.add_link("l", "x", 1 * kGBps, Time::zero());
  const LinkId path[] = {l};
  // 100 flows start at t=0 -> one recompute; 1 kB each at 10 MB/s: all drain at 100 us.
  // Each completion starts a successor at the same instant (zero latency): still one recompute.
  int finished = 0;
  for (int i = 0; i < 100; ++i)
    n.net.start(path, 1'000, [&] {
      ++finished;
      n.net.start(path, 1'000, [&] { ++finished; });
    });
  n.sim.run(Time::zero());
  CHECK(n.net.recomputes() == 1);
  n.sim.run(100_us);
  // rates C / 100 = 10 MB/s; 1 kB / 10 MB/s = 100 us
  CHECK(finished == 100);
  CHECK(n.net.recomputes() == 2);
  CHECK(n.net.active_flows() == 100);
  n.sim.run();
  CHECK(finished == 200);
  CHECK(n.sim.now() == 200_us);
  CHECK(n.net.recomputes() == 3);
}

TEST_CASE("flow network: flows on disjoint links are rated independently", "[sim]") {
  Net n;
  const LinkId a = n.net.add_link("a", "x", 1 * kGBps, Time::zero());
  const LinkId b = n.net.add_link("b", "x", 1 * kGBps, Time::zero());
  const LinkId pa[] = {a}, pb[] = {b};
  for (int i = 0; i < 10; ++i) n.net.start(pa, 1'000'000'000, nullptr);
  n.sim.run(Time::zero());
  const uint64_t rated = n.net.flows_rated();
  n.net.start(pb, 1'000, nullptr);
  n.sim.run(n.sim.now());
  // the arrival on b re-rates only b's component: one flow, not the 10 on a
  CHECK(n.net.flows_rated() - rated == 1);
}

TEST_CASE("flow network: completion time stays exact through many rate changes", "[sim]") {
  Net n;
  const LinkId l = n.net.add_link("l", "x", 450 * kGBps, Time::zero());
  const LinkId path[] = {l};
  std::optional<Time> done;
  // The long flow shares the link with 1,000 short flows, one after another, each 450 kB.
  const int64_t kLong = int64_t{1} << 30;  // 1 GiB
  n.net.start(path, kLong, [&] { done = n.sim.now(); });
  struct Next {
    Net* n;
    const LinkId* path;
    int left;
    void operator()() const {
      if (left > 0) n->net.start({path, 1}, 450'000, Next{n, path, left - 1});
    }
  };
  Next{&n, path, 1000}();
  n.sim.run();
  // Work conservation: the link is always full, so the long flow ends when all bytes have
  // crossed: T = (1 GiB + 1000 * 450 kB) / 450 GB/s, to within a picosecond per rate change.
  REQUIRE(done);
  const double expected_ps = (double(kLong) + 1000 * 450'000.0) / (450 * kGBps) * 1e12;
  CHECK(std::abs(double(done->ps()) - expected_ps) <= 2000);
}

TEST_CASE("flow network: a path longer than the inline hops and a link with many flows", "[sim]") {
  Net n;
  std::vector<LinkId> path;
  // 12 links (more than FlowNetwork::kInlineHops), 1 us each; the narrowest is 5 GB/s
  for (int i = 0; i < 12; ++i) path.push_back(n.net.add_link("l", "x", (i == 7 ? 5 : 20) * kGBps, 1_us));
  std::optional<Time> done;
  n.net.start(path, 5'000'000, [&] { done = n.sim.now(); });
  // 9 flows on the narrowest link alone (more than a link keeps inline): 5 GB/s / 10 each
  std::vector<sim::FlowId> others;
  const LinkId narrow[] = {path[7]};
  for (int i = 0; i < 9; ++i) others.push_back(n.net.start(narrow, 1'000'000'000, nullptr));
  n.sim.run(Time::zero());
  for (auto id : others) CHECK(n.net.rate(id) == Approx(0.5 * kGBps));
  CHECK(n.net.link_flow_count(path[7]) == 10);
  for (auto id : others) n.net.cancel(id);
  n.sim.run();
  // 0.5 GB/s for 0 s (the others leave at once), then 5 GB/s: T = 12 us + 5 MB / 5 GB/s = 1012 us
  REQUIRE(done);
  CHECK(*done == 1012_us);
}
