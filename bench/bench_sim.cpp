// Engine speed: the event queue and the flow network under churn.
//
//   EventQueue/hold:N       the "hold" model: N events pending; each pop schedules one more at a
//                           random later time. One item = one schedule + one pop.
//   FlowChurn/<topology>/F  F concurrent flows; each iteration is one departure (cancel) and one
//                           arrival (start), each in its own instant with its own recompute.
//                           One item = one arrival or departure; flows_rated = flows re-rated per
//                           change (the size of the component the change touched).
//     clustered:  links in groups of 16 (a node's NVLink ports and NICs); a path is 2-4 links of one
//                 group. Links scale with flows (5 flows per link), as when a cluster grows.
//     clustered2k: the same on a fixed 2,000 links (denser as F grows).
//     giant:      paths of 2-4 links drawn from all 2,000 links: one component holds every flow,
//                 the worst case for an incremental max-min solver.
//   EventQueue/retime:N     hold with N pending, and each event also cancels one pending event and
//                           schedules it again later (the executor re-timing compute when a rank's
//                           communication starts or ends). One item = one event run.
// The shapes of cluster-scale steps: flows that start in one instant, as a collective's
// do, each iteration running them to completion. One item = one flow, start to completion handler.
//   Flows/disjoint/N        N flows, each alone on its own 3 links (GPU port, NIC out, NIC in):
//                           N one-flow components starting together and ending together.
//   Flows/staggered/N       the same with N different sizes: every completion is its own instant.
//   Flows/nic_ring/N        a ring over N/8 nodes of 8 GPUs and 4 NICs: GPU g of node k sends to
//                           GPU g of node k+1 through NIC g/2 out and NIC ((g+1) mod 8)/2 in, so
//                           the 8 flows of a node pair share NICs two by two (components of 8).
#include <benchmark/benchmark.h>

#include <cstdint>
#include <random>
#include <vector>

#include "sim/flow_network.hpp"
#include "sim/simulator.hpp"

using sim::FlowNetwork;
using sim::LinkId;
using sim::Simulator;
using sim::Time;

namespace {

struct Hold {
  Simulator* sim;
  const std::vector<int64_t>* delays;
  std::size_t* cursor;
  void operator()() const {
    const std::size_t i = (*cursor)++ & (delays->size() - 1);
    sim->schedule_in(Time::from_ps((*delays)[i]), Hold{sim, delays, cursor});
  }
};

void BM_EventQueueHold(benchmark::State& state) {
  const auto pending = static_cast<std::size_t>(state.range(0));
  std::mt19937_64 rng(42);
  std::vector<int64_t> delays(1 << 16);
  for (auto& d : delays) d = 1 + static_cast<int64_t>(rng() % 1'000'000);
  std::size_t cursor = 0;
  Simulator sim;
  for (std::size_t i = 0; i < pending; ++i)
    sim.schedule_at(Time::from_ps(delays[i & (delays.size() - 1)]), Hold{&sim, &delays, &cursor});
  for (auto _ : state) sim.step();
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_EventQueueHold)->Name("EventQueue/hold")->Arg(16)->Arg(1024)->Arg(65536)->Arg(1 << 20);

// Schedule a batch then drain it: the pattern of a collective posting its sends.
void BM_EventQueueBatch(benchmark::State& state) {
  const auto batch = static_cast<std::size_t>(state.range(0));
  std::mt19937_64 rng(7);
  std::vector<int64_t> times(batch);
  Simulator sim;
  int64_t sink = 0;
  for (auto _ : state) {
    const int64_t base = sim.now().ps();
    for (auto& t : times) t = base + static_cast<int64_t>(rng() % 1'000'000);
    for (int64_t t : times) sim.schedule_at(Time::from_ps(t), [&sink] { ++sink; });
    sim.run();
  }
  benchmark::DoNotOptimize(sink);
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(batch));
}
BENCHMARK(BM_EventQueueBatch)->Name("EventQueue/batch")->Arg(1024)->Arg(65536);

