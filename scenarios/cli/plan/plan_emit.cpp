// `commsim plan --emit DIR` (plan_emit.hpp).
#include "scenarios/cli/plan/plan_emit.hpp"

#include <fmt/format.h>

#include "scenarios/cli/output/result_format.hpp"
#include "scenarios/cli/plan/plan_report.hpp"
#include "scenarios/load/scenario_rewrite.hpp"

namespace scenarios {

std::vector<std::pair<std::string, std::string>> emitted_scenarios(const std::string& base_path,
                                                                   const models::ScenarioSpec& base,
                                                                   const PlanOutput& p, size_t k,
                                                                   const std::vector<std::string>& base_sets) {
  std::vector<std::pair<std::string, std::string>> files;
  const auto& ranked = p.result.ranked;
  for (size_t i = 0; i < std::min(k, ranked.size()); ++i) {
    const auto& e = ranked[i];
    const models::plan::ScenarioOverrides o = models::plan::candidate_overrides(base, e.candidate);
    std::vector<std::string> sets = base_sets;  // the plan's --set first, then the candidate's keys
    sets.insert(sets.end(), o.set.begin(), o.set.end());
    const std::vector<std::string> header = {
        fmt::format("commsim plan, rank {} of {}: {} on {} x {} ({} GPUs)", i + 1, ranked.size(),
                    models::plan::layout_text(e.candidate), e.candidate.nodes, e.candidate.instance,
                    e.candidate.gpus()),
        fmt::format("planned from {}: step {}, time to train {}, cost {}", base_path, format_seconds(e.step_s),
                    format_duration(e.train_s), e.cost_usd ? format_usd(*e.cost_usd) : std::string("unknown")),
    };
    files.emplace_back(fmt::format("rank-{:02}.toml", i + 1), rewrite_scenario(base_path, o.remove, sets, header));
  }
  return files;
}

}  // namespace scenarios
