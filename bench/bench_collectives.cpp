// Speed of the collective engine (its speed targets, one core):
//   1 GiB all-reduce over 1,024 GPUs (128 x p5.48xlarge)          < 0.2 s
//   1 GiB all-reduce over 16,384 GPUs (2,048 x p5en.48xlarge)     < 2 s, < 1 GB
//   nccl-tests sweep 8 B - 1 GiB x2, 7 collectives, 64 GPUs       < 1 s
// Each iteration builds the World (placement, transports, links) and runs the simulation, as
// `commsim run` does; the World build is reported apart as well.
#include <benchmark/benchmark.h>

#include "models/calibrate/nccl_tests.hpp"
#include "models/collectives/collective.hpp"
#include "models/spec.hpp"
#include "models/world/world.hpp"

namespace {
models::ScenarioSpec cluster(const char* instance, int nodes) {
  models::ScenarioSpec s;
  s.name = "bench";
  s.cluster.instance = instance;
  s.cluster.nodes = nodes;
  s.placement.pods_per_node = 1;
  return s;
}

void all_reduce_once(benchmark::State& state, const char* instance) {
  const int nodes = static_cast<int>(state.range(0));
  const auto spec = cluster(instance, nodes);
  uint64_t events = 0;
  for (auto _ : state) {
    sim::Simulator sim;
    sim::FlowNetwork net(sim);
    auto world = models::World::build(spec, net);
    auto engine = models::collectives::make_collective_engine(sim, net, *world, spec);
    models::collectives::Group g;
    for (int r = 0; r < world->size(); ++r) g.ranks.push_back(r);
    double end = 0;
    engine->launch(g, models::nccl::CollOp::AllReduce, 1LL << 30,
                   [&](const models::collectives::CollectiveRecord& rec) { end = rec.end_s; });
    sim.run();
    events += sim.events_run();
    benchmark::DoNotOptimize(end);
    state.counters["simulated_ms"] = end * 1e3;
  }
  state.counters["gpus"] = nodes * 8;
  state.counters["events"] = benchmark::Counter(static_cast<double>(events), benchmark::Counter::kAvgIterations);
}

void BM_AllReduce1GiB_p5(benchmark::State& state) { all_reduce_once(state, "p5.48xlarge"); }
void BM_AllReduce1GiB_p5en(benchmark::State& state) { all_reduce_once(state, "p5en.48xlarge"); }

void BM_WorldBuild_p5en(benchmark::State& state) {
  const auto spec = cluster("p5en.48xlarge", static_cast<int>(state.range(0)));
  for (auto _ : state) {
    sim::Simulator sim;
    sim::FlowNetwork net(sim);
    auto world = models::World::build(spec, net);
    benchmark::DoNotOptimize(world->size());
  }
}

void BM_NcclTestsSweep64(benchmark::State& state) {
  const auto spec = cluster("p5.48xlarge", 8);
  using models::nccl::CollOp;
  for (auto _ : state) {
    for (CollOp op : {CollOp::AllReduce, CollOp::AllGather, CollOp::ReduceScatter, CollOp::Broadcast, CollOp::Reduce,
                      CollOp::AllToAll, CollOp::SendRecv}) {
      models::calibrate::NcclTestsOptions o;
      o.op = op;
      o.min_bytes = 8;
      o.max_bytes = 1LL << 30;
      auto r = models::calibrate::run_nccl_tests(spec, o);
      benchmark::DoNotOptimize(r.avg_busbw_gbs);
    }
  }
}
}  // namespace

BENCHMARK(BM_AllReduce1GiB_p5)->Arg(16)->Arg(128)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_AllReduce1GiB_p5en)->Arg(2048)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_WorldBuild_p5en)->Arg(2048)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_NcclTestsSweep64)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK_MAIN();
