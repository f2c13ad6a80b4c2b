#pragma once
// What a run adds at scale (models/goodput/README.md): the step as a distribution over seeded
// draws of every GPU's speed (VariabilityResult), and the run's interruptions, checkpoints,
// expected wall time, goodput and cost (GoodputResult). Part of models::RunResult.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace models {

struct ComponentRate {
  std::string name;  // "gpu", "hbm", "nic", "network", "software", "host"
  double per_day = 0;
};

// Whether the run checkpoints, and why not (models/goodput/goodput.hpp).
enum class CheckpointPlan {
  Interval,     // every interval_steps steps: Daly's interval, whole steps
  RunShorter,   // the run is no longer than that interval: nothing to save before it ends
  NeverSooner,  // a checkpoint costs so much against the MTBF that the run is expected to end sooner without
  NothingFails  // no failure rate: nothing to recover from
};

struct GoodputResult {
  bool estimated = false;  // a training step (not a bare collective), not stopped by --time-limit
  int gpus = 0, nodes = 0;
  int hosts = 0;  // the hosts those nodes hold (an NVL72 rack: its trays), the unit host failures count
  double interruptions_per_day = 0, mtbf_s = 0;
  std::vector<ComponentRate> components;  // per day, biggest first
  std::string failure_rates_source;       // Llama 3's record, or the failures.* keys set (goodput/failures.hpp)
  double checkpoint_bytes = 0, storage_bandwidth_bytes_per_s = 0;
  // checkpoint.bytes_per_param, else the states the strategy keeps between steps
  // (memory/checkpoint_state.hpp), and what they are: "weights 2 + Adam m, v 4" (B per parameter).
  double checkpoint_bytes_per_param = 0;
  std::string checkpoint_states;
  double checkpoint_write_s = 0, checkpoint_blocking_s = 0;
  bool checkpoint_async = false;
  double restart_s = 0;
  bool restart_assumed = true;  // restart.time not set: Daly 2006's example R = 10 min, an assumption
  double young_interval_s = 0, daly_interval_s = 0;
  CheckpointPlan plan = CheckpointPlan::Interval;
  // Daly's interval in whole steps: the checkpoint interval when plan is Interval, else the one
  // the run would use (0 when nothing fails); outputs show it as an interval only for Interval.
  double interval_s = 0;
  long long interval_steps = 0;
  double interval_wall_s = 0;   // the expected wall time with it (plan NeverSooner: what not checkpointing beat)
  double step_s = 0;            // the step used (the sampled mean with --samples, else the step)
  double work_s = 0;            // failure-free: steps x step_s
  double expected_wall_s = 0;   // with checkpoints, lost work and restarts; infinite: does not finish
  double goodput = 1;           // work_s / expected_wall_s (0 when it does not finish)
  bool finishes() const;        // expected_wall_s is finite
  double expected_interruptions = 0;
  double checkpoint_overhead_s = 0, rework_s = 0, restart_overhead_s = 0;  // wall - work, split
  double price_per_gpu_hour = 0;            // 0: unknown; per GPU billed (whole nodes, idle GPUs included)
  int billed_gpus = 0;                      // the GPUs the price is paid for (>= gpus in use)
  double expected_cost = 0, work_cost = 0;  // $, when the price is known
};
inline bool GoodputResult::finishes() const { return std::isfinite(expected_wall_s); }

struct VariabilityResult {
  bool sampled = false;
  uint64_t seed = 0;
  int samples = 0;        // samples simulated: samples_asked unless --time-limit ran out first
  int samples_asked = 0;  // --samples N
  bool stopped() const { return samples < samples_asked; }  // by --time-limit
  bool exact = false;  // every rank at its own speed (--full); else the slowest-rank rule
  double gpu_speed_cv = 0, step_jitter_cv = 0, nic_jitter_cv = 0;
  int ranks = 0;
  double deterministic_step_s = 0;  // every GPU at the nominal speed
  std::vector<double> steps_s;      // one per sample, in sample order
  // Over the samples, each its own allocation of GPUs. p99_s is the nearest-rank 99th percentile:
  // with fewer than kMinSamplesForP99 samples it is the maximum, and outputs give max_s instead.
  double mean_s = 0, median_s = 0, p99_s = 0, min_s = 0, max_s = 0;
  static constexpr int kMinSamplesForP99 = 100;
  bool has_p99() const { return samples >= kMinSamplesForP99; }
  double slowdown = 0;  // mean / deterministic - 1
  // The closed form: the slowest of N GPUs is E[max of N normals] sigma slower (extreme.hpp),
  // sigma = sqrt(gpu_speed_cv^2 + step_jitter_cv^2).
  double expected_max_z = 0, closed_form_slowdown = 0;
  // The median sample's slowest rank: every collective that spans it waits for it.
  int slowest_rank = 0, slowest_node = 0;
  double slowest_compute_scale = 1;
  // The slowest GPU is a [[stragglers]] entry's (its factor above 1): the straggler, not the
  // largest of N draws, sets the step, and the closed form above does not describe it.
  double slowest_straggler_factor = 1;
  bool slowest_is_straggler() const { return slowest_straggler_factor > 1; }
  // The slowest-rank rule (not --full) on a layout with tensor or pipeline groups: an upper bound
  // (a slow GPU delays its own stage, the others wait only at the next data-parallel collective).
  bool rule_upper_bound = false;
  std::string who_waits;  // in words
};

}  // namespace models
