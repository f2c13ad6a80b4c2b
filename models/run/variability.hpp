#pragma once
// The step as a distribution over seeded draws of every GPU's speed (run --samples N --seed S).
// Sample k draws rank r's compute time factor
//   c_r = (1 + sigma_p Z_rk) (1 + sigma_j Z'_rk)        (both floored at 0.05)
// Z_rk the speed of the GPU the job got as rank r in sample k (one allocation of GPUs per sample:
// variability.gpu_speed_cv), Z'_rk one step's jitter (variability.step_jitter_cv), all independent
// standard normals, a pure function of (seed, k, r): rank r of sample k is the same GPU whatever
// the job's size. The mean over samples is the expectation over allocations; a GPU keeps its
// speed every step of a run, so the run's step is its allocation's
// (models/goodput/draws.hpp); and each node's NIC bandwidth factor 1 - |sigma_n Z_nk| (floored at
// 0.05; variability.nic_jitter_cv).
//
// Exact (--full): every rank computes at its own factor and every node's NICs run at theirs;
// every rank is simulated (no two ranks alike). Default, the slowest-rank rule: every rank
// computes at max_r c_r and every NIC at min_n of the factors, so the ranks stay alike and a
// sample costs what the deterministic step costs. In a step whose every collective spans every
// rank (DDP, ZeRO, FSDP with one group) a collective starts when its last member arrives, and its
// last member is the slowest rank at every collective, so the rule is exact up to the overlap of
// the others' compute with communication; with tensor or pipeline groups the slowest rank's groups
// gate the rest at the next data-parallel collective, and the rule is an upper bound
// (variability_test.cpp measures both against the exact samples). A ring's throughput is its
// slowest link's, so the NIC rule is exact for rings, an upper bound for trees.
// [[stragglers]] multiply a rank's drawn factor (step_build.cpp): the slowest GPU a sample names
// is the one slowest with both, c_r s_r (s_r its [[stragglers]] compute_slowdown).
#include <functional>
#include <string>

#include "models/result.hpp"
#include "models/run/run.hpp"
#include "models/spec.hpp"

namespace models {

// One sample's draws for `ranks` ranks on nodes `node_of[r]`.
struct SpeedDraw {
  std::vector<double> compute_scale;  // per rank, c_r
  std::vector<double> nic_factor;     // per node
  int slowest_rank = 0;
  double max_scale = 1, min_nic = 1;
};
SpeedDraw draw_speeds(uint64_t seed, int sample, const std::vector<int>& node_of, double gpu_cv, double jitter_cv,
                      double nic_cv);
// The slowest GPU of a draw once [[stragglers]] slow some ranks: argmax_r c_r s_r (the first
// such rank), `straggler_scale` s_r per rank (stragglers.hpp); its combined factor in `scale`.
// With `compute_s` (each rank's compute time in the deterministic step, stragglers included; GPUs
// of several kinds compute at their own rates), the slowest by drawn time: argmax_r compute_s_r c_r.
struct SlowestGpu {
  int rank = 0;
  double scale = 1;
};
SlowestGpu slowest_gpu(const SpeedDraw& d, const std::vector<double>& straggler_scale,
                       const std::vector<double>& compute_s = {});

// Runs options.samples samples of `spec` (the sampler's runs are plain run_scenario calls) and
// fills result.variability; the deterministic step is result.step_time_s. --time-limit is one
// budget for the whole run: `elapsed_s` (the wall-clock seconds the run has spent so far) is
// called before each sample, which gets what is left. A sample stopped by the limit is dropped
// and no further one runs: the statistics are over the samples that finished
// (VariabilityResult::samples < samples_asked), none of them when none finished (sampled false).
void add_variability(RunResult& result, const ScenarioSpec& spec, const RunOptions& options,
                     const std::function<double()>& elapsed_s);

// Without --samples (options.samples 0) variability.* and --seed change nothing: the note a run
// gets where [cluster.params] sets a variability.* parameter to other than its default or --seed
// was given ("variability.gpu_speed_cv acts only with --samples N: ..."), else "".
std::string unsampled_variability_note(const ScenarioSpec& spec, const RunOptions& options);

// Nearest-rank quantile of `values` (q in [0, 1]); the median of an even count is the mean of the two.
double sample_quantile(std::vector<double> values, double q);

}  // namespace models
