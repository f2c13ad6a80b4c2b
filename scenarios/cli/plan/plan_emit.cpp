// `commsim plan --emit DIR` (plan_emit.hpp).
#include "scenarios/cli/plan/plan_emit.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include <fmt/format.h>

#include "scenarios/cli/output/result_format.hpp"
#include "scenarios/cli/plan/plan_report.hpp"
#include "scenarios/import/scenario_writer.hpp"
#include "scenarios/load/loader.hpp"
#include "scenarios/load/scenario_rewrite.hpp"

namespace scenarios {

std::string emitted_name(size_t rank) { return fmt::format("rank-{:02}.toml", rank); }

void remove_stale_emitted(const std::string& dir, size_t written) {
  for (size_t i = written + 1; i <= 99; ++i) {
    const std::filesystem::path f = std::filesystem::path(dir) / emitted_name(i);
    std::error_code ec;
    if (!std::filesystem::is_regular_file(f, ec)) continue;
    std::string first;
    if (std::FILE* in = std::fopen(f.c_str(), "r")) {
      char buf[64] = {};
      if (std::fgets(buf, sizeof buf, in)) first = buf;
      std::fclose(in);
    }
    if (first.rfind(kEmittedHeader, 0) == 0)
      std::filesystem::remove(f, ec);
    else
      std::fprintf(stderr, "plan: %s is not one --emit wrote; left as it is\n", f.c_str());
  }
}

std::vector<std::pair<std::string, std::string>> emitted_scenarios(
    const std::string& base_path, const models::ScenarioSpec& base, const PlanOutput& p, size_t k,
    const std::vector<std::string>& base_sets, const std::map<std::string, models::PriceSpec>& price_table,
    const std::string& prices_file, const std::string& deepspeed_config) {
  std::vector<std::pair<std::string, std::string>> files;
  const auto& ranked = p.result.ranked;
  for (size_t i = 0; i < std::min(k, ranked.size()); ++i) {
    const auto& e = ranked[i];
    const models::plan::ScenarioOverrides o = models::plan::candidate_overrides(base, e.candidate);
    // The plan's --set first, but not what the candidate removes (a key or a table the layout
    // replaces, the scenario's price on another instance), then the candidate's keys.
    std::vector<std::string> sets;
    for (const auto& set : base_sets) {
      const std::string key = override_key(set);
      const bool removed = std::any_of(o.remove.begin(), o.remove.end(), [&](const std::string& r) {
        const std::string gone = override_key(r);
        return key == gone || key.rfind(gone + ".", 0) == 0;
      });
      if (!removed) sets.push_back(set);
    }
    sets.insert(sets.end(), o.set.begin(), o.set.end());
    // Its own name: the scenario's ("... 4 pods x 1 GPU (EFA)") would describe another layout.
    sets.push_back("name=" + toml_quote(fmt::format("{}: plan rank {}, {} on {} x {} ({} GPUs)", base.name, i + 1,
                                                     models::plan::layout_text(e.candidate), e.candidate.nodes,
                                                     e.candidate.instance, e.candidate.gpus())));
    const bool own_price = base.cluster.price && base.cluster.instance == e.candidate.instance;
    const auto file_price = price_table.find(e.candidate.instance);
    if (!own_price && file_price != price_table.end())
      sets.push_back(fmt::format("cluster.price_per_hour={:.17g}", file_price->second.usd_per_hour));
    std::vector<std::string> header = {
        fmt::format("commsim plan, rank {} of {}: {} on {} x {} ({} GPUs)", i + 1, ranked.size(),
                    models::plan::layout_text(e.candidate), e.candidate.nodes, e.candidate.instance,
                    e.candidate.gpus()),
        fmt::format("planned from {}: step {}, expected time to train {} (goodput {:.1f} %), cost {}", base_path,
                    format_seconds(e.step_s), format_duration(e.train_s), 100 * e.goodput,
                    e.cost_usd ? format_usd(*e.cost_usd) : std::string("unknown")),
    };
    // The DeepSpeed file stays (its other settings are the run's), but what the layout sets in
    // [zero] wins over it: say so where the two differ, or the file reads contradictory.
    const std::string& strategy = e.candidate.strategy;
    if (!deepspeed_config.empty() && strategy.rfind("zero", 0) == 0) {
      const std::string opt = e.candidate.offload ? "cpu" : "none";
      const std::string params = e.candidate.offload_params ? "cpu" : "none";
      std::vector<std::string> differ;
      if (base.zero.offload_optimizer != opt)
        differ.push_back(fmt::format("offload_optimizer = '{}' (was '{}')", opt, base.zero.offload_optimizer));
      if (base.zero.offload_param != params)
        differ.push_back(fmt::format("offload_param = '{}' (was '{}')", params, base.zero.offload_param));
      if (!differ.empty())
        header.push_back(fmt::format("[zero] {} override {}: this layout's, which commsim runs",
                                     fmt::join(differ, " and "), deepspeed_config));
    }
    if (!own_price && file_price != price_table.end())
      header.push_back(fmt::format("price_per_hour: {} per node-hour from {}",
                                   format_usd(file_price->second.usd_per_hour), prices_file));
    files.emplace_back(emitted_name(i + 1), rewrite_scenario(base_path, o.remove, sets, header));
  }
  return files;
}

}  // namespace scenarios
