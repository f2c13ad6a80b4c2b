#pragma once
// What an HTML report shows besides the RunResult: the scenario in a few lines and the bus
// bandwidth curves (nccl-tests emulation of the collectives the run used, plus measured points
// from real nccl-tests output files). Shared by `commsim report` and `commsim compare --html`.
#include <functional>
#include <string>
#include <vector>

#include "models/readers/nccl_tests_output.hpp"
#include "models/result.hpp"
#include "models/spec.hpp"
#include "scenarios/cli/output/result_schema.hpp"
#include "scenarios/load/loader.hpp"
#include "viz/viz.hpp"

namespace scenarios {

// ("cluster", "p4d.24xlarge x 1 node"), ("placement", ...), ("NCCL env", ...), ...
// `result` (null: not run) gives the GPUs that derive grad accum from training.global_batch as the
// run does, and the steps the run takes ("1e+09 tokens = 3815 steps of 262144 tokens" for a token
// target).
std::vector<std::pair<std::string, std::string>> scenario_summary(const models::ScenarioSpec& spec,
                                                                  const models::RunResult* result = nullptr);

// Predicted busbw from 8 B to 1 GiB (x4 steps) for each collective the step launched
// (RunResult::collectives_used), replayed on its own group's ranks and labelled with the group
// ("tp group of 8 GPUs on 1 node"; with [[jobs]], each job's groups on the job's own nodes,
// "job NAME: dp group of 16 GPUs on 2 nodes"); measured ops (`measured_files`, nccl-tests output) get a
// curve over every rank of the scenario, as nccl-tests ran, with the measured busbw overlaid (as
// does a run that names no groups: its timeline's ops). Throws UserError/ParseError on a bad file.
//
// `as_ran` gives the scenario as a measured run ran it (its NCCL variables, release and process
// layout, as `nccl-tests --compare` applies them: the caller's, scenarios/cli/nccl_tests_support).
// Where that differs from the scenario and every file of the op agrees, the op's measured points sit
// on a curve predicted so, beside the scenario's own, and its legend names what differs; files of
// one op that ran differently keep the scenario's curve and say so. Empty: every file as the scenario.
using MeasuredAsRan =
    std::function<models::ScenarioSpec(const models::ScenarioSpec&, const models::readers::NcclTestsRun&)>;
std::vector<viz::BusBwPoint> busbw_curves(const models::ScenarioSpec& spec, const models::RunResult& result,
                                          const std::vector<std::string>& measured_files,
                                          const MeasuredAsRan& as_ran = {});

// Everything a report page needs for one scenario: title, source, summary (with the inputs:
// files read, --set overrides, commsim version) and (unless `with_busbw` is false) the
// bus-bandwidth curves; a SpecError is mapped to the scenario's key.
viz::ReportInputs report_inputs_for(const LoadedScenario& scenario, const models::RunResult& result,
                                    const CommandInputs& inputs, const std::vector<std::string>& measured_files,
                                    bool with_busbw = true, const MeasuredAsRan& as_ran = {});

}  // namespace scenarios
