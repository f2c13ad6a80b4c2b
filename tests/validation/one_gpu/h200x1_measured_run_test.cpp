// A measured single-GPU step brought in as a trace (scenarios/validation/h200x1/measured_run/: the
// calibration decoder's plain step on one H200, PyTorch profiler trace of 2 steps, 114.71 ms mean
// wall step over 12 steps timed without the profiler). The compute profile fitted on the trace
// (models/measured/compute_fit.hpp) makes the laws give the trace's class times exactly; the plain
// step has no communication, so the simulated step is the closed form
//   step = gemm + attention + elementwise + optimizer + idle   (the trace's per-step means)
//        = the trace's mean GPU span,
// checked against the step time measured without the profiler. IN SAMPLE: the profile comes from
// the same run it predicts (what the profile is for: a measured step, then a what-if); the
// accuracy tables rest on the defaults, not on this.
#include <catch2/catch.hpp>

#include <cmath>

#include "models/measured/compute_fit.hpp"
#include "models/readers/kineto_trace.hpp"
#include "models/run/run.hpp"
#include "models/workload/compute.hpp"
#include "models/topology/resolve.hpp"
#include "models/workload/compute_classes.hpp"
#include "scenarios/load/loader.hpp"

namespace {
const std::string kRun = std::string(COMMSIM_SOURCE_DIR) + "/scenarios/validation/h200x1/measured_run/";
constexpr double kMeasuredStepS = 0.11470981;  // kineto_plain_step.info.json mean_step_s
}  // namespace

TEST_CASE("measured run: the classes add up to rank_compute_seconds", "[validation][measured]") {
  const auto loaded = scenarios::load_scenario(kRun + "plain_step.toml", {});
  const auto c = models::measured::scenario_compute(loaded.spec);
  // rank_compute_seconds at the same rates: gemm + (everything else).
  const auto shape = models::model::resolve_model(*loaded.spec.model);
  const auto layout = models::workload::make_layout(loaded.spec, shape, 1, 1);
  auto rates = models::workload::make_rates(models::topology::resolve_node(loaded.spec.cluster).gpu,
                                            models::workload::training_precision(loaded.spec.training), 200e9, 0,
                                            loaded.spec.cluster.params);
  rates = models::workload::power_capped_rates(loaded.spec, shape, layout, rates);
  const auto sums = models::workload::rank_compute_seconds(loaded.spec, shape, layout, rates);
  // Plus the embedding's AdamW (131 M bf16 parameters, foreach), which the step program runs.
  const double embedding = models::workload::optimizer_seconds(
      double(shape.embedding_params()), models::workload::optimizer_plan(loaded.spec.training, layout.strategy), rates);
  // Up to the launch gaps of one multi-tensor chunk's rounding (optimizer_seconds' ceil): 8 x 2.6 us.
  CHECK(c.total() == Approx(sums.gemm + sums.other + embedding).margin(25e-6));
  CHECK(c.gaps > 0);
  CHECK(c.gemm < sums.gemm);  // the GEMMs' launch gaps are in rank_compute_seconds' gemm, not in c.gemm
}

TEST_CASE("measured run: the fitted profile reproduces the trace and predicts the measured step", "[validation][measured]") {
  const auto trace = models::readers::read_kineto_trace(kRun + "kineto_plain_step.json");
  const auto m = models::measured::trace_compute(trace);
  const auto loaded = scenarios::load_scenario(kRun + "plain_step.toml", {});
  const auto fit = models::measured::fit_compute(loaded.spec, m);
  CHECK(fit.gaps_fitted);
  CHECK(fit.fitted.gemm == Approx(m.gemm).epsilon(1e-8));
  CHECK(fit.fitted.attention == Approx(m.attention).epsilon(1e-8));
  CHECK(fit.fitted.elementwise == Approx(m.elementwise).epsilon(1e-8));
  CHECK(fit.fitted.optimizer == Approx(m.optimizer).epsilon(1e-8));
  CHECK(fit.fitted.gaps == Approx(m.idle()).epsilon(1e-8));
  // The factors are measured / laws (the power stretch aside: within 2 % of it).
  CHECK(fit.attention == Approx(m.attention / fit.laws.attention).epsilon(1e-9));
  CHECK(fit.optimizer == Approx(m.optimizer / fit.laws.optimizer).epsilon(1e-9));
  CHECK(fit.gemm == Approx(m.gemm / fit.laws.gemm).epsilon(0.02));
  // The laws, out of sample, before the fit (docs/measured-runs.md prints these): within 10 % per class.
  CHECK(fit.laws.kernels() == Approx(m.kernels()).epsilon(0.10));

  auto spec = loaded.spec;
  for (const auto& [k, v] : fit.params) spec.cluster.params[k] = v;
  const auto run = models::run_scenario(spec);
  // Closed form: no communication on one GPU, so the step is the fitted compute, the trace's span.
  CHECK(run.step_time_s == Approx(m.span).epsilon(1e-6));
  // Against the wall step measured without the profiler: within 5 % (the figure: docs/measured-runs.md).
  const double err = run.step_time_s / kMeasuredStepS - 1;
  INFO("simulated " << run.step_time_s << " s, measured " << kMeasuredStepS << " s, error " << err * 100 << " %");
  CHECK(std::fabs(err) < 0.05);
  // The defaults' prediction of the same step (what a user gets without a trace), for the record.
  const auto plain = models::run_scenario(loaded.spec);
  INFO("defaults: " << plain.step_time_s << " s");
  CHECK(std::fabs(plain.step_time_s / kMeasuredStepS - 1) < 0.10);
}
