#pragma once
// The one versioned shape of commsim's machine-readable outputs (docs/result.schema.json):
// every `--json` object starts with `schema_version`, `command` and `inputs` (the files read, the
// `--set` overrides, the commsim version); numbers that are counts (bytes, bytes/s, ranks) are
// integers, every other number carries kSignificantDigits significant digits, utilisation is a
// fraction (0..1). `run --json`, each result of `compare --json` and each sweep row share the
// run summary (add_run_summary), so one reader serves all three.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/result.hpp"
#include "scenarios/load/loader.hpp"

namespace scenarios {

using Json = nlohmann::ordered_json;

inline constexpr int kSchemaVersion = 1;
// Enough for picosecond resolution below a millisecond and to see any change a model makes;
// float noise (0.30000000000000004) lives in the 16th-17th digit.
inline constexpr int kSignificantDigits = 9;

std::string commsim_version();

struct CommandInputs {
  std::vector<std::string> files;      // as given on the command line, then files they name
  std::vector<std::string> overrides;  // --set KEY=VALUE, as typed (compare: "2:KEY=VALUE")
};
// Files a loaded scenario was read from (scenario, profile, DeepSpeed JSON, topology file).
CommandInputs scenario_inputs(const LoadedScenario& scenario, const std::vector<std::string>& overrides);

double round_significant(double v);
// Rounds every floating-point number inside `j` to kSignificantDigits.
void round_numbers(Json& j);
// A byte count or rate as a JSON integer.
Json integer_json(double v);

// {"files": [...], "overrides": [...], "commsim_version": "..."}
Json inputs_json(const CommandInputs& inputs);
// {"schema_version": 1, "command": COMMAND, "inputs": {...}}: the first keys of every --json object.
Json json_header(const std::string& command, const CommandInputs& inputs);
// `j` rounded, 2-space indented, newline at the end.
std::string dump_json(Json j);

// The run's headline numbers, flat: scenario, step_time_s, run_time_s, steps, partial,
// max_{compute,comm,exposed_comm,barrier_wait,offload}_s, busiest_link{,_kind,_bytes,_utilization},
// then step_{compute,interference,exposed_comm,host,bubble,barrier_wait,other}_s (the ranks' mean
// breakdown, adding up to step_time_s).
void add_run_summary(Json& j, const models::RunResult& r);
// The cost (models/run/cost.hpp), after the summary's other keys wherever it is written (run, each
// compare result, the end of a sweep row): usd_per_hour (the whole cluster), cost_per_step_usd,
// cost_per_run_usd, cost_per_million_tokens_usd, price_source (null where no price is known).
void add_cost_summary(Json& j, const models::RunResult& r);
// The breakdown keys in order ("compute_s" ... "other_s") and their values.
std::vector<std::pair<const char*, double>> breakdown_terms(const models::RankBreakdown& b);
// {"compute_s": ..., ..., "other_s": ...}: a rank's breakdown in `run --json`.
Json breakdown_json(const models::RankBreakdown& b);
// One busy link as run --json writes it (name, kind, bytes, busy_s, utilization, capacity).
Json link_json(const models::LinkResult& l);
// The same keys, null (a sweep point that failed).
void add_null_run_summary(Json& j);
// What the run ran on: "gpus", "nodes", "pods" and "layout" (the line of models/run/layout_line.hpp);
// null for a sweep point that failed. run and compare write them after the summary, sweep rows at
// their end (the columns before them keep their positions).
void add_layout(Json& j, const models::RunResult* r);
void add_null_cost_summary(Json& j);

// A text line recording the inputs, for human-readable outputs:
// "a.toml, ds.json --set k=v; commsim 0.1.0".
std::string inputs_text(const CommandInputs& inputs);
// `s` as one shell word (quoted when it has spaces or shell characters).
std::string shell_word(const std::string& s);

}  // namespace scenarios
