#include "models/measured/compute_fit.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>

#include "models/compute/gpu_rates.hpp"
#include "models/error.hpp"
#include "models/model/model_shape.hpp"
#include "models/world/world.hpp"
#include "sim/flow_network.hpp"
#include "sim/simulator.hpp"

namespace models::measured {

TraceCompute trace_compute(const readers::KinetoTrace& t) {
  TraceCompute c;
  c.gemm = t.mean_class_s(readers::KernelClass::Gemm);
  c.attention = t.mean_class_s(readers::KernelClass::Attention);
  c.elementwise = t.mean_class_s(readers::KernelClass::Elementwise) + t.mean_class_s(readers::KernelClass::Memcpy);
  c.optimizer = t.mean_class_s(readers::KernelClass::Optimizer);
  c.communication = t.mean_class_s(readers::KernelClass::Communication);
  c.busy = t.mean_busy_s();
  c.span = t.mean_span_s();
  c.host = t.mean_host_s();
  c.steps = int(t.steps.size());
  c.gpus = t.gpus;
  c.device = t.device;
  return c;
}

std::vector<std::string> trace_notes(const TraceCompute& c) {
  std::vector<std::string> notes;
  auto ms = [](double s) {
    char b[32];
    std::snprintf(b, sizeof b, "%.3f ms", s * 1e3);
    return std::string(b);
  };
  if (c.gpus > 1)
    notes.push_back("the trace holds " + std::to_string(c.gpus) +
                    " GPUs: every time is the mean per GPU (fitted as one rank's; their work should be alike, as "
                    "data-parallel ranks')");
  if (!c.idle_measured())
    notes.push_back("the GPU's kernels overlap (busy " + ms(c.busy) + " above its span " + ms(c.span) +
                    " per step and GPU, several streams at once): its idle time is not measured");
  return notes;
}

namespace {

struct FitStepSetup {
  hw::GpuSpec gpu;
  double host_bytes_per_s = 0;
  model::ModelShape shape;
  workload::ParallelLayout layout;
};

FitStepSetup fit_step_setup(const ScenarioSpec& spec) {
  if (!spec.model) throw SpecError("model", "a measured step needs [model] (the model the trace ran)");
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  const std::unique_ptr<World> world = World::build(spec, net);
  FitStepSetup s;
  s.gpu = world->node().gpu;
  s.host_bytes_per_s = world->node().host_mem_bytes_per_s > 0 ? world->node().host_mem_bytes_per_s : 200e9;
  s.shape = model::resolve_model(*spec.model);
  s.layout = workload::make_layout(spec, s.shape, world->size(), world->placement().ranks_per_node());
  return s;
}

workload::ComputeClasses fit_classes_of(const ScenarioSpec& spec, const FitStepSetup& s) {
  const workload::ComputeRates r = workload::step_rates(spec, s.gpu, s.host_bytes_per_s, s.shape, s.layout);
  return workload::rank_compute_classes(spec, s.shape, s.layout, r);
}

}  // namespace

workload::ComputeClasses scenario_compute(const ScenarioSpec& spec) { return fit_classes_of(spec, fit_step_setup(spec)); }

// The power stretch makes the fixed point contract by about (1 - b) t_o / (s t_g) per pass (0.3-0.5 on
// the calibration decoder): 1e-9 within ~40 passes.
constexpr int kMaxIterations = 100;

ComputeFit fit_compute(const ScenarioSpec& traced, const TraceCompute& measured) {
  if (traced.training.compute_efficiency > 0)
    throw SpecError("training.compute_efficiency",
                    "fixes the GEMM rate, so the trace's GEMM time cannot be fitted (remove it from the scenario "
                    "that describes the traced run)");
  const FitStepSetup setup = fit_step_setup(traced);
  const compute::Precision precision = workload::training_precision(traced.training);
  const compute::GpuRates base = compute::make_gpu_rates(setup.gpu, precision, traced.cluster.params);
  const workload::OptimizerPlan plan = workload::optimizer_plan(traced.training, setup.layout.strategy);
  const std::string law = compute::quantized(precision) ? "fp8" : "bf16";
  const std::string adamw = std::string("compute.adamw_bandwidth.") + compute::optimizer_impl_name(plan.impl) +
                            (plan.state_bytes >= 4 ? "_fp32" : "_bf16");
  static const char* kMemNames[] = {"elementwise", "cast_up",    "norm_fwd",     "norm_bwd",
                                    "swiglu_fwd",  "swiglu_bwd", "strided_copy", "fp8_cast"};
  static_assert(sizeof(kMemNames) / sizeof(kMemNames[0]) == compute::kMemKernels);

  ComputeFit fit;
  fit.measured = measured;
  fit.gaps_fitted = measured.communication == 0 && measured.idle_measured() && measured.idle() > 0;
  auto params_for = [&](const ComputeFit& f) {
    std::map<std::string, double> p;
    p["compute.gemm_fixed_time." + law] = base.gemm.fixed_s * f.gemm;
    p[std::string("compute.gemm_rate.") + compute::precision_name(precision)] = base.gemm.flops_per_s / f.gemm;
    p["compute.gemm_output_bandwidth." + law] = base.gemm.output_bytes_per_s / f.gemm;
    p["compute.attention_fixed_time.fwd"] = base.attention.fwd_fixed_s * f.attention;
    p["compute.attention_fixed_time.bwd"] = base.attention.bwd_fixed_s * f.attention;
    p["compute.attention_rate.fwd"] = base.attention.fwd_flops_per_s / f.attention;
    p["compute.attention_rate.bwd"] = base.attention.bwd_flops_per_s / f.attention;
    p["compute.kernel_fixed_time"] = base.memory.fixed_s * f.elementwise;
    for (int k = 0; k < compute::kMemKernels; ++k)
      p[std::string("compute.memory_bandwidth.") + kMemNames[k]] = base.memory.bytes_per_s[k] / f.elementwise;
    p["compute.loss_time_per_logit"] = base.memory.loss_s_per_logit * f.elementwise;
    p[adamw] = base.adamw.bandwidth(plan.impl, plan.state_bytes) / f.optimizer;
    if (f.gaps_fitted) p["compute.launch_gap"] = base.launch_gap_s * f.gap;
    return p;
  };
  ScenarioSpec spec = traced;
  fit.laws = fit_classes_of(spec, setup);
  workload::ComputeClasses now = fit.laws;
  auto ratio = [](double want, double have) { return want > 0 && have > 0 ? want / have : 1.0; };
  for (fit.iterations = 1; fit.iterations <= kMaxIterations; ++fit.iterations) {
    fit.gemm *= ratio(measured.gemm, now.gemm);
    fit.attention *= ratio(measured.attention, now.attention);
    fit.elementwise *= ratio(measured.elementwise, now.elementwise);
    fit.optimizer *= ratio(measured.optimizer, now.optimizer);
    if (fit.gaps_fitted) fit.gap *= ratio(measured.idle(), now.gaps);
    fit.params = params_for(fit);
    for (const auto& [k, v] : fit.params) spec.cluster.params[k] = v;
    now = fit_classes_of(spec, setup);
    const double worst = std::max({std::fabs(ratio(measured.gemm, now.gemm) - 1),
                                   std::fabs(ratio(measured.attention, now.attention) - 1),
                                   std::fabs(ratio(measured.elementwise, now.elementwise) - 1),
                                   std::fabs(ratio(measured.optimizer, now.optimizer) - 1),
                                   fit.gaps_fitted ? std::fabs(ratio(measured.idle(), now.gaps) - 1) : 0.0});
    if (worst < 1e-9) break;
  }
  fit.iterations = std::min(fit.iterations, kMaxIterations);
  fit.fitted = now;
  return fit;
}

}  // namespace models::measured
