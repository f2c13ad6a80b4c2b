// The planner's speed targets (models/plan/README.md), each a whole `commsim plan` search as the
// command runs it (space, layout checks and bounds, best-first simulation on 2 threads, ranking):
//   llama3_70b_p5      bench/plan/llama3_70b_p5.toml, 64 to 1,024 GPUs of p5.48xlarge: <= 60 s wall
//   llama3_405b_h100   bench/plan/llama3_405b_h100.toml, 2,048 to 16,384 H100: <= 5 min
//   llama3_70b_p5[_64_256]_compute_bound  the first target (and its 64-256 GPUs) with the first
//                      version's step bound (compute alone at unstretched rates, the GEMMs only at
//                      cp > 1, no output layer on the last stage: PlanOptions::tight_bound off):
//                      against the same case with the planner's bound, what the bound saves
//   qwen3_moe_gb200[_compute_bound]  bench/plan/qwen3_30b_a3b_gb200.toml at 64 GPUs of one NVL72
//                      rack, Megatron at micro-batch 1, pp <= 4, vp <= 2, with the planner's bound (an MoE layer's
//                      experts, router and permutes as Megatron's layer prices them) and with the first version's (MoE
//                      MLPs left out)
//   qwen3_moe_gb200_without_moe_comm  the same MoE case with the step bound before an MoE layer's
//                      all-to-alls were counted (PlanOptions::moe_comm_bound off): what that term saves
//   qwen3_moe_h100_256  bench/plan/qwen3_30b_a3b_h100.toml, the default space on 256 H100 (expert
//                      parallelism across nodes too)
//   ..._without_dp_comm  the same case with the step bound before the data-parallel communication
//                      was counted (PlanOptions::dp_comm_bound off): what that term saves
//   llama3_8b_h200x4_socket[_without_dp_comm]  bench/plan/llama3_8b_h200x4_socket.toml, 4-16 GPUs
//                      of hosts joined by a 10 Gb/s interface alone: the data-parallel
//                      communication's bound where it decides
//   ..._exact1         the same search with only #1 exact (PlanOptions::exact_rows 1), where the command
//                      makes its 10 table rows exact: what exact rows cost
//   bound_case llama3_70b_p5_bounds[_without_dp_comm]  the step bound alone on every candidate of
//                      the first target's space (the search's bounding stage, one thread), with and
//                      without the data-parallel communication's term: what that term costs
// CPU time is the whole process's (both threads). Counters: candidates after the arithmetic, simulated, skipped by the
// bound, over memory, ranked, and the winner's step.
//   build/bench/bench_plan --benchmark_filter=llama3_70b_p5
#include <benchmark/benchmark.h>

#include <string>

#include "models/error.hpp"
#include "models/model/model_shape.hpp"
#include "models/plan/bounds.hpp"
#include "models/plan/candidate.hpp"
#include "models/plan/search.hpp"
#include "models/plan/space.hpp"
#include "scenarios/load/loader.hpp"

