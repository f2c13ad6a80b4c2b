// Speed goals: one simulated training step of Llama-3-70B on 1,024 GPUs
// (128 x p5.48xlarge) in under 1 s, for ZeRO-3 and for Megatron TP 8 x PP 8 x DP 16.
#include <benchmark/benchmark.h>

#include "models/run/run.hpp"

namespace {
models::ScenarioSpec llama70b_on_p5(int nodes) {
  models::ScenarioSpec s;
  s.name = "bench";
  s.cluster.instance = "p5.48xlarge";
  s.cluster.nodes = nodes;
  s.placement.gpus_per_pod = 8;
  s.model = models::ModelSpec{};
  s.model->preset = "llama-3-70b";
  s.model->seq = 4096;
  s.training.micro_batch = 1;
  s.training.grad_accum = 1;
  s.training.grad_checkpointing = true;
  return s;
}

// Runs one step of `spec` per iteration and reports the simulated step and the events it took.
void run_steps(benchmark::State& state, const models::ScenarioSpec& spec) {
  models::RunOptions opt;
  opt.timeline = false;
  double step = 0, events = 0;
  for (auto _ : state) {
    auto r = models::run_scenario(spec, opt);
    step = r.step_time_s;
    events = double(r.events);
  }
  state.counters["sim_step_s"] = step;
  state.counters["events"] = events;
}

void BM_Zero3_Llama70B_1024(benchmark::State& state) {
  auto spec = llama70b_on_p5(128);
  spec.parallel.strategy = "zero3";
  run_steps(state, spec);
}

void BM_Megatron_TP8_PP8_DP16_Llama70B(benchmark::State& state) {
  auto spec = llama70b_on_p5(128);
  spec.parallel.strategy = "megatron";
  spec.parallel.tp = 8;
  spec.parallel.pp = 8;
  spec.parallel.micro_batches = 16;
  run_steps(state, spec);
}
}  // namespace

BENCHMARK(BM_Zero3_Llama70B_1024)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(BM_Megatron_TP8_PP8_DP16_Llama70B)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK_MAIN();
