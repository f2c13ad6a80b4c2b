#pragma once
// viz: what people look at. Reads models::RunResult only; never runs the simulator itself.
// Everything produced here is self-contained: the HTML has inline CSS and SVG, no script and
// nothing fetched, so a report opens offline and can be mailed or attached to a design review.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "models/result.hpp"

namespace viz {

// One point of an nccl-tests style curve: bus bandwidth of `op` at message `size_bytes`.
// `measured_bytes_per_s` <= 0 means "not measured" (the chart draws the prediction only).
struct BusBwPoint {
  std::string op;                    // "all_reduce", "all_gather", ...
  int64_t size_bytes = 0;            // nccl-tests "size" convention
  double predicted_bytes_per_s = 0;  // busbw predicted by the collective engine
  double measured_bytes_per_s = 0;   // busbw from a calibration file, if any
  // The curve this point belongs to when several share an axis: a compared layout's title, or a
  // measured file with its NCCL variables ("ar_tree.txt (NCCL_ALGO=Tree)"). Empty: the run's own.
  std::string series;
  // The communicator the curve ran on, in words ("shard group of 8 GPUs on 1 node", "all 32 GPUs
  // on 4 nodes"); one curve per (series, op, group).
  std::string group;
};

// What a report needs besides the result: the scenario in words (the caller formats it from the
// spec, so viz depends on results only) and the bandwidth curves.
struct ReportInputs {
  std::string title;                                         // "" -> RunResult::scenario
  std::string source_file;                                   // the scenario file, shown as given
  std::vector<std::pair<std::string, std::string>> summary;  // ("cluster", "p4d.24xlarge x 1"), ...
  std::vector<BusBwPoint> busbw;                             // may be empty: chart says so
  // Where the price bills more than the run's time, run's words for it ("Capacity Block windows
  // of 1 day in all, paid whole, for a 2 h 16 min run"), said beside the cost per run; "" otherwise.
  std::string billed_window;
};

// One HTML page for one run: scenario, topology, per-rank bars, timeline, links, bus bandwidth.
std::string report_html(const models::RunResult& result, const ReportInputs& inputs);

// Several runs side by side; the first is the baseline, ratios of step and run time on top.
// `inputs` may be shorter than `results` (missing entries are empty). `within_error[i]`, where not
// empty, is the sentence saying column i's step is within the model's error of the baseline's,
// printed beside its ratio so that a "(faster)" is not read as a result.
std::string compare_html(const std::vector<models::RunResult>& results, const std::vector<ReportInputs>& inputs,
                         const std::vector<std::string>& within_error = {});

// One point of a sweep, for the sweep page (sweep_html): what the row of `commsim sweep` says.
struct ScalingPoint {
  std::string x;       // the value of the sweep's first --vary key, as typed ("4")
  std::string series;  // the other --vary keys' values ("parallel.tp=2"); "" with one key
  bool ok = false;     // false: the point failed (`error` says why)
  std::string error;
  int gpus = 0;  // ranks of the run
  bool fits = true;
  double step_time_s = 0;
  double tokens_per_s = 0;          // 0: not estimated (a bare collective)
  double mfu = 0;                   // model FLOP utilisation, 0..1
  models::RankBreakdown breakdown;  // the mean rank's, adding up to step_time_s
  // What the point costs, as the row's cost columns say; < 0: no price for its nodes.
  double usd_per_run = -1, usd_per_million_tokens = -1;
};

// A sweep's page: how throughput scales over the first --vary key, per series of the others.
struct SweepReport {
  std::string title;                                         // the scenario's name
  std::string source_file;                                   // the scenario file, as given
  std::string axis;                                          // the first --vary key ("cluster.nodes")
  std::vector<std::pair<std::string, std::string>> summary;  // ("--vary", "cluster.nodes=1,2,4"), ...
  std::vector<ScalingPoint> points;                          // in sweep order
  // Where the points train different tokens per step, the sentence sweep prints on stderr ("the
  // points train different tokens per step (65536 to 262144: ...)"); "" where they train the same.
  std::string batch_note;
};

// One HTML page for a sweep: throughput and the linear-scaling line, scaling efficiency, the step
// breakdown per point, and a table of the points.
std::string sweep_html(const SweepReport& sweep);

// One ranked layout of `commsim plan`, for the plan page (plan_html).
struct PlanPoint {
  int rank = 0;             // 1 = the winner
  std::string layout;       // one readable line
  std::string hardware;     // "128 x p5.48xlarge"
  int gpus = 0;
  double train_s = 0;       // expected time to train, failures included (infinite: never finishes)
  double goodput = 1;       // the steps' share of it
  double cost_usd = -1;     // < 0: no price
  double tokens_per_s = 0, mfu = 0;
  std::string pricing;   // how its $ is sold: "on-demand", "capacity block", "given" ("": no price)
  std::string headroom;  // GPU memory left at the peak, as the table prints it ("1.14 GB!": tight)
  bool pareto = false;
  bool yours = false;       // --include
};
struct PlanReport {
  std::string title, source_file;
  std::vector<std::pair<std::string, std::string>> summary;  // ("target", "15e12 tokens"), ...
  std::vector<PlanPoint> points;                             // ranked, best first (and yours)
  // Where a row's machine at its size is known to differ from the model: (its ranks, the caveat).
  std::vector<std::pair<std::string, std::string>> caveats;
  // What the text says around its rows, in its words: what the front covers ("Pareto front (...)",
  // or "Pareto front among the N layouts simulated (...)"), the remarks under it ("#3: only 0.32 %
  // faster than #15, ...", "not searched: ..."), why #1 wins over #2 (a heading, then rows of
  // term, #1, #2, difference) and the near-tie the model cannot order ("" where none).
  std::string front;
  bool front_exact = true;
  std::vector<std::string> front_notes;
  std::string why_heading;
  std::vector<std::vector<std::string>> why_rows;
  std::string near_tie;
};
// The planner's page: time to train against cost for every ranked layout, the Pareto front drawn
// as a line (and how far it covers the candidates), the winner and the --include layout marked, the
// ranked table, and why #1 wins with the near-tie where there is one.
std::string plan_html(const PlanReport& plan);

// `commsim diff` as a page: a measured run against the simulated one, one row per thing both
// time (models/measured/measured_diff.hpp's rows, copied: viz does not read models/measured).
struct DiffPoint {
  std::string kind, name;  // "compute", "gemm"
  double measured_s = 0, simulated_s = 0;
  std::string parameter, explain;
};
struct DiffReport {
  std::string title;
  std::vector<std::pair<std::string, std::string>> summary;  // ("scenario", "..."), ("GPUs", "8"), ...
  std::vector<DiffPoint> points;                             // in the command's order
  std::vector<std::string> skipped;                          // measured, not compared: why
};
// A bar per row of simulated / measured - 1 (left: the model is fast, right: slow), then the table
// with the parameter that would explain each difference.
std::string diff_html(const DiffReport& diff);

// Chrome trace event JSON (Perfetto, chrome://tracing): a process per node, a thread per rank
// and stream, "X" events for compute and collectives, counter tracks of link utilisation.
std::string chrome_trace(const models::RunResult& result);

// CSV with one row per rank and one per timeline event (collectives and compute), units in the
// header, RFC 4180 quoting.
std::string to_csv(const models::RunResult& result);

}  // namespace viz