namespace {

// `megatron_only`: Megatron layouts at micro-batch 1, pp <= 4, vp <= 2 (a space the first
// version's bound can still search in about a minute).
void plan_case(benchmark::State& state, const std::string& name, int min_gpus, int max_gpus, bool tight,
               bool megatron_only = false, size_t exact_rows = 10, bool moe_comm = true, bool dp_comm = true) {
  const auto loaded = scenarios::load_scenario(std::string(COMMSIM_SOURCE_DIR) + "/bench/plan/" + name + ".toml");
  models::plan::PlanOptions o;
  if (megatron_only) {
    o.space.strategies = {"megatron"};
    o.space.micro_batches = {1};
    o.space.max_pp = 4;
    o.space.max_vp = 2;
  }
  o.space.min_gpus = min_gpus;
  o.space.max_gpus = max_gpus;
  o.jobs = 2;
  o.tight_bound = tight;
  o.moe_comm_bound = moe_comm;
  o.dp_comm_bound = dp_comm;
  o.exact_rows = exact_rows;
  if (name == "llama3_8b_h200x4_socket") {  // the space its file's header names
    o.space.micro_batches = {1, 2};
    o.space.recompute = {"none"};
    o.space.max_pp = 4;
  }
  models::plan::PlanResult r;
  for (auto _ : state) r = models::plan::plan_layouts(loaded.spec, o);
  state.counters["candidates"] = double(r.candidates);
  state.counters["over_memory"] = double(r.over_memory);
  state.counters["simulated"] = double(r.simulated);
  state.counters["skipped"] = double(r.skipped_by_bound);
  state.counters["ranked"] = double(r.ranked.size());
  state.counters["winner_step_s"] = r.ranked.empty() ? 0 : r.ranked.front().step_s;
}

// The step bound alone, on every candidate of a case's space that the layout checks accept (what
// the search's bounding stage computes, on one thread): what the data-parallel communication's
// term costs beside the compute stream's.
void bound_case(benchmark::State& state, const std::string& name, int min_gpus, int max_gpus, bool dp_comm) {
  const auto loaded = scenarios::load_scenario(std::string(COMMSIM_SOURCE_DIR) + "/bench/plan/" + name + ".toml");
  const models::model::ModelShape shape = models::model::resolve_model(*loaded.spec.model);
  models::plan::SpaceOptions space;
  space.min_gpus = min_gpus;
  space.max_gpus = max_gpus;
  const std::vector<models::plan::Candidate> cands = models::plan::enumerate_space(loaded.spec, shape, space);
  int64_t bounded = 0;
  double sum = 0;
  for (auto _ : state)
    for (const auto& c : cands) {
      try {
        sum += models::plan::step_lower_bound(models::plan::apply_candidate(loaded.spec, c), shape, c.gpus_per_node,
                                              true, true, dp_comm)
                   .step_s;
        ++bounded;
      } catch (const models::SpecError&) {
      }
    }
  benchmark::DoNotOptimize(sum);
  state.counters["bounded"] = double(bounded);
}

}  // namespace

BENCHMARK_CAPTURE(bound_case, llama3_70b_p5_bounds_without_dp_comm, "llama3_70b_p5", 64, 1024, false)
    ->Unit(benchmark::kSecond)
    ->Iterations(1)
    ->MeasureProcessCPUTime()
    ->UseRealTime();
BENCHMARK_CAPTURE(bound_case, llama3_70b_p5_bounds, "llama3_70b_p5", 64, 1024, true)
    ->Unit(benchmark::kSecond)
    ->Iterations(1)
    ->MeasureProcessCPUTime()
    ->UseRealTime();
// The planner's bound (power-limit stretch, tensor-parallel collectives) against compute alone, on a
// share of the first target small enough to run both in one go (64-256 GPUs), then the targets.
BENCHMARK_CAPTURE(plan_case, llama3_70b_p5_64_256_compute_bound, "llama3_70b_p5", 64, 256, false)
    ->Unit(benchmark::kSecond)
    ->Iterations(1)
    ->MeasureProcessCPUTime()
    ->UseRealTime();
BENCHMARK_CAPTURE(plan_case, llama3_70b_p5_64_256_without_dp_comm, "llama3_70b_p5", 64, 256, true, false, 10, true,
                  false)
    ->Unit(benchmark::kSecond)
    ->Iterations(1)
    ->MeasureProcessCPUTime()
    ->UseRealTime();
BENCHMARK_CAPTURE(plan_case, llama3_70b_p5_64_256, "llama3_70b_p5", 64, 256, true)
    ->Unit(benchmark::kSecond)
    ->Iterations(1)
    ->MeasureProcessCPUTime()
    ->UseRealTime();
BENCHMARK_CAPTURE(plan_case, llama3_70b_p5_compute_bound, "llama3_70b_p5", 64, 1024, false)
    ->Unit(benchmark::kSecond)
    ->Iterations(1)
    ->MeasureProcessCPUTime()
    ->UseRealTime();
BENCHMARK_CAPTURE(plan_case, llama3_70b_p5_without_dp_comm, "llama3_70b_p5", 64, 1024, true, false, 10, true, false)
    ->Unit(benchmark::kSecond)
    ->Iterations(1)
    ->MeasureProcessCPUTime()
    ->UseRealTime();