// Hold with re-timing: the event run cancels a pending event (chosen at random) and schedules
// it again at a later time, as StepExecutor::retime_compute does.
struct RetimeState {
  Simulator sim;
  std::vector<int64_t> delays;
  std::size_t cursor = 0;
  std::vector<sim::EventId> ids;
};
struct Retime {
  RetimeState* st;
  std::size_t index;
  void operator()() const {
    const std::size_t c = st->cursor++;
    const std::size_t mask = st->delays.size() - 1;
    st->ids[index] = st->sim.schedule_in(Time::from_ps(st->delays[c & mask]), *this);
    const std::size_t victim = st->delays[(c * 7 + 3) & mask] % st->ids.size();
    if (victim != index && st->sim.cancel(st->ids[victim]))
      st->ids[victim] = st->sim.schedule_in(Time::from_ps(st->delays[(c + 1) & mask]), Retime{st, victim});
  }
};

void BM_EventQueueRetime(benchmark::State& state) {
  const auto pending = static_cast<std::size_t>(state.range(0));
  std::mt19937_64 rng(42);
  RetimeState st;
  st.delays.resize(1 << 16);
  for (auto& d : st.delays) d = 1 + static_cast<int64_t>(rng() % 1'000'000);
  st.ids.resize(pending);
  for (std::size_t i = 0; i < pending; ++i)
    st.ids[i] = st.sim.schedule_at(Time::from_ps(st.delays[i & (st.delays.size() - 1)]), Retime{&st, i});
  for (auto _ : state) st.sim.step();
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_EventQueueRetime)->Name("EventQueue/retime")->Arg(1024)->Arg(65536);

// Flows that start in one instant, as a collective's do (see the header).
enum class Shape { kDisjoint, kStaggered, kNicRing };

struct Burst {
  Simulator sim;
  FlowNetwork net{sim};
  std::vector<std::vector<LinkId>> paths;
  uint64_t done = 0;

  Burst(Shape shape, std::size_t n) {
    constexpr double kNvlink = 450e9, kNic = 50e9;  // bytes/s: an H100's NVLink, a 400 Gb/s NIC
    if (shape == Shape::kNicRing) {
      constexpr std::size_t kGpus = 8, kNics = 4;
      const std::size_t nodes = std::max<std::size_t>(2, n / kGpus);
      std::vector<LinkId> gpu_out, gpu_in, nic_out, nic_in;
      for (std::size_t k = 0; k < nodes; ++k) {
        for (std::size_t g = 0; g < kGpus; ++g) {
          gpu_out.push_back(net.add_link("gpu_out", "pcie", 64e9, Time::zero()));
          gpu_in.push_back(net.add_link("gpu_in", "pcie", 64e9, Time::zero()));
        }
        for (std::size_t j = 0; j < kNics; ++j) {
          nic_out.push_back(net.add_link("nic_out", "efa", kNic, Time::zero()));
          nic_in.push_back(net.add_link("nic_in", "efa", kNic, Time::zero()));
        }
      }
      for (std::size_t k = 0; k < nodes; ++k)
        for (std::size_t g = 0; g < kGpus; ++g) {
          const std::size_t next = (k + 1) % nodes;
          paths.push_back({gpu_out[k * kGpus + g], nic_out[k * kNics + g / 2],
                           nic_in[next * kNics + ((g + 1) % kGpus) / 2], gpu_in[next * kGpus + g]});
        }
      return;
    }
    for (std::size_t i = 0; i < n; ++i)
      paths.push_back({net.add_link("gpu", "nvlink", kNvlink, Time::zero()),
                       net.add_link("nic_out", "efa", kNic, Time::zero()),
                       net.add_link("nic_in", "efa", kNic, Time::zero())});
  }
};

void BM_FlowBurst(benchmark::State& state, Shape shape) {
  const auto n = static_cast<std::size_t>(state.range(0));
  Burst b(shape, n);
  uint64_t events = 0;
  for (auto _ : state) {
    const uint64_t before = b.sim.events_run();
    for (std::size_t i = 0; i < b.paths.size(); ++i) {
      const int64_t bytes = shape == Shape::kStaggered ? int64_t{1'000'000} + int64_t(i) * 1000 : int64_t{1'000'000};
      b.net.start(b.paths[i], bytes, [&b] { ++b.done; });
    }
    b.sim.run();
    events += b.sim.events_run() - before;
  }
  benchmark::DoNotOptimize(b.done);
  const double flows = double(b.paths.size()) * double(state.iterations());
  state.SetItemsProcessed(static_cast<int64_t>(flows));
  state.counters["events_per_flow"] = double(events) / flows;
  state.counters["per_flow"] = benchmark::Counter(flows, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK_CAPTURE(BM_FlowBurst, disjoint, Shape::kDisjoint)
    ->Name("Flows/disjoint")
    ->Arg(1024)
    ->Arg(16384)
    ->Arg(131072)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_FlowBurst, staggered, Shape::kStaggered)
    ->Name("Flows/staggered")
    ->Arg(1024)
    ->Arg(16384)
    ->Arg(131072)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_FlowBurst, nic_ring, Shape::kNicRing)
    ->Name("Flows/nic_ring")
    ->Arg(1024)
    ->Arg(16384)
    ->Arg(131072)
    ->Unit(benchmark::kMillisecond);

