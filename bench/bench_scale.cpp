// The cluster-scale cases (bench/scale/*.toml), one simulated step per
// iteration as `commsim run` does it (World build included, no timeline), with closed forms (the
// default) and without (`--full`: every flow simulated); Megatron also with every data-parallel
// replica simulated (`/every_replica`: the default before replicas were simulated once;
// with the data-parallel overlap, what the default ran before replica orbits; with replicas that
// share nodes, megatron_tp4_pp8_llama70b_p5_1024, what it ran before blocks of replicas),
// ZeRO-3 offload with every node simulated (`/every_replica`: the default before alike nodes were
// simulated once).
// Shipped validation rows by their path under scenarios/ (Llama 3 405B on Meta's pod fabric, ECMP
// over the pod uplinks: ECMP orbits, models/scale/ecmp_orbits.hpp; /full is minutes).
// Counters: the simulated step, events.
//   build/bench/bench_scale --benchmark_filter='zero3_llama70b_p5en_2048'
// Memory is measured apart (/usr/bin/time -f %M on `commsim run`): one process holds one case;
// the maxrss_mb counter is the bench process's peak so far (getrusage), an upper bound per case.
#include <benchmark/benchmark.h>

#include <sys/resource.h>

#include <exception>
#include <string>

#include "models/run/run.hpp"
#include "scenarios/load/loader.hpp"

namespace {

enum class Mode { Closed, Full, EveryReplica };

void run_case(benchmark::State& state, const std::string& name, Mode mode) {
  // A name with a slash is a shipped scenario (scenarios/NAME.toml), else one of bench/scale/.
  const std::string file = name.find('/') != std::string::npos ? "/scenarios/" + name + ".toml"
                                                                : "/bench/scale/" + name + ".toml";
  const auto loaded = scenarios::load_scenario(std::string(COMMSIM_SOURCE_DIR) + file);
  models::RunOptions opt;
  opt.timeline = false;
  opt.full = mode == Mode::Full;
  opt.replicas = mode != Mode::EveryReplica;
  double step = 0, events = 0;
  for (auto _ : state) {
    try {
      const auto r = models::run_scenario(loaded.spec, opt);
      step = r.step_time_s;
      events = static_cast<double>(r.events);
    } catch (const std::exception& e) {  // refused (memory budget): reported, not timed
      state.SkipWithError(e.what());
      return;
    }
  }
  state.counters["sim_step_s"] = step;
  state.counters["events"] = events;
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  state.counters["maxrss_mb"] = static_cast<double>(usage.ru_maxrss) / 1024;  // Linux: KiB
}

}  // namespace

int main(int argc, char** argv) {
  for (const char* name :
       {"zero3_llama70b_p5_128", "megatron_tp8_pp8_llama70b_p5_128", "zero3_offload_llama70b_p5_128",
        "zero3_llama70b_p5en_2048", "megatron_tp8_pp8_llama70b_p5en_2048", "zero3_offload_llama70b_p5en_2048",
        "alltoall_1gib_p5en_128", "alltoall_1gib_p5en_2048", "alltoall_1gib_p5en_16384", "alltoall_1gib_dgx_h100_2048",
        "zero3_llama70b_p5en_16384", "megatron_tp8_pp8_llama70b_p5en_16384", "allreduce_1gib_p5en_16384",
        "megatron_overlap_tp8_pp8_llama70b_p5en_2048", "ddp_llama8b_p4d_2048", "megatron_tp4_pp8_llama70b_p5_1024",
        "validation/llama3/llama3_405b_8k_gpus", "validation/llama3/llama3_405b_16k_gpus"})
    for (Mode mode : {Mode::Closed, Mode::Full, Mode::EveryReplica}) {
      if (mode == Mode::EveryReplica && std::string(name).rfind("megatron", 0) != 0 &&
          std::string(name).rfind("zero3_offload", 0) != 0)
        continue;
      if (mode == Mode::EveryReplica && std::string(name).rfind("validation/", 0) == 0) continue;
      const char* tail = mode == Mode::Closed ? "/closed" : mode == Mode::Full ? "/full" : "/every_replica";
      benchmark::RegisterBenchmark((std::string(name) + tail).c_str(),
                                   [name, mode](benchmark::State& s) { run_case(s, name, mode); })
          ->Unit(benchmark::kMillisecond)
          ->Iterations(1);
    }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
