#pragma once
// The outputs of a scenario with several jobs on one fabric ([[jobs]], models/run/jobs.hpp): the
// `jobs` array of `run --json` and the jobs table of the summary.
#include <string>

#include "models/result.hpp"
#include "scenarios/cli/output/result_schema.hpp"

namespace scenarios {

// One object per job: name, nodes [first, last], gpus, step_alone_s, step_together_s, lost_s,
// lost_fraction (of the step alone), run_time_s, steps, step_breakdown (its mean rank, adding up
// to step_together_s), throughput, memory, its busiest links (its own nodes'), notes.
Json jobs_json(const models::RunResult& result);
// "jobs on one fabric" and one line per job: nodes, GPUs, step alone, together, lost, % lost;
// then per job its throughput and where its step goes. Empty without jobs.
std::string jobs_summary(const models::RunResult& result);

}  // namespace scenarios
