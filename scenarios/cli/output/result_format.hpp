#pragma once
// A models::RunResult as people and programs read it: the `run --json` object (keys of the command
// contract in docs/design.md, deterministic byte for byte) and the human summary table.
#include <string>

#include "models/result.hpp"
#include "scenarios/cli/output/result_schema.hpp"

namespace scenarios {

// `run --json`: one object of the result schema (docs/result.schema.json, command "run"): the
// header (schema_version, command, inputs), the run summary, then per rank, per link,
// transports, breakdown, notes and the event count; keys in a fixed order, newline at the end.
std::string result_json(const models::RunResult& result, const CommandInputs& inputs);
// The readable summary: step and run time, per-rank compute / comm / exposed / barrier wait,
// busiest links with utilisation, transports, notes; its first lines name the inputs.
std::string result_summary(const models::RunResult& result, const CommandInputs& inputs);

// "1.23 s", "456 ms", "7.8 us"; "10 min 17 s" past a minute.
std::string format_seconds(double s);
// "1.07 GB" (decimal prefixes, as nccl-tests and NCCL print).
std::string format_bytes(double bytes);

// Largest per-rank values, used by the summary, compare and sweep.
struct RankExtremes {
  double max_compute_s = 0, max_comm_s = 0, max_exposed_comm_s = 0, max_barrier_wait_s = 0, max_offload_s = 0;
};
RankExtremes rank_extremes(const models::RunResult& result);

}  // namespace scenarios
