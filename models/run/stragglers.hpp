#pragma once
// [[stragglers]]: ranks or nodes whose GPUs compute more slowly. Each listed rank's compute ops
// take compute_slowdown times as long (the executor's RankSetup::compute_scale); a node entry
// slows every rank on that node. NIC factors are applied where the links are built (World).
// The ranks that wait for them show it as barrier wait where they sit idle at a collective a
// straggler has not reached, but in a communication-bound step most of the loss is later
// collectives starting later, which the waiting ranks see as exposed communication (data they
// wait for is moving). So a run with stragglers also simulates the same step without them and
// reports the difference: what the stragglers cost, the counterfactual a reader asks for.
#include <vector>

#include "models/result.hpp"
#include "models/spec.hpp"
#include "models/workload/program.hpp"
#include "models/world/world.hpp"

namespace models {

// Throws SpecError("stragglers.<i>.ranks" / ".node") for a rank or node the World lacks.
void apply_stragglers(const ScenarioSpec& spec, const World& world, std::vector<workload::RankSetup>& ranks);

// Each rank's [[stragglers]] compute factor (1 where none), ranks on nodes `node_of[r]`: what
// apply_stragglers multiplies into the ranks' compute_scale (stragglers the World would refuse
// are skipped here).
std::vector<double> straggler_compute_scales(const ScenarioSpec& spec, const std::vector<int>& node_of);

// The scenario with its [[stragglers]] removed (every other key unchanged).
ScenarioSpec without_stragglers(const ScenarioSpec& spec);
// Per [[stragglers]] entry, the pipeline stages (0 to pp - 1) of the ranks it slows, into
// result.straggler_stages and result.pipeline_stages: a Megatron layout with pp > 1 only (else
// nothing), where a slow GPU's cost depends on its stage (in an even split the last stage, which
// also holds the output layer and the loss, sets the pipeline's pace; slowing a lighter stage
// costs less). A link entry slows no rank: empty.
void add_straggler_stages(RunResult& result, const ScenarioSpec& spec);
// Records the straggler-free step (RunResult::straggler_free_step_s) and a note with the cost;
// a straggler-free run stopped by --time-limit leaves a note instead.
void add_straggler_cost(RunResult& result, const RunResult& straggler_free);

}  // namespace models
