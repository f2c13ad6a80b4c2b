#pragma once
// `commsim plan`'s text: the target and the space's counts, the ranked table (time to train, $,
// tokens/s, MFU, memory peak and headroom, GPUs and nodes, the layout in one line), the time/cost
// Pareto front, why the winner wins (its step breakdown term by term against the runner-up's),
// where the --include layout ranks, and the prices used. When nothing is ranked, plan_empty_reason
// says why in one sentence (the command exits 2: an empty table is never an answer).
#include <string>

#include "scenarios/cli/output/result_format.hpp"
#include "scenarios/cli/plan/plan_json.hpp"

namespace scenarios {

std::string plan_text(const PlanOutput& p);
// Whether every rank and the --include row's rank cover every candidate (an exhaustive search, or
// no bound skipped any); else the ranks up to PlanOptions::exact_rows are exact and the rest order
// the layouts simulated.
bool ranks_exact(const PlanOutput& p);
// Whether the Pareto front covers every candidate: ranks_exact, or --pareto-exact.
bool front_exact(const PlanOutput& p);
// Where the --include layout ranks among the ranked rows by the objective (1 = better than all);
// 0 when it does not fit or misses a constraint.
size_t included_rank(const PlanOutput& p);
// Why no row was ranked: the sentence (with the counts) the command prints before exiting 2.
std::string plan_empty_reason(const PlanOutput& p);
// The caveats of the first `rows` ranked rows, labelled "#1", "#2", ..., and the --include layout's
// ("yours"): what the text (the rows shown) and the page (every ranked row) list.
LabelledCaveats plan_row_caveats(const PlanOutput& p, size_t rows);
// "3.2 d", "5.1 h", "12 min", "45 s".
std::string format_duration(double s);
// Under 5 % of the GPU's memory left at the peak (commsim run's TIGHT, result_format.hpp): the
// allocator's fragmentation, not estimated, may leave no room. Marked "!" in the table.
bool memory_tight(const models::plan::Evaluated& e);
// The headroom as the table prints it: "1.14 GB!" where tight.
std::string headroom_text(const models::plan::Evaluated& e);
// How many leading ranks are within kStepModelError of #1 in what they are ranked by (time to train,
// or cost): 2 or more is a near-tie the model cannot order; 1 (or 0 without rows) otherwise.
size_t ranks_within_model_error(const PlanOutput& p);

}  // namespace scenarios
