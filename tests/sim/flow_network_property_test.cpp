// Randomized property test of sim::FlowNetwork: random small networks with random arrivals,
// cancellations and departures. After every recompute the rates must equal an independent,
// deliberately simple max-min solver (the textbook "raise all unfixed rates together" loop,
// Bertsekas & Gallager, "Data Networks", sec. 6.5.2), which also implies that no link exceeds
// its capacity and that every flow is bottlenecked somewhere.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <map>
#include <random>
#include <vector>

#include "sim/flow_network.hpp"

using namespace sim::literals;
using sim::FlowNetwork;
using sim::LinkId;
using sim::Simulator;
using sim::Time;

namespace {

struct RefFlow {
  std::vector<int> links;
  double cap;
};

// O(n^2) progressive filling: all unfixed flows rise by the same delta until a link fills or a
// flow reaches its cap; flows on full links and flows at their cap are frozen; repeat.
std::vector<double> reference_max_min(const std::vector<double>& capacity, const std::vector<RefFlow>& flows) {
  const std::size_t n = flows.size();
  std::vector<double> rate(n, 0.0);
  std::vector<bool> frozen(n, false);
  std::size_t left = n;
  while (left > 0) {
    std::vector<double> load(capacity.size(), 0.0);
    std::vector<int> unfixed(capacity.size(), 0);
    for (std::size_t i = 0; i < n; ++i)
      for (int l : flows[i].links) {
        load[l] += rate[i];
        if (!frozen[i]) ++unfixed[l];
      }
    double delta = INFINITY;
    for (std::size_t l = 0; l < capacity.size(); ++l)
      if (unfixed[l] > 0) delta = std::min(delta, (capacity[l] - load[l]) / unfixed[l]);
    for (std::size_t i = 0; i < n; ++i)
      if (!frozen[i]) delta = std::min(delta, flows[i].cap - rate[i]);
    REQUIRE(std::isfinite(delta));
    delta = std::max(delta, 0.0);
    for (std::size_t i = 0; i < n; ++i)
      if (!frozen[i]) rate[i] += delta;
    for (std::size_t l = 0; l < capacity.size(); ++l)
      if (unfixed[l] > 0) load[l] += delta * unfixed[l];
    for (std::size_t i = 0; i < n; ++i) {
      if (frozen[i]) continue;
      bool freeze = rate[i] >= flows[i].cap * (1 - 1e-12);
      for (int l : flows[i].links) freeze = freeze || load[l] >= capacity[l] * (1 - 1e-12);
      if (freeze) {
        frozen[i] = true;
        --left;
      }
    }
  }
  return rate;
}

struct Scenario {
  Simulator sim;
  FlowNetwork net{sim};
  std::vector<double> capacity;
  std::vector<LinkId> links;
  struct Live {
    sim::FlowId id;
    RefFlow ref;
  };
  std::map<int, Live> live;  // by the test's own flow number, for a deterministic order
  int checks = 0;
  int completed = 0;

  // Runs at the end of the instant, after the network's recompute of that instant.
  void check() {
    if (live.empty()) return;
    std::vector<RefFlow> ref;
    for (auto& [k, f] : live) ref.push_back(f.ref);
    const std::vector<double> expected = reference_max_min(capacity, ref);
    std::size_t i = 0;
    std::vector<double> load(capacity.size(), 0.0);
    for (auto& [k, f] : live) {
      const double got = net.rate(f.id);
      INFO("flow " << k << " expected " << expected[i] << " got " << got);
      // rate = the independent solver's max-min rate (relative tolerance for the float sums)
      CHECK(got == Approx(expected[i]).epsilon(1e-9));
      for (int l : f.ref.links) load[l] += got;
      ++i;
    }
    // no link carries more than its capacity: sum of rates <= C
    for (std::size_t l = 0; l < capacity.size(); ++l) {
      CHECK(load[l] <= capacity[l] * (1 + 1e-9));
      CHECK(net.link_load(links[l]) == Approx(load[l]).epsilon(1e-9).margin(1e-6));
    }
    ++checks;
  }
  void check_at_end_of_instant() {
    sim.schedule_end_of_instant([this] { check(); });
  }
};

void run_random_scenario(uint64_t seed) {
  std::mt19937_64 rng(seed);
  Scenario s;
  s.net.set_audit(true);
  const int n_links = std::uniform_int_distribution<int>(1, 8)(rng);
  // Capacities from a small set (ties between links are the hard case) or arbitrary.
  const double kChoices[] = {1e9, 2e9, 3e9, 5e9};
  for (int l = 0; l < n_links; ++l) {
    const double c = rng() % 2 ? kChoices[rng() % 4] : std::uniform_real_distribution<double>(1e8, 1e10)(rng);
    s.capacity.push_back(c);
    // zero latency: a flow's handler runs in the instant it drains, so `live` is exactly the set
    // of flows on links when the end-of-instant check runs
    s.links.push_back(s.net.add_link(std::to_string(l), "link", c, Time::zero()));
  }
  const int n_flows = std::uniform_int_distribution<int>(1, 24)(rng);
  struct Arrival {
    std::vector<int> links;
    double cap;
    int64_t bytes;
    bool cancel_later;
    Time cancel_after;
  };
  std::vector<Arrival> arrivals;
  arrivals.reserve(n_flows);
  for (int k = 0; k < n_flows; ++k) {
    // random distinct links, 1..min(4, n_links) of them
    std::vector<int> all(n_links);
    for (int l = 0; l < n_links; ++l) all[l] = l;
    std::shuffle(all.begin(), all.end(), rng);
    all.resize(std::uniform_int_distribution<int>(1, std::min(4, n_links))(rng));
    const double cap = rng() % 4 == 0 ? std::uniform_real_distribution<double>(1e8, 3e9)(rng) : sim::kUnlimitedRate;
    const int64_t bytes = std::uniform_int_distribution<int64_t>(1'000, 10'000'000)(rng);
    const Time at = Time::from_ps(int64_t(rng() % 5) * 1'000'000);  // few instants: batching
    const bool cancel_later = rng() % 6 == 0;
    const Time cancel_after = Time::from_ps(int64_t(rng() % 2'000'000) + 1);
    arrivals.push_back(Arrival{all, cap, bytes, cancel_later, cancel_after});
    s.sim.schedule_at(at, [&s, &arrivals, k] {
      const Arrival& a = arrivals[k];
      std::vector<LinkId> path;
      for (int l : a.links) path.push_back(s.links[l]);
      auto id = s.net.start(
          path, a.bytes,
          [&s, k] {
            // completion: the flow drained its bytes (zero latency)
            s.live.erase(k);
            ++s.completed;
            s.check_at_end_of_instant();
          },
          a.cap);
      s.live[k] = Scenario::Live{id, RefFlow{a.links, a.cap}};
      s.check_at_end_of_instant();
      if (a.cancel_later)
        s.sim.schedule_in(a.cancel_after, [&s, k] {
          auto it = s.live.find(k);
          if (it == s.live.end()) return;
          if (s.net.cancel(it->second.id)) s.live.erase(it);
          s.check_at_end_of_instant();
        });
    });
  }
  s.sim.run();
  CHECK(s.live.empty());
  CHECK(s.net.active_flows() == 0);
  CHECK(s.checks > 0);
}

}  // namespace

TEST_CASE("flow network: random networks are max-min fair after every recompute", "[sim]") {
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    INFO("seed " << seed);
    run_random_scenario(seed);
  }
}

