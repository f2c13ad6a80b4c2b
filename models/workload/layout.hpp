#pragma once
// models::workload::ParallelLayout: how a run's ranks split into parallel dimensions, validated in
// one place (as Calculon's Llm.Execution checks num_procs == tp x pp x dp once). Every user error
// about [parallel] (and ZeRO's stage, which decides what zero3 means) is raised here, at the key
// at fault; the program builders (data_parallel.cpp, megatron.cpp) take a valid layout and only
// check it as an invariant.
//
// Today: world size = tp x pp x dp.
//   zero3     DeepSpeed ZeRO stage 3 over dp = all ranks (parameters, gradients, optimizer
//             state sharded); fsdp: PyTorch FSDP2 full sharding (ZeRO-3 semantics, its own
//             copies and casts); ddp: replicated parameters, bucketed gradient all-reduce.
//   megatron  tp x pp x dp (Megatron's rank order, megatron.hpp); tp divides the heads, pp the
//             layers; pipeline micro-batches = parallel.micro_batches, else grad_accum.
// Adding a strategy (hsdp: shard within a group of ranks, replicate across groups) is an enum
// value, its checks in make_layout and its builder in strategy.cpp. Adding a dimension (cp:
// context, ep: expert, vp: virtual pipeline stages) is a field here, its factor in size(), its
// checks in make_layout (what it must divide) and its place in the rank mapping.
#include <optional>
#include <string_view>

#include "models/spec.hpp"
#include "models/workload/model_shape.hpp"

namespace models::workload {

enum class Strategy { Zero3, Fsdp, Ddp, Megatron };
const char* strategy_name(Strategy s);  // "zero3", "fsdp", "ddp", "megatron": the scenario's values
std::optional<Strategy> parse_strategy(std::string_view name);

struct ParallelLayout {
  Strategy strategy = Strategy::Zero3;
  int tp = 1;                      // tensor-parallel degree (megatron)
  int pp = 1;                      // pipeline stages (megatron)
  int dp = 1;                      // data-parallel degree
  int pipeline_micro_batches = 1;  // micro-batches per step through the pipeline (megatron)
  int size() const { return tp * pp * dp; }
  bool sharded() const { return strategy == Strategy::Zero3 || strategy == Strategy::Fsdp; }
};

// The layout of `spec` ([parallel], [zero], [training]) for `model` on `world_size` ranks.
// Throws SpecError at parallel.strategy, parallel.tp, parallel.pp, parallel.dp or zero.stage.
ParallelLayout make_layout(const ScenarioSpec& spec, const ModelShape& model, int world_size);

}  // namespace models::workload
