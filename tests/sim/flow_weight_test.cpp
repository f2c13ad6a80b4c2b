// Weighted flows and watches (sim::FlowNetwork::start_weighted, watch_links;
// all-to-all fold). A flow of weight w stands for w identical flows: max-min gives identical
// flows identical rates (the allocation is unique), so the w copies, as one record, get w times
// one copy's rate and finish at the same picosecond (up to the rounding of the w-fold sums).
// Checked on random networks against the same flows started w times each.
#include <catch2/catch.hpp>
#include <random>
#include <vector>

#include "sim/flow_network.hpp"

using namespace sim::literals;
using sim::FlowNetwork;
using sim::LinkId;
using sim::Simulator;
using sim::Time;

namespace {

struct Spec {
  std::vector<int> links;
  double bytes, cap;
  uint32_t weight;
  Time start, latency;
};

// Finish time of each spec'd flow: weighted records, or each weight-w flow started w times.
std::vector<Time> run(const std::vector<double>& capacity, const std::vector<Spec>& flows, bool weighted) {
  Simulator sim;
  FlowNetwork net(sim);
  net.set_audit(true);
  std::vector<LinkId> ids;
  for (double c : capacity) ids.push_back(net.add_link("l", "k", c, Time::zero()));
  std::vector<Time> done(flows.size(), Time::zero());
  for (std::size_t i = 0; i < flows.size(); ++i) {
    const Spec& f = flows[i];
    sim.schedule_at(f.start, [&, i] {
      const Spec& s = flows[i];
      std::vector<LinkId> path;
      for (int l : s.links) path.push_back(ids[l]);
      if (weighted) {
        net.start_weighted(
            path, s.bytes * s.weight, [&, i] { done[i] = sim.now(); }, s.cap * s.weight, s.latency, s.weight);
      } else {
        for (uint32_t k = 0; k < s.weight; ++k)
          net.start_weighted(
              path, s.bytes, [&, i] { done[i] = std::max(done[i], sim.now()); }, s.cap, s.latency, 1);
      }
    });
  }
  sim.run();
  return done;
}

}  // namespace

TEST_CASE("flow weight: w identical flows as one record finish when the w flows do", "[sim]") {
  std::mt19937 rng(14);
  std::uniform_int_distribution<int> nlinks(1, 6), nflows(1, 8), hops(1, 3), w(1, 5), start(0, 3);
  std::uniform_real_distribution<double> cap(1e9, 1e10), bytes(1e6, 1e8);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<double> capacity(nlinks(rng));
    for (double& c : capacity) c = cap(rng);
    std::vector<Spec> flows(nflows(rng));
    for (Spec& f : flows) {
      std::vector<int> all(capacity.size());
      for (std::size_t l = 0; l < all.size(); ++l) all[l] = static_cast<int>(l);
      std::shuffle(all.begin(), all.end(), rng);
      all.resize(std::min<std::size_t>(all.size(), hops(rng)));
      f.links = all;
      f.bytes = std::floor(bytes(rng));
      f.cap = rng() % 3 == 0 ? cap(rng) / 4 : sim::kUnlimitedRate;
      f.weight = static_cast<uint32_t>(w(rng));
      f.start = Time::from_ps(start(rng) * 1'000'000'000LL);  // 0..3 ms
      f.latency = Time::from_ps(rng() % 5'000'000);
    }
    const auto a = run(capacity, flows, true), b = run(capacity, flows, false);
    for (std::size_t i = 0; i < flows.size(); ++i) {
      INFO("trial " << trial << " flow " << i);
      // Equal up to the rounding of w-fold sums: a picosecond per drain at most.
      CHECK(std::llabs(a[i].ps() - b[i].ps()) <= static_cast<int64_t>(flows.size()) * 4);
    }
  }
}

TEST_CASE("flow weight: a weighted flow's share of a link is its weight's", "[sim]") {
  // One 10 GB/s link: a flow of weight 3 and a flow of weight 1 get 7.5 and 2.5 GB/s.
  Simulator sim;
  FlowNetwork net(sim);
  const LinkId l = net.add_link("l", "k", 10e9, Time::zero());
  const auto a = net.start_weighted(
      std::vector{l}, 3e9, [] {}, sim::kUnlimitedRate, Time::zero(), 3);
  const auto b = net.start_weighted(
      std::vector{l}, 1e9, [] {}, sim::kUnlimitedRate, Time::zero(), 1);
  sim.run(1_ns);
  CHECK(net.rate(a) == Approx(7.5e9));
  CHECK(net.rate(b) == Approx(2.5e9));
  // Capped per unit: weight 3 with a cap of 3 GB/s in all (1 GB/s each) leaves 7 GB/s to b.
  sim.run();
  const auto c = net.start_weighted(
      std::vector{l}, 3e9, [] {}, 3e9, Time::zero(), 3);
  const auto d = net.start_weighted(
      std::vector{l}, 1e9, [] {}, sim::kUnlimitedRate, Time::zero(), 1);
  sim.run(sim.now() + 1_ns);
  CHECK(net.rate(c) == Approx(3e9));
  CHECK(net.rate(d) == Approx(7e9));
}

TEST_CASE("flow watch: a flow joining a watched busy link calls the watcher first, once", "[sim]") {
  Simulator sim;
  FlowNetwork net(sim);
  const LinkId l = net.add_link("l", "k", 1e9, Time::zero()), m = net.add_link("m", "k", 1e9, Time::zero());
  int fired = 0;
  bool joined_after = false;
  const auto first = net.start_weighted(
      std::vector{l}, 1e9, [] {}, sim::kUnlimitedRate, Time::zero(), 2);
  net.watch_links(std::vector{l, m}, [&] {
    ++fired;
    // The watcher replaces its flow: it sees the joining flow not yet on the link.
    joined_after = net.link_flow_count(l) == 1;
    net.cancel(first);
  });
  sim.run(1_ms);
  CHECK(net.remaining(first) == Approx(1e9 - 1e9 * 1e-3).epsilon(1e-9));
  net.start(std::vector{m}, 1000, [] {});  // m carries nothing: no call
  CHECK(fired == 0);
  net.start(std::vector{l}, 1000, [] {});
  CHECK(fired == 1);
  CHECK(joined_after);
  net.start(std::vector{l}, 1000, [] {});  // the watch ended
  CHECK(fired == 1);
  sim.run();
}
