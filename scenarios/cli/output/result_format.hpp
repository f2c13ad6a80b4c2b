#pragma once
// A models::RunResult as people and programs read it: the `run --json` object (keys of the command
// contract in docs/design.md, deterministic byte for byte) and the human summary table.
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

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

// The `memory` object of run --json (null when not estimated): gpu, capacity_bytes, peak_bytes,
// peak_rank, phase, recompute, fits, terms (name -> bytes, biggest first).
nlohmann::ordered_json memory_json(const models::MemoryResult& memory);
// The `throughput` object of run --json (null for a bare collective): tokens and samples per
// step and per second, model and hardware FLOPs per step, TFLOP/s per GPU, MFU, HFU.
nlohmann::ordered_json throughput_json(const models::ThroughputResult& throughput);
// "52,000 tokens/s, 6.35 samples/s, 412 TFLOP/s per GPU (MFU 41.7 %; ...)"; empty when absent.
std::string throughput_line(const models::ThroughputResult& throughput);
// "$1.23 per step, $61.50 per run, $0.45 per million tokens (128 nodes, 1024 GPUs at $12,585/h: SOURCE)", or
// why the cost is unknown.
std::string cost_line(const models::RunResult& r);
// Where the price bills more than the run's time (an AWS Capacity Block, paid by whole days):
// "Capacity Block windows of 1 day in all, paid whole, for a 2 h 16 min run"; "" otherwise.
std::string billed_window_text(const models::RunResult& r);
// "$1.23", "$0.0123", "$12,345", "$1.50 M".
std::string format_usd(double usd);
// "62.10 GB peak of 80.00 GB (H100, rank 0, optimizer): optimizer_states 32.1 GB, ..." with the
// `max_terms` biggest terms; empty when not estimated.
std::string memory_line(const models::MemoryResult& memory, size_t max_terms);
// The warning for a layout that does not fit (empty when it fits): the peak, the capacity, the
// biggest term.
std::string memory_warning(const models::MemoryResult& memory);
// "TIGHT: ..." where the layout fits with under 5 % of the GPU's memory left (fragmentation is not
// estimated); "" otherwise.
std::string memory_margin_note(const models::MemoryResult& memory);
// The share of the GPU's memory under which a peak is TIGHT (run's note, plan's '!').
inline constexpr double kTightMemoryShare = 0.05;
// commsim's median |error| on measured training steps nothing was fitted on (the README's "How
// accurate it is": Megatron-LM steps on 8-3,072 A100, median 3.1 %; a README test keeps the two
// equal). Layouts closer than this in what they are ranked by are not told apart by the model.
inline constexpr double kStepModelError = 0.031;
// Where `r`'s training step differs from `base`'s (the same batch) but by no more than
// kStepModelError: "[INDEX]'s step is within 3.1 % of [1]'s (x0.98), ...: the model does not order
// them", which compare prints as a note and its page (and report's) beside the ratio; "" otherwise.
std::string within_model_error_note(const models::RunResult& base, const models::RunResult& r, size_t index);

// "1.23 s", "456 ms", "7.8 us"; "10 min 17 s" past a minute.
std::string format_seconds(double s);
// "1.07 GB" (decimal prefixes, as nccl-tests and NCCL print).
std::string format_bytes(double bytes);

// The breakdown's terms as the text outputs name them, in the order of breakdown_terms
// (result_schema.hpp): "compute", "interference", "exposed comm", "host (CPU/offload)",
// "pipeline bubble", "barrier wait", "other".
std::vector<std::pair<const char*, double>> breakdown_labels(const models::RankBreakdown& b);

// The caveats of several labelled results (RunResult::caveats: where a machine at its size is
// known to differ from the model), each once, first seen first, with the labels of the results it
// applies to ("#1 #3"), `all` when it applies to all of several: (labels, caveat) pairs.
using LabelledCaveats = std::vector<std::pair<std::string, const std::vector<std::string>*>>;
std::vector<std::pair<std::string, std::string>> group_caveats(const LabelledCaveats& labelled, const std::string& all);
// The same as "  LABELS: CAVEAT" lines wrapped at 100 columns; "" without any.
std::string caveat_lines(const LabelledCaveats& labelled, const std::string& all);
// `head` followed by the words of `text`, one space apart, wrapped at 100 columns (a terminal's
// width): each continuation line starts with `indent` and its first word; an empty line or a bare
// indent is never broken. Every line ends with a newline.
std::string wrap_words(std::string head, const std::string& text, const std::string& indent);

// Share of one step's operations a run simulated: 1, or less where --time-limit stopped it.
double simulated_fraction(const models::RunResult& result);

// Largest per-rank values, used by the summary, compare and sweep.
struct RankExtremes {
  double max_compute_s = 0, max_comm_s = 0, max_exposed_comm_s = 0, max_barrier_wait_s = 0, max_offload_s = 0;
};
RankExtremes rank_extremes(const models::RunResult& result);

}  // namespace scenarios
