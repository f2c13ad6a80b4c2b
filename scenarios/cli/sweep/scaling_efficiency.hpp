#pragma once
// The scaling efficiency a whole sweep prints on standard error: each point's tokens/s per GPU
// over that of the first point that fits in GPU memory, labelled with its GPU count
// ("64 GPUs 1.00, 256 GPUs 0.98"). With --samples the rate is the sampled one, tokens per step
// over the mean step of the samples (step_mean_s), so the GPU speed spread is in it; without, the
// deterministic step's. Only a sweep whose points differ in GPU count has an efficiency to show:
// a sweep over anything else (a spread, an NCCL setting) at one size gets no line. Where the
// points train different tokens per step (a scenario that derives its global batch from dp trains
// a larger batch on more GPUs), the line says so, since an efficiency then compares steps of
// different work; the --html page says the same sentence (viz::SweepReport::batch_note).
#include <optional>
#include <string>
#include <vector>

#include "models/result.hpp"

namespace scenarios {

struct EfficiencyPoint {
  int gpus = 0;  // 0: unknown (a point whose layout failed)
  bool fits = false;
  std::optional<double> tokens_per_s_per_gpu;  // none: no rate (failed, a bare collective)
  double tokens_per_step = 0;                  // 0: not a training run, or failed
};

// A point's entry: its GPUs, and its rate per GPU (sampled when `r` was sampled).
EfficiencyPoint efficiency_point(const models::RunResult* r, int failed_gpus = 0);
// tokens per step over step_mean_s: the rate at the sampled mean step; none unless sampled.
std::optional<double> sampled_tokens_per_s(const models::RunResult& r);

// The line without its "sweep: " prefix, or "" when there is none to print: fewer than two
// points, none that fits with a rate, or one GPU count throughout. `samples`: --samples (0: none).
// A line with the batch note after a "; " where there is one.
std::string scaling_efficiency_line(const std::vector<EfficiencyPoint>& points, int samples);

// "the points train different tokens per step (65536 to 262144: the global batch follows the GPUs
// where training.global_batch is not set), so an efficiency compares steps of different work";
// "" where every point that ran trains the same.
std::string batch_note(const std::vector<EfficiencyPoint>& points);

}  // namespace scenarios
