// What every rank runs (models/workload/steps/strategy.hpp): the notes that name the schedule and
// what the memory estimate leaves out.
#include <catch2/catch.hpp>

#include <cstdio>
#include <string>
#include <vector>

#include "models/model/model_shape.hpp"
#include "models/workload/steps/strategy.hpp"
#include "models/world/world.hpp"
#include "sim/flow_network.hpp"
#include "sim/simulator.hpp"

using namespace models::workload;

namespace {
// Llama-3.1-8B under Megatron TP 2 x PP 4 on one DGX H100, 8 micro-batches.
models::ScenarioSpec strategy_notes_scenario() {
  models::ScenarioSpec s;
  s.cluster.instance = "dgx-h100";
  s.cluster.nodes = 1;
  s.model = models::ModelSpec{};
  s.model->preset = "llama-3.1-8b";
  s.model->seq = 2048;
  s.training.grad_accum = 8;
  s.parallel.strategy = "megatron";
  s.parallel.tp = 2;
  s.parallel.pp = 4;
  return s;
}
std::vector<std::string> strategy_notes(const models::ScenarioSpec& spec) {
  sim::Simulator simulator;
  sim::FlowNetwork net(simulator);
  const auto world = models::World::build(spec, net);
  return plan_step(spec, *world).notes;
}
bool has_note_starting(const std::vector<std::string>& notes, const std::string& start) {
  for (const std::string& n : notes)
    if (n.rfind(start, 0) == 0) return true;
  return false;
}
}  // namespace

TEST_CASE("strategy: the Megatron note names the pipeline schedule the step runs", "[workload]") {
  models::ScenarioSpec s = strategy_notes_scenario();
  const std::string head = "Megatron TP 2 x PP 4 x DP 1, ";
  CHECK(has_note_starting(strategy_notes(s), head + "1F1B over 8 micro-batches of 1 x 2048 tokens"));
  s.parallel.pipeline_schedule = "zb_h1";
  CHECK(has_note_starting(strategy_notes(s), head + "ZB-H1 over 8 micro-batches of 1 x 2048 tokens"));
  s.parallel.pipeline_schedule = "1f1b";
  s.parallel.vp = 2;
  CHECK(has_note_starting(strategy_notes(s), head + "interleaved 1F1B (vp 2) over 8 micro-batches"));
}

TEST_CASE("strategy: under fp8 a note says that memory is the 16-bit dtype's", "[workload]") {
  models::ScenarioSpec s = strategy_notes_scenario();
  const std::string note =
      "memory: as under training.dtype = bf16, not fp8: Transformer Engine's quantized weight "
      "copies (1-2 B per linear-layer parameter) are not added, nor the linear layers' inputs "
      "saved in 1 byte subtracted (docs/limitations.md)";
  CHECK_FALSE(has_note_starting(strategy_notes(s), "memory: as under"));
  s.training.precision = "fp8";
  CHECK(has_note_starting(strategy_notes(s), note));
}

TEST_CASE("strategy: CPU-Adam held to one thread per rank by torchrun says what the host's share would give",
          "[workload]") {
  // Llama-3.1-8B ZeRO-3 with the optimizer on the host, 8 ranks in one pod of one DGX H100:
  // torchrun's OMP_NUM_THREADS=1 leaves each rank's 1.0e9-parameter partition to one thread.
  models::ScenarioSpec s = strategy_notes_scenario();
  s.parallel.strategy = "zero3";
  s.parallel.tp = 1;
  s.parallel.pp = 1;
  s.zero.offload_optimizer = "cpu";
  const std::string head =
      "host: DeepSpeed's CPU-Adam runs 1 thread per rank (torchrun sets OMP_NUM_THREADS=1 "
      "for each of a pod's 8 processes): ";
  std::string found;
  for (const std::string& n : strategy_notes(s))
    if (n.rfind(head, 0) == 0) found = n;
  REQUIRE(!found.empty());
  // One thread moves host.core_bytes_per_s (12 GB/s) of the 42 B per element the step touches.
  const double shard = double(models::model::resolve_model(*s.model).total_params()) / 8;
  char now[96];
  std::snprintf(now, sizeof now, "%.3g s of host work per step at 12 GB/s per thread", shard * 42 / 12e9);
  CHECK(found.find(now) != std::string::npos);
  CHECK(found.find("shared by the node's 8 ranks binds") != std::string::npos);
  // Enough threads (OMP_NUM_THREADS set), or one process per pod (all cores): no note.
  s.training.cpu_threads = 64;
  CHECK_FALSE(has_note_starting(strategy_notes(s), "host: DeepSpeed's CPU-Adam"));
  s.training.cpu_threads = 0;
  s.placement.pods_per_node = 8;
  s.placement.gpus_per_pod = 1;
  CHECK_FALSE(has_note_starting(strategy_notes(s), "host: DeepSpeed's CPU-Adam"));
}
