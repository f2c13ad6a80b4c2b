#pragma once
// `commsim plan --json` (docs/result.schema.json, "plan") and `--csv`: the training target, the
// space's counts, one row per ranked layout (its candidate, times, cost, memory, breakdown, on the
// Pareto front or not), the winner against the runner-up, and the audit. A shard's JSON holds every
// layout it ranked, so `--merge` of the shards' files ranks the union exactly as one run would
// (each shard's best is exact on its share; the best of the bests is the best of the whole).
#include <optional>
#include <string>
#include <vector>

#include "models/plan/search.hpp"
#include "scenarios/cli/output/result_schema.hpp"

namespace scenarios {

struct PlanOutput {
  std::string scenario;  // the base scenario's name
  models::plan::PlanOptions options;
  models::plan::PlanResult result;
  std::optional<models::plan::Evaluated> included;  // --include: the user's layout
  std::string included_file;
  size_t top = 10;  // rows in the text table (JSON and CSV: every ranked row)
  bool default_precision = true;  // the scenario sets neither training.param_dtype nor optimizer_dtype
  std::optional<models::plan::ImpliedBatch> implied_batch;  // the scenario's own batch, without global_batch
};

// One row: rank (1-based; 0 for the --include row when it does not fit or meet the constraints).
Json plan_row_json(const models::plan::Evaluated& e, size_t rank, bool pareto);
std::string plan_json(const PlanOutput& p, const CommandInputs& inputs);
std::string plan_csv(const PlanOutput& p);

// The rows of a shard's plan --json, back as Evaluated (for --merge); the file's target and
// objective are checked against `expect` (same scenario, options). Throws UserError at FILE:1:1.
struct ShardFile {
  std::vector<models::plan::Evaluated> rows;
  std::vector<models::plan::Evaluated> rejected;  // simulated, fit, missed the budget or deadline
  double steps = 0, tokens_per_step = 0;
  std::optional<double> budget_usd, deadline_s;  // the shard's constraints
  Json space;                                    // the counts, summed by the merge
  std::string scenario, objective;               // the base scenario's name; "time" or "cost"
  size_t shard_index = 0, shard_count = 1;       // --shard i/N (0/1 without)
  bool front_exact = false;                      // its ranks after #1 cover every candidate of its share
  std::vector<std::string> overrides;            // the shard's --set (inputs.overrides)
};
ShardFile read_plan_json(const std::string& path);

}  // namespace scenarios
