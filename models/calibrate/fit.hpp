#pragma once
// Least-squares fit of the collective engine's physical parameters (models/comm_plan/link_params.hpp)
// to nccl-tests measurements. Each measured point is classified with NCCL's own tuner (which
// algorithm/protocol/channels NCCL ran at that size); then, per link class:
//
//   t_device = kernel + steps * hop[proto] + x / (B * share) * u[proto],   u = 1 / efficiency
//   t_measured = max(launch_overhead, t_device)                            (nccl-tests' loop)
//
// which is linear in (hop, u) for a fixed launch_overhead: we scan launch_overhead on a grid and
// solve the rest with Eigen (relative-error weighting, weak priors toward the defaults so that
// parameters a file does not exercise stay physical, bounds hop >= 0 and efficiency <= its
// protocol's payload share: LL 0.5, LL128 120/128, Simple 1).
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "models/nccl/ops.hpp"
#include "models/readers/nccl_tests_output.hpp"
#include "models/spec.hpp"

namespace models::calibrate {

struct Measurement {
  ScenarioSpec spec;  // the machine and the NCCL variables the run used
  readers::NcclTestsRun run;
};

struct PointFit {
  std::string source;
  int64_t size_bytes = 0;
  double measured_us = 0, predicted_us = 0;  // predicted: the fit's linear model
  std::string algo, proto;
  // false: slower than a larger size of the same run (host noise), left out of the fit; its error
  // is still reported.
  bool fitted = true;
  double engine_us = 0;  // the collective engine with the fitted parameters (fit_check.hpp); 0: not run
  double rel_error() const { return (predicted_us - measured_us) / measured_us; }
  double engine_rel_error() const { return (engine_us - measured_us) / measured_us; }
};

struct FitResult {
  std::map<std::string, double> params;  // name -> value, ready for a profile's [params]
  std::map<std::string, double> pinned;  // the ones held fixed (--fix), not fitted
  std::vector<PointFit> points;
  std::map<std::string, std::string> classes;  // source -> link class it exercised
  // source -> the other classes its ring crossed, held at their defaults or --fix values ("nvlink")
  std::map<std::string, std::string> held;
  double median_abs_error = 0, max_abs_error = 0;  // the linear model's, over every point
  // The engine's over every point, with the fitted parameters (fit_check.hpp); unset: not checked.
  std::optional<double> engine_median_abs_error, engine_max_abs_error;
  // Fitted parameters that ended at a bound of the fit's own: an efficiency at its protocol's
  // payload ceiling (LL 0.5, LL128 120/128, Simple 1), a hop latency at 0, the launch overhead or
  // sharpness at an end of its grid. The data pushed them there: their values say more about the
  // model than about the machine.
  std::set<std::string> at_bound;
  // Parameters the files barely move (no fitted point's time changes by kUndetermined of itself
  // when the parameter doubles): written at their default (or --fix) value, not the fit's drift.
  std::set<std::string> undetermined;
};

// The collectives calibrate fits: those whose time the fit's model (rings and trees over one
// link class, above) holds. all_reduce and all_gather; the others run on other channels
// (point-to-point: alltoall, sendrecv), other critical paths (broadcast, reduce) or add a reduction
// the model leaves out (reduce_scatter fitted 7 % low on the engine's own curve).
bool fits_collective(nccl::CollOp op);
inline constexpr double kUndetermined = 0.02;
inline constexpr const char* kFittedCollectives =
    "(expected an all_reduce_perf or all_gather_perf table; `commsim diff` compares any collective)";

// `pinned`: parameters measured elsewhere (e.g. {"nvlink.efficiency.ll", 0.26}), held fixed.
FitResult fit_link_params(const std::vector<Measurement>& measurements,
                          const std::map<std::string, double>& pinned = {});

// A parameter the written profile keeps from the scenario it was fitted for (the fit does not
// set it: compute.* from `commsim profile`, a link class no file exercised, a raw bandwidth), with
// the comment written beside it (where it came from).
struct CarriedParam {
  double value = 0;
  std::string comment;
};

// Profile text (TOML) with a comment header naming the sources (each as given: a file, with the
// NCCL variables its run set after a colon) and fit quality; `carried` are written beside the
// fitted parameters (a name the fit sets is the fit's); [fitted] lists the --fix names as `fixed`.
// Where the files were measured, written as the profile's [fitted] table (ClusterSpec::ProfileFit).
struct FittedOn {
  std::string instance, gpu;
  std::vector<int> nodes;  // node counts of the files that crossed a network
};
std::string profile_toml(const FitResult& fit, const std::vector<std::string>& sources, const FittedOn& on,
                         const std::map<std::string, CarriedParam>& carried = {});

}  // namespace models::calibrate
