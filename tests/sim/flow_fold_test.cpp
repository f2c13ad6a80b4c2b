// sim::FlowNetwork folded links (set_folded_links, set_fold_tag): a tagged flow runs on its links' class
// folded links, rated as it would be on the real links it stands for, and the guard stops the run at
// the end of any instant in which a class's folded link and one of its real links both carry traffic,
// not when one leaves as the other arrives.
#include <catch2/catch.hpp>
#include <vector>

#include "sim/flow_network.hpp"

using sim::BlockFlow;
using sim::FlowNetwork;
using sim::LinkId;
using sim::Simulator;
using sim::Time;

namespace {
// Two replicas of one link each (a0 of replica 0, a1 of replica 1: one class), and an unclassed link x.
struct Rig {
  Simulator sim;
  FlowNetwork net{sim};
  LinkId a0 = net.add_link("a0", "nic", 100.0, Time::zero());
  LinkId a1 = net.add_link("a1", "nic", 100.0, Time::zero());
  LinkId x = net.add_link("x", "fabric", 100.0, Time::zero());
  Rig() {
    const LinkId model[] = {a0};
    net.set_folded_links({0, 0, FlowNetwork::kNoClass}, model);
  }
  std::vector<LinkId> path(LinkId l) const { return {l}; }
};
}  // namespace

TEST_CASE("flow folded links: a tagged flow runs on the folded link, at the real link's rate, and is accounted there", "[sim]") {
  Rig r;
  REQUIRE(r.net.folded());
  REQUIRE(r.net.link_count() == 4);
  const LinkId folded{3};
  CHECK(r.net.is_folded_link(folded));
  CHECK(r.net.folded_link_of(r.a1)->index == 3);
  CHECK_FALSE(r.net.folded_link_of(r.x));
  CHECK(r.net.link_capacity(folded) == 100.0);
  Time done;
  const auto p0 = r.path(r.a0);
  r.net.set_fold_tag(true);
  r.net.start(p0, 1000, [&] { done = r.sim.now(); });
  r.net.set_fold_tag(false);
  r.sim.run();
  CHECK(done == Time::from_seconds(10.0));  // 1000 B at 100 B/s, alone
  CHECK(r.net.link_bytes(folded) == 1000.0);
  CHECK(r.net.link_bytes(r.a0) == 0.0);
  CHECK_FALSE(r.net.fold_violated());
}

TEST_CASE("flow folded links: other traffic on a real link of a busy class stops the run", "[sim]") {
  for (const bool block : {false, true}) {
    INFO("as a closed-form block: " << block);
    Rig r;
    const auto p0 = r.path(r.a0), p1 = r.path(r.a1);
    r.net.set_fold_tag(true);
    r.net.start(p0, 1000, [] {});
    r.net.set_fold_tag(false);
    r.sim.schedule_at(Time::from_seconds(4.0), [&] {
      if (block) {
        const BlockFlow f{.path = p1, .bytes = 100};
        REQUIRE(r.net.start_block(std::vector<BlockFlow>{f}, [] {}));
      } else {
        r.net.start(p1, 100, [] {});
      }
    });
    r.sim.run();
    CHECK(r.net.fold_violated());
    CHECK(r.net.fold_violation_time() == Time::from_seconds(4.0));
    CHECK(r.net.fold_violation_link().index == 3);
    CHECK(r.sim.now() == Time::from_seconds(4.0));  // stopped there
  }
}

TEST_CASE("flow folded links: traffic that takes over a class as the other side leaves is no conflict", "[sim]") {
  Rig r;
  const auto p0 = r.path(r.a0), p1 = r.path(r.a1), px = r.path(r.x);
  Time last;
  // Real traffic drains at 10 s; a tagged flow arrives at 10 s, scheduled before the drain event.
  r.sim.schedule_at(Time::from_seconds(10.0), [&] {
    r.net.set_fold_tag(true);
    r.net.start(p0, 500, [&] { last = r.sim.now(); });
    r.net.set_fold_tag(false);
  });
  r.net.start(p1, 1000, [] {});
  r.net.start(px, 5000, [] {});  // unclassed: never a conflict
  r.sim.run();
  CHECK_FALSE(r.net.fold_violated());
  CHECK(last == Time::from_seconds(15.0));
  CHECK(r.net.link_bytes(r.a1) == 1000.0);
  CHECK(r.net.link_busy(LinkId{3}) == Time::from_seconds(5.0));
}

TEST_CASE("flow folded links: a tagged flow on a link no class holds stops the run at once", "[sim]") {
  Rig r;
  const auto px = r.path(r.x);
  r.net.set_fold_tag(true);
  r.net.start(px, 100, [] {});
  r.net.set_fold_tag(false);
  CHECK(r.net.fold_violated());
  CHECK(r.net.fold_violation_link().index == r.x.index);
}
