#pragma once
// Turns a finished StepExecutor (and the network it ran on) into a models::RunResult: per-rank
// accounts, busiest links, transports among the rank pairs actually used, timeline, breakdown.
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "models/result.hpp"
#include "models/memory/memory_fill.hpp"
#include "models/run/run.hpp"
#include "models/workload/executor.hpp"
#include "models/workload/steps/strategy.hpp"
#include "models/world/world.hpp"
#include "sim/flow_network.hpp"

namespace models {

// Which ranks the timeline shows: every rank up to 16; beyond, the first rank of each distinct
// (program, compute speed) pair, so each pipeline stage, each GPU kind and each [[stragglers]]
// speed has a row, and the last rank. timeline_ranks_why says so in words.
std::vector<int> timeline_ranks(const workload::StepExecutor& exec);
std::string timeline_ranks_why(int ranks, int shown);

// Each collective the step's programs launch, as (op, group name, group size) once: the first
// group of that kind, its nodes and the sizes launched on it.
std::vector<CollectiveUse> collectives_used(const workload::StepExecutor& exec, const World& world);

// Ordered rank pairs a run used: ring neighbours of every group (in communicator order) and the
// point-to-point pairs; each labelled with World::transport and counted.
std::vector<TransportCount> count_transports(const workload::StepExecutor& exec, const World& world);

// `keep_link`: the links the result reports (its busiest 32 and per-kind totals are taken among
// them); empty: every link. A job sharing a fabric keeps its own nodes' links (models/run/jobs.hpp).
RunResult fill_result(const workload::StepExecutor& exec, const sim::FlowNetwork& net, const World& world,
                      const ScenarioSpec& spec, const RunOptions& options,
                      const std::function<bool(std::string_view link_name)>& keep_link = {});

// The rest of a result once fill_result() has the accounts: the plan's notes first, the memory
// estimate, a training step's throughput (tokens/s, MFU; from the plan's model and layout), and a
// bare collective's times per iteration (the simulated "step" ran the plan's `iterations` of it).
// `plan`: after its programs, groups and ranks moved into the executor.
void complete_result(RunResult& result, const ScenarioSpec& spec, const World& world, const workload::StepPlan& plan,
                     MemoryFill memory);

}  // namespace models
