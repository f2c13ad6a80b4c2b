// sim::FlowNetwork::start_block (sim/flow_block.cpp): a block of flows on idle links solved in
// closed form must end at the same picosecond, and leave the same link bytes and busy times, as
// the same flows started one by one; a flow arriving on a held link turns the block back into
// flows with the exact state they would have had.
#include <algorithm>
#include <catch2/catch.hpp>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <vector>

#include "sim/flow_network.hpp"

using namespace sim::literals;
using sim::BlockFlow;
using sim::FlowNetwork;
using sim::LinkId;
using sim::Simulator;
using sim::Time;

namespace {
// A block flow with no cap and no latency, every field named (-Wmissing-field-initializers).
BlockFlow uncapped(std::span<const LinkId> path, int64_t bytes) {
  return {.path = path, .bytes = bytes, .rate_cap = sim::kUnlimitedRate, .latency = Time::zero()};
}

// Starts `flows` as a block, or, if the network refuses (or closed forms are off), one by one
// with a shared countdown: what models::collectives::Engine does. `solo` (non-null): as the
// Engine does since solo blocks, the flows alone on idle links still as one block
// (FlowNetwork::start_solo_block), counted in *solo.
void start_group(FlowNetwork& net, const std::vector<BlockFlow>& flows, std::function<void()> done, uint64_t shape = 0,
                 uint64_t* solo = nullptr) {
  auto shared = std::make_shared<std::function<void()>>(std::move(done));
  if (shape != 0 && net.start_cached_block(shape, [shared] { (*shared)(); })) return;
  if (net.start_block(
          flows, [shared] { (*shared)(); }, shape))
    return;
  auto left = std::make_shared<int>(static_cast<int>(flows.size()));
  std::vector<uint8_t> alone;
  const uint32_t solo_flows = solo && flows.size() > 1 ? net.start_solo_block(
                                                             flows,
                                                             [left, shared] {
                                                               if (--*left == 0) (*shared)();
                                                             },
                                                             alone)
                                                       : 0;
  if (solo_flows > 0) {
    *left -= static_cast<int>(solo_flows) - 1;
    ++*solo;
  }
  for (std::size_t i = 0; i < flows.size(); ++i) {
    if (solo_flows > 0 && alone[i]) continue;
    const BlockFlow& f = flows[i];
    net.start_with_latency(
        f.path, f.bytes,
        [left, shared] {
          if (--*left == 0) (*shared)();
        },
        f.rate_cap, f.latency);
  }
}

struct Group {
  std::vector<std::vector<LinkId>> paths;
  std::vector<int64_t> bytes;
  std::vector<double> caps;
  std::vector<Time> lats;
  bool foreign = false;
  uint64_t shape = 0;  // groups drawn from one template repeat the same flows
};

struct Outcome {
  std::map<int, int64_t> done_ps;  // group id -> completion time
  std::vector<double> bytes;       // per link, at the probes and at the end
  std::vector<int64_t> busy_ps;
  uint64_t closed = 0, materialized = 0, repeated = 0;
  uint64_t solo = 0;  // solo blocks (start_solo_block) started
};

// Random groups (blocks of 1-6 flows, sometimes sharing links) and lone foreign flows on a small
// random network, arriving at random times, some at the same instant.
Outcome run_random(uint64_t seed, bool closed_forms, bool solo = false) {
  std::mt19937_64 rng(seed);
  Simulator sim;
  FlowNetwork net(sim);
  net.set_closed_forms(closed_forms);
  const int nlinks = std::uniform_int_distribution<int>(4, 24)(rng);
  std::vector<LinkId> links;
  for (int i = 0; i < nlinks; ++i)
    links.push_back(net.add_link("l" + std::to_string(i), "x", std::uniform_real_distribution<double>(1e9, 5e10)(rng),
                                 Time::zero()));
  Outcome out;
  const int ngroups = std::uniform_int_distribution<int>(1, 40)(rng);
  std::vector<Group> groups(ngroups);
  // Half the seeds crowd their groups in 0.2 ms (contention), half spread them over 4 s (idle gaps).
  std::uniform_int_distribution<int64_t> at_ns(0, seed % 2 == 0 ? 200'000 : 4'000'000'000);
  const int templates = std::uniform_int_distribution<int>(1, 6)(rng);
  for (int g = 0; g < ngroups; ++g) {
    Group& gr = groups[g];
    gr.foreign = rng() % 4 == 0;
    const int t = std::uniform_int_distribution<int>(0, 2 * templates)(rng);
    if (!gr.foreign && t < templates && t < g && !groups[t].foreign) {  // repeat group t's flows
      gr.paths = groups[t].paths;
      gr.bytes = groups[t].bytes;
      gr.caps = groups[t].caps;
      gr.lats = groups[t].lats;
      gr.shape = groups[t].shape;
      const Time when = Time::from_ps(at_ns(rng) / 10'000 * 10'000'000);
      sim.schedule_at(when, [&net, &sim, &out, &groups, g, solo] {
        const Group& gr = groups[g];
        std::vector<BlockFlow> flows;
        for (std::size_t i = 0; i < gr.paths.size(); ++i)
          flows.push_back({.path = gr.paths[i], .bytes = gr.bytes[i], .rate_cap = gr.caps[i], .latency = gr.lats[i]});
        start_group(
            net, flows, [&out, &sim, g] { out.done_ps[g] = sim.now().ps(); }, gr.shape, solo ? &out.solo : nullptr);
      });
      continue;
    }
    gr.shape = gr.foreign ? 0 : static_cast<uint64_t>(g + 1);
    const int nflows = gr.foreign ? 1 : std::uniform_int_distribution<int>(1, 6)(rng);
    for (int f = 0; f < nflows; ++f) {
      std::vector<LinkId> p;
      const int hops = std::uniform_int_distribution<int>(0, 4)(rng);
      for (int h = 0; h < hops; ++h) {
        const LinkId l = links[rng() % links.size()];
        if (std::find(p.begin(), p.end(), l) == p.end()) p.push_back(l);
      }
      gr.paths.push_back(p);
      gr.bytes.push_back(rng() % 8 == 0 ? 0 : std::uniform_int_distribution<int64_t>(1, 50'000'000)(rng));
      gr.caps.push_back(rng() % 3 == 0 ? sim::kUnlimitedRate : std::uniform_real_distribution<double>(5e8, 4e10)(rng));
      gr.lats.push_back(Time::from_ps(std::uniform_int_distribution<int64_t>(0, 20'000'000)(rng)));
    }
    // Several groups share a start instant (multiples of 10 us), so same-instant arrivals happen.
    const Time when = Time::from_ps(at_ns(rng) / 10'000 * 10'000'000);
    sim.schedule_at(when, [&net, &sim, &out, &groups, g, solo] {
      const Group& gr = groups[g];
      std::vector<BlockFlow> flows;
      for (std::size_t i = 0; i < gr.paths.size(); ++i)
        flows.push_back({.path = gr.paths[i], .bytes = gr.bytes[i], .rate_cap = gr.caps[i], .latency = gr.lats[i]});
      auto done = [&out, &sim, g] { out.done_ps[g] = sim.now().ps(); };
      if (gr.foreign)
        net.start_with_latency(flows[0].path, flows[0].bytes, done, flows[0].rate_cap, flows[0].latency);
      else
        start_group(net, flows, done, gr.shape, solo ? &out.solo : nullptr);
    });
  }
  // Probes of the links' accounting while blocks may be held.
  for (int probe = 1; probe <= 4; ++probe)
    sim.schedule_at(Time::from_ps(probe * 50'000'000'000 / 4 + 1), [&net, &out, &links] {
      net.settle_blocks();  // exact at any instant: a running repeated block becomes flows
      for (LinkId l : links) {
        out.bytes.push_back(net.link_bytes(l));
        out.busy_ps.push_back(net.link_busy(l).ps());
      }
    });
  sim.run();
  CHECK(net.active_flows() == 0);
  net.settle_blocks();
  for (LinkId l : links) {
    out.bytes.push_back(net.link_bytes(l));
    out.busy_ps.push_back(net.link_busy(l).ps());
  }
  out.closed = net.blocks_closed();
  out.materialized = net.blocks_materialized();
  out.repeated = net.blocks_repeated();
  return out;
}

}  // namespace

TEST_CASE("flow block: a block on idle links ends at latency + bytes / min(cap, narrowest), in two events", "[sim]") {
  Simulator sim;
  FlowNetwork net(sim);
  const LinkId a = net.add_link("a", "x", 1e9, 5_us);
  const LinkId b = net.add_link("b", "x", 2e9, 5_us);
  const LinkId c = net.add_link("c", "x", 4e9, 5_us);
  const std::vector<LinkId> p1{a, b}, p2{c};
  const std::vector<BlockFlow> flows{{.path = p1, .bytes = 1'000'000, .rate_cap = 3e9, .latency = 2_us},
                                     {.path = p2, .bytes = 1'000'000, .rate_cap = 1e9, .latency = 2_us}};
  Time done;
  REQUIRE(net.start_block(flows, [&] { done = sim.now(); }));
  CHECK(sim.run() == 2);
  // Flow 1: 1 MB at min(3e9, 1e9) = 1 ms; flow 2: at its cap 1e9, 1 ms; then the 2 us latency.
  CHECK(done == 1_ms + 2_us);
  CHECK(net.link_bytes(a) == 1e6);
  CHECK(net.link_busy(a) == 1_ms);
  CHECK(net.link_busy(c) == 1_ms);
  CHECK(net.blocks_closed() == 1);
}

TEST_CASE("flow block: busy or shared links, audit mode or closed forms off refuse the block", "[sim]") {
  Simulator sim;
  FlowNetwork net(sim);
  const LinkId a = net.add_link("a", "x", 1e9, Time::zero());
  const LinkId b = net.add_link("b", "x", 1e9, Time::zero());
  const std::vector<LinkId> pa{a}, pab{a, b}, pb{b};
  CHECK_FALSE(net.start_block(std::vector<BlockFlow>{uncapped(pa, 10), uncapped(pab, 10)}, [] {}));
  net.start(pb, 1000, [] {});
  CHECK_FALSE(net.start_block(std::vector<BlockFlow>{uncapped(pb, 10)}, [] {}));
  net.set_audit(true);
  CHECK_FALSE(net.start_block(std::vector<BlockFlow>{uncapped(pa, 10)}, [] {}));
  net.set_audit(false);
  net.set_closed_forms(false);
  CHECK_FALSE(net.start_block(std::vector<BlockFlow>{uncapped(pa, 10)}, [] {}));
  net.set_closed_forms(true);
  CHECK(net.start_block(std::vector<BlockFlow>{uncapped(pa, 10)}, [] {}));
  sim.run();
}

TEST_CASE("flow block: a flow arriving on a held link shares it from that instant, as with flows", "[sim]") {
  for (bool closed : {true, false}) {
    Simulator sim;
    FlowNetwork net(sim);
    net.set_closed_forms(closed);
    const LinkId a = net.add_link("a", "x", 1e9, Time::zero());
    const std::vector<LinkId> pa{a};
    Time block_done, flow_done;
    start_group(net, {{.path = pa, .bytes = 1'000'000, .latency = 1_us}}, [&] { block_done = sim.now(); });
    // At 0.5 ms the block has moved half; then both share 1 GB/s: 0.5 MB more at 0.5 GB/s = 1 ms.
    sim.schedule_at(500_us, [&] { net.start(pa, 1'000'000, [&] { flow_done = sim.now(); }); });
    sim.run();
    INFO("closed forms " << closed);
    CHECK(block_done == 1500_us + 1_us);
    CHECK(flow_done == 2000_us);
    CHECK(net.link_bytes(a) == 2e6);
    CHECK(net.link_busy(a) == 2_ms);
    CHECK(net.blocks_materialized() == (closed ? 1u : 0u));
  }
}

// The closed form's contract: identical completion picoseconds and link accounting, compared
// exactly, with foreign flows and other blocks arriving during held blocks, and blocks repeated
// from their remembered solution (start_cached_block) whenever the network is idle.
TEST_CASE("flow block: random blocks and foreign flows give the flow engine's results exactly", "[sim]") {
  uint64_t closed = 0, materialized = 0, repeated = 0;
  for (uint64_t seed = 1; seed <= 1000; ++seed) {
    INFO("seed " << seed);
    const Outcome with = run_random(seed, true);
    const Outcome without = run_random(seed, false);
    CHECK(without.closed == 0);
    closed += with.closed;
    materialized += with.materialized;
    repeated += with.repeated;
    REQUIRE(with.done_ps == without.done_ps);
    REQUIRE(with.busy_ps == without.busy_ps);
    REQUIRE(with.bytes == without.bytes);  // exact, not approximate
  }
  INFO("closed " << closed << ", materialized " << materialized << ", repeated " << repeated);
  CHECK(closed > 1000);       // blocks did run in closed form
  CHECK(materialized > 100);  // and the guard did turn some back into flows
  CHECK(repeated > 100);      // and remembered blocks were repeated
}

TEST_CASE("flow block: the flows alone on idle links of a refused block run in closed form, the others as flows",
          "[sim]") {
  for (bool closed : {true, false}) {
    Simulator sim;
    FlowNetwork net(sim);
    net.set_closed_forms(closed);
    const LinkId a = net.add_link("a", "x", 1e9, Time::zero());
    const LinkId b = net.add_link("b", "x", 2e9, Time::zero());
    const LinkId c = net.add_link("c", "x", 4e9, Time::zero());
    const std::vector<LinkId> pa{a}, pab{a, b}, pc{c};
    // Flows 0 and 1 share a (0.5 GB/s each); flow 2 is alone on c at its cap 1 GB/s.
    const std::vector<BlockFlow> flows{{.path = pa, .bytes = 1'000'000, .latency = 1_us},
                                       {.path = pab, .bytes = 2'000'000, .latency = 1_us},
                                       {.path = pc, .bytes = 3'000'000, .rate_cap = 1e9, .latency = 1_us}};
    REQUIRE_FALSE(net.start_block(flows, [] {}));
    Time done;
    uint64_t solo = 0;
    start_group(
        net, flows, [&] { done = sim.now(); }, 0, &solo);
    sim.run();
    INFO("closed forms " << closed);
    // Flow 0: 1 MB at 0.5 GB/s = 2 ms; flow 1 then alone at 1 GB/s: 1 MB more, 3 ms; flow 2 3 ms.
    CHECK(done == 3_ms + 1_us);
    CHECK(solo == (closed ? 1u : 0u));
    CHECK(net.blocks_closed() == (closed ? 1u : 0u));
    CHECK(net.link_bytes(c) == 3e6);
    CHECK(net.link_busy(c) == 3_ms);
    CHECK(net.link_bytes(a) == 3e6);
  }
}

// Solo blocks keep the contract: the random groups of the test above, refused blocks split into
// their solo part (closed form) and the rest (flows), against closed forms off.
TEST_CASE("flow block: random refused blocks split into solo blocks give the flow engine's results exactly", "[sim]") {
  uint64_t solo = 0, materialized = 0;
  for (uint64_t seed = 1; seed <= 1000; ++seed) {
    INFO("seed " << seed);
    const Outcome with = run_random(seed, true, true);
    const Outcome without = run_random(seed, false);
    solo += with.solo;
    materialized += with.materialized;
    REQUIRE(with.done_ps == without.done_ps);
    REQUIRE(with.busy_ps == without.busy_ps);
    REQUIRE(with.bytes == without.bytes);  // exact, not approximate
  }
  INFO("solo blocks " << solo << ", materialized " << materialized);
  CHECK(solo > 300);  // refused blocks did run their solo flows in closed form
  CHECK(materialized > 100);
}