namespace {

// Everything a run shows from outside: completion times and, after every instant's recompute,
// every live flow's rate (as the exact double).
struct Trace {
  std::vector<std::pair<int, int64_t>> completions;
  std::vector<std::pair<int, double>> rates;
  uint64_t single_flow_components = 0;
};

// Random networks where most flows are alone on their links (the common case at cluster
// scale), some share a link, a few are capped, some are cancelled; run with the fast paths on
// or off.
Trace run_sparse_scenario(uint64_t seed, bool fast_paths) {
  std::mt19937_64 rng(seed);
  Simulator sim;
  FlowNetwork net(sim);
  net.set_audit(true);
  net.set_fast_paths(fast_paths);
  Trace trace;
  const int n_links = std::uniform_int_distribution<int>(4, 40)(rng);
  std::vector<LinkId> links;
  for (int l = 0; l < n_links; ++l)
    links.push_back(
        net.add_link(std::to_string(l), "link",
                     rng() % 2 ? 1e9 * double(1 + rng() % 4) : std::uniform_real_distribution<double>(1e8, 1e10)(rng),
                     Time::from_ps(int64_t(rng() % 3) * 1000)));
  std::map<int, sim::FlowId> live;
  auto record_rates = [&] {
    sim.schedule_end_of_instant([&] {
      for (auto& [k, id] : live)
        if (net.active(id)) trace.rates.emplace_back(k, net.rate(id));
    });
  };
  const int n_flows = std::uniform_int_distribution<int>(1, 60)(rng);
  for (int k = 0; k < n_flows; ++k) {
    std::vector<LinkId> path;
    const int len = 1 + int(rng() % 3);
    // Mostly disjoint: links drawn from a window that moves with the flow number.
    for (int j = 0; j < len; ++j) {
      const LinkId l = links[(k * 2 + int(rng() % 4)) % n_links];
      if (std::find(path.begin(), path.end(), l) == path.end()) path.push_back(l);
    }
    const double cap = rng() % 5 == 0 ? std::uniform_real_distribution<double>(1e8, 3e9)(rng) : sim::kUnlimitedRate;
    const int64_t bytes = std::uniform_int_distribution<int64_t>(0, 5'000'000)(rng);
    const Time at = Time::from_ps(int64_t(rng() % 4) * 700'000);
    const bool cancel = rng() % 8 == 0;
    sim.schedule_at(at, [&, k, path, cap, bytes, cancel] {
      live[k] = net.start(
          path, bytes, [&, k] { trace.completions.emplace_back(k, sim.now().ps()); }, cap);
      record_rates();
      if (cancel)
        sim.schedule_in(Time::from_ps(300'000), [&, k] {
          net.cancel(live[k]);
          record_rates();
        });
    });
  }
  sim.run();
  CHECK(net.active_flows() == 0);
  trace.single_flow_components = net.single_flow_components();
  return trace;
}

}  // namespace

// The fast path for a flow alone on its links must give exactly what progressive filling gives:
// the same doubles, so the same completion events, so the same run.
TEST_CASE("flow network: the single-flow fast path equals full progressive filling, bit for bit", "[sim]") {
  uint64_t fast_components = 0;
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    INFO("seed " << seed);
    const Trace fast = run_sparse_scenario(seed, true);
    const Trace full = run_sparse_scenario(seed, false);
    CHECK(full.single_flow_components == 0);
    fast_components += fast.single_flow_components;
    REQUIRE(fast.completions == full.completions);
    REQUIRE(fast.rates.size() == full.rates.size());
    for (std::size_t i = 0; i < fast.rates.size(); ++i) {
      REQUIRE(fast.rates[i].first == full.rates[i].first);
      REQUIRE(fast.rates[i].second == full.rates[i].second);  // exact, not approximate
    }
  }
  CHECK(fast_components > 1000);  // the fast path did run
}