BENCHMARK_CAPTURE(plan_case, llama3_70b_p5, "llama3_70b_p5", 64, 1024, true)
    ->Unit(benchmark::kSecond)
    ->Iterations(1)
    ->MeasureProcessCPUTime()
    ->UseRealTime();
BENCHMARK_CAPTURE(plan_case, qwen3_moe_gb200_compute_bound, "qwen3_30b_a3b_gb200", 64, 64, false, true)
    ->Unit(benchmark::kSecond)
    ->Iterations(1)
    ->MeasureProcessCPUTime()
    ->UseRealTime();
BENCHMARK_CAPTURE(plan_case, qwen3_moe_gb200_without_moe_comm, "qwen3_30b_a3b_gb200", 64, 64, true, true, 10, false)
    ->Unit(benchmark::kSecond)
    ->Iterations(1)
    ->MeasureProcessCPUTime()
    ->UseRealTime();
BENCHMARK_CAPTURE(plan_case, qwen3_moe_gb200_without_dp_comm, "qwen3_30b_a3b_gb200", 64, 64, true, true, 10, true,
                  false)
    ->Unit(benchmark::kSecond)
    ->Iterations(1)
    ->MeasureProcessCPUTime()
    ->UseRealTime();
BENCHMARK_CAPTURE(plan_case, qwen3_moe_gb200, "qwen3_30b_a3b_gb200", 64, 64, true, true)
    ->Unit(benchmark::kSecond)
    ->Iterations(1)
    ->MeasureProcessCPUTime()
    ->UseRealTime();
BENCHMARK_CAPTURE(plan_case, qwen3_moe_h100_256_without_dp_comm, "qwen3_30b_a3b_h100", 256, 256, true, false, 10, true,
                  false)
    ->Unit(benchmark::kSecond)
    ->Iterations(1)
    ->MeasureProcessCPUTime()
    ->UseRealTime();
BENCHMARK_CAPTURE(plan_case, qwen3_moe_h100_256, "qwen3_30b_a3b_h100", 256, 256, true)
    ->Unit(benchmark::kSecond)
    ->Iterations(1)
    ->MeasureProcessCPUTime()
    ->UseRealTime();
BENCHMARK_CAPTURE(plan_case, llama3_405b_h100_without_dp_comm, "llama3_405b_h100", 2048, 16384, true, false, 10, true,
                  false)
    ->Unit(benchmark::kSecond)
    ->Iterations(1)
    ->MeasureProcessCPUTime()
    ->UseRealTime();
BENCHMARK_CAPTURE(plan_case, llama3_405b_h100, "llama3_405b_h100", 2048, 16384, true)
    ->Unit(benchmark::kSecond)
    ->Iterations(1)
    ->MeasureProcessCPUTime()
    ->UseRealTime();
BENCHMARK_CAPTURE(plan_case, llama3_8b_h200x4_socket_without_dp_comm, "llama3_8b_h200x4_socket", 4, 16, true, false, 10,
                  true, false)
    ->Unit(benchmark::kSecond)
    ->Iterations(1)
    ->MeasureProcessCPUTime()
    ->UseRealTime();
BENCHMARK_CAPTURE(plan_case, llama3_8b_h200x4_socket, "llama3_8b_h200x4_socket", 4, 16, true)
    ->Unit(benchmark::kSecond)
    ->Iterations(1)
    ->MeasureProcessCPUTime()
    ->UseRealTime();
BENCHMARK_CAPTURE(plan_case, llama3_70b_p5_exact1, "llama3_70b_p5", 64, 1024, true, false, 1)
    ->Unit(benchmark::kSecond)
    ->Iterations(1)
    ->MeasureProcessCPUTime()
    ->UseRealTime();
BENCHMARK_CAPTURE(plan_case, llama3_405b_h100_exact1, "llama3_405b_h100", 2048, 16384, true, false, 1)
    ->Unit(benchmark::kSecond)
    ->Iterations(1)
    ->MeasureProcessCPUTime()
    ->UseRealTime();

BENCHMARK_MAIN();
