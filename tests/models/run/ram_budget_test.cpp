// The up-front memory estimate (models/run/ram_budget.hpp): its bound on program operations
// holds for what every strategy really builds, and run_scenario refuses what would not fit before
// the World is built (nodes = 1,000,000 took 51 s to end in std::bad_alloc).
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>

#include "models/error.hpp"
#include "models/run/ram_budget.hpp"
#include "models/run/run.hpp"
#include "models/workload/steps/strategy.hpp"
#include "models/world/world.hpp"
#include "sim/flow_network.hpp"
#include "sim/simulator.hpp"

namespace {

// The programs, groups and rank set-ups the strategy step builds for `spec`.
models::workload::StepPlan built_plan(const models::ScenarioSpec& spec) {
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  auto world = models::World::build(spec, net);
  return models::workload::plan_step(spec, *world);
}

double built_ops(const models::ScenarioSpec& spec) {
  const auto plan = built_plan(spec);
  double ops = 0;
  for (const auto& p : plan.programs)
    for (const auto& stream : p.ops) ops += static_cast<double>(stream.size());
  return ops;
}

// The largest share of events among a program's operations, over the programs the step builds
// (a rank keeps one byte per event of its program: ram_budget.hpp).
double built_events_per_op(const models::ScenarioSpec& spec) {
  const auto plan = built_plan(spec);
  double worst = 0;
  for (const auto& p : plan.programs) {
    double ops = 0;
    for (const auto& stream : p.ops) ops += static_cast<double>(stream.size());
    if (ops > 0) worst = std::max(worst, p.events / ops);
  }
  return worst;
}

models::ScenarioSpec training(const std::string& strategy, int accum, bool checkpointing) {
  models::ScenarioSpec s;
  s.cluster.instance = "p5.48xlarge";
  s.cluster.nodes = 2;
  s.model = models::ModelSpec{};
  s.model->preset = "llama-3-8b";
  s.parallel.strategy = strategy;
  s.training.grad_accum = accum;
  s.training.grad_checkpointing = checkpointing;
  return s;
}

std::string key_of_refusal(const models::ScenarioSpec& spec, int ranks, bool full = false) {
  try {
    models::check_ram_budget(spec, ranks, full);
  } catch (const models::SpecError& e) {
    return e.key();
  }
  return "";
}

}  // namespace

TEST_CASE("memory estimate: the operation bound holds for every strategy's programs", "[models]") {
  double worst = 0, worst_events = 0;  // largest built / estimated; largest events per op
  for (const std::string strategy : {"zero3", "zero2", "zero1", "fsdp", "hsdp", "ddp", "megatron"})
    for (int accum : {1, 3})
      for (bool ckpt : {false, true})
        for (bool offload : {false, true}) {
          const bool deepspeed = strategy.rfind("zero", 0) == 0;
          if (offload && !deepspeed) continue;
          auto s = training(strategy, accum, ckpt);
          if (deepspeed) s.zero.stage = strategy[4] - '0';
          if (offload) {
            s.zero.offload_optimizer = "cpu";
            if (strategy == "zero3") s.zero.offload_param = "cpu";
          }
          if (strategy == "megatron") {
            s.parallel.tp = 4;
            s.parallel.pp = 2;
          }
          INFO(strategy << " accum " << accum << " ckpt " << ckpt << " offload " << offload);
          const double built = built_ops(s);
          const double bound = models::estimate_program_ops(s).ops;
          CHECK(built <= bound);
          worst = std::max(worst, built / bound);
          const double events = built_events_per_op(s);
          CHECK(events <= models::kEventsPerOp);
          worst_events = std::max(worst_events, events);
        }
  std::printf("memory estimate: events per operation at most %.3f (bound %.3f)\n", worst_events, models::kEventsPerOp);
  // Tight enough to be a useful estimate: the worst case uses at least a third of the bound.
  CHECK(worst > 1.0 / 3);
  models::ScenarioSpec bare;
  bare.cluster.instance = "h200x4";
  bare.collective = models::CollectiveSpec{};
  bare.collective->op = "all_reduce";
  bare.collective->bytes = 1 << 20;
  bare.collective->iterations = 7;
  CHECK(built_ops(bare) == models::estimate_program_ops(bare).ops);
}

TEST_CASE("memory estimate: Megatron's interleaved, context- and expert-parallel programs keep the event bound",
          "[models]") {
  double worst = 0;
  for (int variant = 0; variant < 4; ++variant) {
    auto s = training("megatron", 8, variant == 3);
    s.parallel.tp = 2;
    s.parallel.pp = 2;
    if (variant == 0) s.parallel.vp = 2;  // interleaved 1F1B
    if (variant == 1) s.parallel.cp = 2;
    if (variant == 2) {  // an MoE model with its experts over 4 GPUs
      s.model->preset = "qwen3-30b-a3b";
      s.parallel.ep = 4;
      s.parallel.sequence_parallel = true;
    }
    if (variant == 3) s.parallel.pipeline_schedule = "zb_h1";
    INFO("variant " << variant);
    const double events = built_events_per_op(s);
    CHECK(events <= models::kEventsPerOp);
    CHECK(built_ops(s) <= models::estimate_program_ops(s).ops);
    worst = std::max(worst, events);
  }
  std::printf("memory estimate: Megatron variants, events per operation at most %.3f\n", worst);
}