enum class Topology { kClustered, kClustered2k, kGiant };

struct Churn {
  Simulator sim;
  FlowNetwork net{sim};
  std::vector<LinkId> links;
  std::vector<sim::FlowId> flows;
  std::mt19937_64 rng{1234};
  Topology topology;
  static constexpr uint32_t kGroup = 16;

  Churn(Topology t, std::size_t n_flows) : topology(t) {
    const std::size_t n_links =
        t == Topology::kClustered ? std::max<std::size_t>(kGroup, n_flows / 5 / kGroup * kGroup) : 2000;
    for (std::size_t i = 0; i < n_links; ++i)
      links.push_back(net.add_link("l", "x", 1e9 * double(1 + rng() % 4), Time::zero()));
    for (std::size_t i = 0; i < n_flows; ++i) flows.push_back(start_one());
    sim.run(sim.now());
  }
  sim::FlowId start_one() {
    LinkId path[4];
    const int len = 2 + static_cast<int>(rng() % 3);
    const std::size_t n = links.size();
    const std::size_t base = topology == Topology::kGiant ? 0 : (rng() % (n / kGroup)) * kGroup;
    const std::size_t span = topology == Topology::kGiant ? n : kGroup;
    for (int k = 0; k < len; ++k) {
      for (;;) {  // distinct links
        const LinkId l = links[base + rng() % span];
        bool dup = false;
        for (int j = 0; j < k; ++j) dup = dup || path[j] == l;
        if (!dup) {
          path[k] = l;
          break;
        }
      }
    }
    // Large enough never to drain during the bench: departures are explicit.
    return net.start({path, static_cast<std::size_t>(len)}, int64_t{1'000'000'000'000}, nullptr);
  }
};

void BM_FlowChurn(benchmark::State& state, Topology topology) {
  const auto n_flows = static_cast<std::size_t>(state.range(0));
  Churn c(topology, n_flows);
  const uint64_t rated_before = c.net.flows_rated();
  const uint64_t recomputes_before = c.net.recomputes();
  for (auto _ : state) {
    const std::size_t victim = c.rng() % c.flows.size();
    c.net.cancel(c.flows[victim]);  // a departure ...
    c.sim.run(c.sim.now() + Time::from_ps(1'000'000));
    c.flows[victim] = c.start_one();  // ... and an arrival, one microsecond apart
    c.sim.run(c.sim.now() + Time::from_ps(1'000'000));
  }
  const double changes = 2.0 * static_cast<double>(state.iterations());
  state.SetItemsProcessed(static_cast<int64_t>(changes));
  state.counters["links"] = static_cast<double>(c.links.size());
  state.counters["flows_rated"] = static_cast<double>(c.net.flows_rated() - rated_before) / changes;
  state.counters["recomputes"] = static_cast<double>(c.net.recomputes() - recomputes_before) / changes;
  state.counters["per_change"] = benchmark::Counter(changes, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK_CAPTURE(BM_FlowChurn, clustered, Topology::kClustered)
    ->Name("FlowChurn/clustered")
    ->Arg(1000)
    ->Arg(4000)
    ->Arg(10000)
    ->Arg(40000)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_FlowChurn, clustered2k, Topology::kClustered2k)
    ->Name("FlowChurn/clustered2k")
    ->Arg(1000)
    ->Arg(4000)
    ->Arg(10000)
    ->Arg(40000)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_FlowChurn, giant, Topology::kGiant)
    ->Name("FlowChurn/giant")
    ->Arg(1000)
    ->Arg(4000)
    ->Arg(10000)
    ->Arg(40000)
    ->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
