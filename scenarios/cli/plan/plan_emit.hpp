#pragma once
// `commsim plan --emit DIR`: the top k layouts as scenario files that `commsim run` loads, each
// the base scenario rewritten with the candidate's keys (models/plan/candidate.hpp
// candidate_overrides; scenarios/load/scenario_rewrite.hpp), named rank-01.toml, rank-02.toml, ...
// with a header saying what was planned and what the planner found.
#include <string>
#include <utility>
#include <vector>

#include "scenarios/cli/plan/plan_json.hpp"

namespace scenarios {

// (file name, TOML text) of the top `k` ranked layouts.
std::vector<std::pair<std::string, std::string>> emitted_scenarios(const std::string& base_path,
                                                                   const models::ScenarioSpec& base,
                                                                   const PlanOutput& p, size_t k,
                                                                   const std::vector<std::string>& base_sets);

}  // namespace scenarios
