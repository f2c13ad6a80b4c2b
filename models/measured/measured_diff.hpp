#pragma once
// A measured run lined up with the simulated one: one row per thing both can time, the difference,
// and the model parameter that would move the simulated value towards the measured one.
//   step         the measured step time (a training log's, --step-time, else the trace's
//                ProfilerStep annotations, else its GPU span) against run_scenario's step_time_s
//   compute      per kernel class, the trace's mean kernel seconds per step against the busiest
//                rank's (workload/compute_classes.hpp): gemm, attention, elementwise, optimizer
//   idle         the trace's GPU idle time per step (span - busy) against the laws' launch gaps
//   collective   a measured collective (nccl-tests row or NCCL Inspector operation) against the
//                same collective simulated on the scenario's machine
// Rows come back largest |difference| first within the order step, compute, idle, collective.
// The parameters named are registered ones (models/params.cpp): a row says which one, not what
// value; `commsim profile` (compute) and `commsim calibrate` (links) fit them.
#include <string>
#include <vector>

#include "models/calibrate/param_effects.hpp"
#include "models/measured/compute_fit.hpp"
#include "models/result.hpp"

namespace models::measured {

struct DiffRow {
  std::string kind;  // "step", "compute", "idle", "collective"
  std::string name;  // "step time", "gemm", "all_reduce 268435456 B on 8 ranks", ...
  double measured_s = 0, simulated_s = 0;
  double diff_s() const { return simulated_s - measured_s; }
  // simulated / measured - 1 (0 when nothing was measured).
  double relative() const { return measured_s > 0 ? simulated_s / measured_s - 1 : 0; }
  std::string parameter;  // the registered parameter that would explain the difference
  std::string explain;    // one sentence
  // Collective rows: what moves the simulated time, largest first (calibrate::parameter_effects).
  std::vector<calibrate::ParamEffect> effects;
  // Collective rows: the same operation under the other algorithms and protocols the engine runs.
  std::vector<calibrate::Alternative> alternatives;
};

struct MeasuredDiff {
  int gpus = 0, nodes = 0, pods = 0;
  std::string layout;  // models/run/layout_line.hpp's line of the scenario
  std::vector<DiffRow> rows;
  // Measured collectives not compared: "NAME: why" (another rank count than the scenario's).
  std::vector<std::string> skipped;
};

// Step and compute rows: `trace` may be null (then only the step row, from `measured_step_s`, and
// none without it).
// `measured_step_s` <= 0: taken from the trace. `result` is run_scenario's result of `spec`.
MeasuredDiff diff_step(const ScenarioSpec& spec, const RunResult& result, const TraceCompute* trace,
                       double measured_step_s);

// One collective row: measured and simulated seconds of one operation of `bytes` on `ranks` ranks,
// `algo` and `proto` what NCCL's tuner picked in the simulation, `effects` what moves the simulated
// time (calibrate::parameter_effects, largest first). The parameter named is the one that moves it
// most, from the engine itself: the launch overhead where nccl-tests' loop is host-bound, a hop
// latency where the steps' latencies add up, an efficiency or a per-channel rate where bytes do.
// Where another algorithm or protocol (`alternatives`) that the tuner picks at a nearby size comes
// within 10 % of the measured time and halves the row's gap, the row names the choice instead
// (nccl.env.NCCL_ALGO or NCCL_PROTO): the run's NCCL may have switched at another size, and no
// parameter of the modelled choice explains that.
DiffRow collective_row(const std::string& op, long long bytes, int ranks, double measured_s, double simulated_s,
                       const std::string& algo, const std::string& proto,
                       const std::vector<calibrate::ParamEffect>& effects,
                       const std::vector<calibrate::Alternative>& alternatives = {});

// Orders rows: by kind (step, compute, idle, collective), then by |difference|, largest first
// (collective rows by |relative difference|: one operation each, of any size).
void order_rows(std::vector<DiffRow>& rows);

}  // namespace models::measured
