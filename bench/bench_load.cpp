// Loading scenarios of many [[jobs]] tables: the loader's time per job must not grow with the
// number of jobs (each job's keys are found by one range of the sorted position map, not by a
// scan of every key written so far, which made 100,000 jobs quadratic). Google Benchmark fits
// the complexity: expect O(N) (or O(N log N)), with a near-constant time per job.
//   build/bench/bench_load --benchmark_filter=Jobs
#include <benchmark/benchmark.h>

#include <string>

#include "scenarios/load/loader.hpp"

namespace {

std::string jobs_scenario(int n) {
  std::string s = "[cluster]\ninstance = \"p4d.24xlarge\"\nnodes = " + std::to_string(n) + "\n";
  for (int i = 0; i < n; ++i)
    s += "[[jobs]]\nname = \"j" + std::to_string(i) + "\"\nnodes = 1\n[jobs.collective]\nop = \"all_reduce\"\nbytes = "
         "\"1 MiB\"\n";
  return s;
}

void BM_LoadJobs(benchmark::State& state) {
  const std::string text = jobs_scenario(static_cast<int>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(scenarios::load_scenario_text(text, "jobs.toml"));
  state.SetComplexityN(state.range(0));
}
BENCHMARK(BM_LoadJobs)->RangeMultiplier(4)->Range(1 << 10, 1 << 16)->Complexity()->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
