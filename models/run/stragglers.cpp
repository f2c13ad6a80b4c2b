// [[stragglers]] -> per-rank compute scale (stragglers.hpp).
#include "models/run/stragglers.hpp"

#include <algorithm>
#include <cstdio>
#include <set>
#include <string>

#include "models/error.hpp"
#include "models/model/model_shape.hpp"
#include "models/workload/layout.hpp"

namespace models {

void apply_stragglers(const ScenarioSpec& spec, const World& world, std::vector<workload::RankSetup>& ranks) {
  for (std::size_t i = 0; i < spec.stragglers.size(); ++i) {
    const StragglerSpec& st = spec.stragglers[i];
    const std::string key = "stragglers." + std::to_string(i);
    if (st.node && (*st.node < 0 || *st.node >= world.nodes()))
      throw SpecError(key + ".node", key + ".node: " + std::to_string(*st.node) + " (expected a node in 0.." +
                                         std::to_string(world.nodes() - 1) + ")");
    for (int r : st.ranks)
      if (r < 0 || r >= world.size() || r >= static_cast<int>(ranks.size()))
        throw SpecError(key + ".ranks", key + ".ranks: rank " + std::to_string(r) + " (expected 0.." +
                                            std::to_string(world.size() - 1) + ")");
    if (st.compute_slowdown == 1) continue;
    for (int r : st.ranks) ranks[r].compute_scale *= st.compute_slowdown;
    if (st.node)
      for (int r = 0; r < static_cast<int>(ranks.size()) && r < world.size(); ++r)
        if (world.rank(r).node == *st.node) ranks[r].compute_scale *= st.compute_slowdown;
  }
}

std::vector<double> straggler_compute_scales(const ScenarioSpec& spec, const std::vector<int>& node_of) {
  const int n = static_cast<int>(node_of.size());
  std::vector<double> scale(n, 1.0);
  for (const StragglerSpec& st : spec.stragglers) {
    for (int r : st.ranks)
      if (r >= 0 && r < n) scale[r] *= st.compute_slowdown;
    if (st.node)
      for (int r = 0; r < n; ++r)
        if (node_of[r] == *st.node) scale[r] *= st.compute_slowdown;
  }
  return scale;
}

void add_straggler_stages(RunResult& result, const ScenarioSpec& spec) {
  if (!spec.model || spec.stragglers.empty() || result.ranks.empty()) return;
  const model::ModelShape shape = model::resolve_model(*spec.model);
  int node_ranks = 0;
  for (const auto& r : result.ranks) node_ranks += r.node == result.ranks.front().node;
  const workload::ParallelLayout layout =
      workload::make_layout(spec, shape, static_cast<int>(result.ranks.size()), node_ranks);
  if (layout.strategy != workload::Strategy::Megatron || layout.pp <= 1) return;
  result.pipeline_stages = layout.pp;
  for (const StragglerSpec& st : spec.stragglers) {
    std::set<int> stages;
    for (const auto& r : result.ranks)
      if ((st.node && r.node == *st.node) || std::find(st.ranks.begin(), st.ranks.end(), r.rank) != st.ranks.end())
        stages.insert(workload::megatron_coord(layout, r.rank).s);
    result.straggler_stages.emplace_back(stages.begin(), stages.end());
  }
}

ScenarioSpec without_stragglers(const ScenarioSpec& spec) {
  ScenarioSpec calm = spec;
  calm.stragglers.clear();
  return calm;
}

void add_straggler_cost(RunResult& result, const RunResult& straggler_free) {
  if (straggler_free.partial) {
    result.notes.push_back("stragglers: the same step without them was stopped by --time-limit; their cost is unknown");
    return;
  }
  const double base = straggler_free.step_time_s, cost = result.step_time_s - base;
  result.straggler_free_step_s = base;
  char line[200];
  std::snprintf(line, sizeof line,
                "stragglers: the same step without [[stragglers]] takes %.6g s; they cost %.6g s per step (%+.1f %%)",
                base, cost, base > 0 ? 100 * cost / base : 0.0);
  result.notes.push_back(line);
}

}  // namespace models