TEST_CASE("memory estimate: what would not fit is refused at the key to change", "[models]") {
  models::ScenarioSpec bare;
  bare.cluster.instance = "h200x4";
  bare.collective = models::CollectiveSpec{};
  bare.collective->op = "all_reduce";
  bare.collective->bytes = 1 << 20;
  bare.collective->iterations = 1000000000;
  CHECK(key_of_refusal(bare, 4) == "collective.iterations");
  bare.collective->iterations = 1000;
  CHECK(key_of_refusal(bare, 4).empty());
  CHECK(key_of_refusal(bare, 8000000) == "cluster.nodes");
  bare.collective->op = "alltoall";
  // Folded: a few flows per rank; as pairs (--full, or a straggler's NIC): n(n-1).
  CHECK(models::alltoall_folds(bare, false));
  CHECK(key_of_refusal(bare, 16384).empty());
  CHECK(key_of_refusal(bare, 131072).empty());
  CHECK(key_of_refusal(bare, 16384, true) == "collective.op");
  models::StragglerSpec slow;
  slow.node = 0;
  slow.nic_bandwidth_factor = 0.5;
  bare.stragglers.push_back(slow);
  CHECK_FALSE(models::alltoall_folds(bare, false));
  CHECK(key_of_refusal(bare, 16384) == "collective.op");
  bare.stragglers.clear();

  auto z3 = training("zero3", 1000000, false);
  CHECK(key_of_refusal(z3, 16) == "training.grad_accum");
  z3.training.grad_accum = 1;
  z3.model->preset.clear();
  z3.model->layers = 1 << 20;
  z3.model->hidden = 4096;
  z3.model->heads = 32;
  CHECK(key_of_refusal(z3, 16) == "model.layers");
}

TEST_CASE("memory estimate: training.global_batch counts the micro-batches the layout derives", "[models]") {
  // Closed form: micro-steps = global_batch / (micro_batch x dp), dp = ranks / (tp x cp x pp).
  // Megatron tp 4 x pp 2 on 16 GPUs leaves dp 2: global_batch 8 with micro_batch 1 is 4
  // micro-batches, the same programs as grad_accum = 4.
  auto by_batch = training("megatron", 1, false);
  by_batch.parallel.tp = 4;
  by_batch.parallel.pp = 2;
  by_batch.training.global_batch = 8;
  auto by_accum = training("megatron", 4, false);
  by_accum.parallel.tp = 4;
  by_accum.parallel.pp = 2;
  const double ops = models::estimate_run_ram(by_batch, 16).ops;
  CHECK(ops == models::estimate_run_ram(by_accum, 16).ops);
  auto one = by_accum;
  one.training.grad_accum = 1;
  CHECK(ops == 4 * models::estimate_run_ram(one, 16).ops);
  CHECK(built_ops(by_batch) == built_ops(by_accum));
  CHECK(built_ops(by_batch) <= ops);
  // Without the GPU count the bound takes dp = 1 (any count): 8 micro-batches.
  CHECK(models::estimate_program_ops(by_batch).ops == 2 * ops);
  // global_batch at its accepted maximum (2^20) is refused at its own key, before anything is built.
  by_batch.training.global_batch = 1 << 20;
  CHECK(key_of_refusal(by_batch, 16) == "training.global_batch");
}

TEST_CASE("memory estimate: run_scenario refuses a million nodes before building them", "[models]") {
  models::ScenarioSpec s;
  s.cluster.instance = "p5.48xlarge";
  s.cluster.nodes = 1000000;
  s.collective = models::CollectiveSpec{};
  s.collective->op = "all_reduce";
  s.collective->bytes = 1 << 30;
  const auto start = std::chrono::steady_clock::now();
  try {
    models::run_scenario(s, {});
    FAIL("no error");
  } catch (const models::SpecError& e) {
    CHECK(e.key() == "cluster.nodes");
    const std::string m = e.what();
    CHECK(m.find("8000000 ranks would need about ") == 0);
    CHECK(m.find("over the 4.0 GiB limit (expected fewer cluster.nodes)") != std::string::npos);
  }
  // Before the World: 8 million ranks' links took 51 s and 4 GB (then bad_alloc).
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(2));
}

TEST_CASE("memory estimate: a rank's event flags are counted at their measured share of its operations", "[models]") {
  // Llama 3 405B under Megatron (tp 8, pp 16, vp 8) on 131,072 GPUs: 64 micro-batches ran in 1.67 GB
  // (peak RSS of `commsim run`), which one byte per operation on every rank refused at 4.7 GiB.
  models::ScenarioSpec s;
  s.cluster.instance = "dgx-h100-roce";
  s.cluster.nodes = 16384;
  s.model = models::ModelSpec{};
  s.model->preset = "llama-3.1-405b";
  s.model->seq = 8192;
  s.parallel.strategy = "megatron";
  s.parallel.tp = 8;
  s.parallel.pp = 16;
  s.parallel.vp = 8;
  s.training.micro_batch = 1;
  s.training.global_batch = 64 * 1024;  // dp 1,024: 64 micro-batches
  const auto e = models::estimate_run_ram(s, 131072);
  CHECK(e.bytes < models::kRamBudgetBytes);
  CHECK(e.bytes > 1.67e9);  // still above what it measured
  CHECK(key_of_refusal(s, 131072).empty());
  s.training.global_batch = 1024 * 1024;  // 1,024 micro-batches: refused at the batch
  CHECK(key_of_refusal(s, 131072) == "training.global_batch");
}
