#pragma once
// The at-scale parts of a result as people and programs read them: the step over seeded GPU
// speeds (`variability`, run --samples) and the run's failures, checkpoints, expected wall time,
// goodput and cost (`goodput`); models/goodput/README.md and docs/goodput.md say what each is.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/result.hpp"

namespace scenarios {

// null when not sampled / not estimated.
nlohmann::ordered_json variability_json(const models::VariabilityResult& v);
nlohmann::ordered_json goodput_json(const models::GoodputResult& g);
// The summary's lines (no trailing newline each); empty when there is nothing to say.
std::vector<std::string> variability_lines(const models::VariabilityResult& v);
// `r`'s goodput; with --samples its failure-free time and cost rest on the sampled mean step, and
// the lines say so beside the run's own $ per run (the simulated step's).
std::vector<std::string> goodput_lines(const models::RunResult& r);
// "3 d 04 h", "5 h 12 min", else format_seconds; "1.9e+05 years" past 10,000 days; "never" when infinite.
std::string goodput_duration(double s);
// "$1.23 M", "$45,600"-like short money, "$3.91e+15" past a million M; "" when the price is
// unknown (cost 0) or the cost infinite.
std::string goodput_usd(double usd);
// The expected wall time, or "does not finish" (models::GoodputResult::finishes).
std::string goodput_wall_text(const models::GoodputResult& g);
// compare's "checkpoint every" cell: "47 steps, 1 min 45 s", Daly's interval; "none (...)" and why
// where the run takes none ("none (run < 47 steps)": the run ends before its first checkpoint).
std::string checkpoint_plan_text(const models::GoodputResult& g);
// JSON goodput.checkpointing: "interval", "run_shorter_than_interval", "never_sooner", "nothing_fails".
const char* checkpoint_plan_name(models::CheckpointPlan p);

}  // namespace scenarios
