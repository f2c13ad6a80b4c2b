#pragma once
// What a whole sweep says on standard error about its scaling: each point's tokens/s per GPU over
// that of the first point that fits (the scaling efficiency), and, where the points train different
// tokens per step (a scenario that derives its global batch from dp trains a larger batch on more
// GPUs), that they do, since an efficiency then compares steps of different work. The --html page
// says the same sentence (viz::SweepReport::batch_note).
#include <optional>
#include <string>
#include <vector>

namespace scenarios {

// One point as the line needs it; a point that failed has no rate.
struct PointRate {
  std::optional<double> tokens_per_s_per_gpu;  // training runs only
  double tokens_per_step = 0;                  // 0: not a training run, or failed
  bool fits = false;                           // in GPU memory: a point that does not has no real time
};

// "scaling efficiency (tokens/s per GPU against the first point): 1.00, 0.93, -" with the batch note
// after a "; " where there is one; "" where fewer than two points follow the first that fits.
std::string scaling_efficiency_line(const std::vector<PointRate>& points);

// "the points train different tokens per step (65536 to 262144: the global batch follows the GPUs
// where training.global_batch is not set), so an efficiency compares steps of different work";
// "" where every point that ran trains the same.
std::string batch_note(const std::vector<PointRate>& points);

}  // namespace scenarios
