// What every rank runs (models/workload/steps/strategy.hpp): the notes that name the schedule and
// what the memory estimate leaves out.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

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
