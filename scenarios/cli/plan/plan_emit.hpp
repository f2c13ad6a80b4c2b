#pragma once
// `commsim plan --emit DIR`: the top k layouts as scenario files that `commsim run` loads, each
// the base scenario rewritten with the candidate's keys (models/plan/candidate.hpp
// candidate_overrides; scenarios/load/scenario_rewrite.hpp), named rank-01.toml, rank-02.toml, ...
// with a header saying what was planned and what the planner found.
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "scenarios/cli/plan/plan_json.hpp"

namespace scenarios {

// The first line of every emitted file, and its name for rank i (1-based): rank-01.toml, ...
inline constexpr const char* kEmittedHeader = "# commsim plan, rank ";
std::string emitted_name(size_t rank);

// (file name, TOML text) of the top `k` ranked layouts. A row priced from `--prices FILE`
// (`price_table`, read from `prices_file`) carries that node price as [cluster] price_per_hour,
// so `commsim run` of the file costs what the plan said. `deepspeed_config`: the DeepSpeed JSON the
// scenario names (LoadedScenario::deepspeed_config), kept; a ZeRO row whose [zero] offload differs
// from it says so in its header.
std::vector<std::pair<std::string, std::string>> emitted_scenarios(
    const std::string& base_path, const models::ScenarioSpec& base, const PlanOutput& p, size_t k,
    const std::vector<std::string>& base_sets, const std::map<std::string, models::PriceSpec>& price_table,
    const std::string& prices_file, const std::string& deepspeed_config);

// Removes the rank-NN.toml files beyond the first `written` that an earlier --emit left in `dir`
// (only files that begin with kEmittedHeader; anything else is the user's, left with a note).
void remove_stale_emitted(const std::string& dir, size_t written);

}  // namespace scenarios
