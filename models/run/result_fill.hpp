#pragma once
// Turns a finished StepExecutor (and the network it ran on) into a models::RunResult: per-rank
// accounts, busiest links, transports among the rank pairs actually used, timeline, breakdown.
#include <string>
#include <vector>

#include "models/result.hpp"
#include "models/memory/memory_fill.hpp"
#include "models/run/run.hpp"
#include "models/workload/executor.hpp"
#include "models/workload/steps/strategy.hpp"
#include "models/world/world.hpp"
#include "sim/flow_network.hpp"

namespace models {

// Which ranks the timeline shows: every rank up to 16; beyond, the first rank of each program
// (each pipeline stage) and the last rank.
std::vector<int> timeline_ranks(const workload::StepExecutor& exec);

// Ordered rank pairs a run used: ring neighbours of every group (in communicator order) and the
// point-to-point pairs; each labelled with World::transport and counted.
std::vector<TransportCount> count_transports(const workload::StepExecutor& exec, const World& world);

RunResult fill_result(const workload::StepExecutor& exec, const sim::FlowNetwork& net, const World& world,
                      const ScenarioSpec& spec, const RunOptions& options);

// The rest of a result once fill_result() has the accounts: the plan's notes first, the memory
// estimate, a training step's throughput (tokens/s, MFU; from the plan's model and layout), and a
// bare collective's times per iteration (the simulated "step" ran the plan's `iterations` of it).
// `plan`: after its programs, groups and ranks moved into the executor.
void complete_result(RunResult& result, const ScenarioSpec& spec, const World& world, const workload::StepPlan& plan,
                     MemoryFill memory);

}  // namespace models
