#pragma once
// A measured step's compute as the scenario's compute parameters: the time a profiler trace
// (models/readers/kineto_trace.hpp) measured per kernel class, against what the compute laws
// (models/compute/, summed by models/workload/compute_classes.hpp) give for the scenario that
// describes the traced run, turned into the values of the registered compute.* parameters
// (models/params.cpp) under which the laws give the measured times:
//   gemm         compute.gemm_fixed_time x k, compute.gemm_rate / k, compute.gemm_output_bandwidth / k
//                (every GEMM's t0 + 2mnk/R + 2mn/BWc times k)
//   attention    compute.attention_fixed_time.{fwd,bwd} x k, compute.attention_rate.{fwd,bwd} / k
//   elementwise  compute.kernel_fixed_time x k, compute.memory_bandwidth.* / k,
//                compute.loss_time_per_logit x k (every memory-bound kernel's time x k)
//   optimizer    compute.adamw_bandwidth.<implementation>_<states> / k (the one the step runs)
//   launch gap   compute.launch_gap x g, g = (span - busy) / the laws' gaps: the GPU's idle time
//                between kernels, left out when the trace holds communication kernels (their
//                waits are idle time too, and communication is what the simulator adds)
// k = measured / laws per class, iterated (until every class is within 1e-9, at most 100 passes)
// because the power limit's GEMM stretch (compute/gpu_rates.hpp) moves with the GEMMs' share.
// Why per class and not per layer: a trace names kernels, not layers (unless the user annotated
// them), and a class's factor is a property of the machine and software running the model's
// shapes (cuBLAS tiles, cuDNN's attention, PyTorch's elementwise and foreach kernels), so it
// carries to the same model at another layout or scale, where the laws' shapes change and the
// communication is simulated. It does not carry to very different shapes (a GEMM factor fitted on
// 4096-wide layers says little about 16384-wide ones), to another GPU, or to another precision.
#include <map>
#include <string>
#include <vector>

#include "models/readers/kineto_trace.hpp"
#include "models/spec.hpp"
#include "models/workload/compute_classes.hpp"

namespace models::measured {

// What a trace measured per step (the mean over its steps) and per GPU (the mean over its GPUs,
// readers/kineto_trace.hpp), seconds. elementwise includes memcpy and memset time.
struct TraceCompute {
  double gemm = 0, attention = 0, elementwise = 0, optimizer = 0, communication = 0;
  double busy = 0, span = 0, host = 0;
  int steps = 0, gpus = 0;  // gpus: the trace's GPUs, over which every time above is a mean
  std::string device;
  double kernels() const { return gemm + attention + elementwise + optimizer; }
  // The GPU's idle time, span - busy. Kernels that overlap on several streams (communication
  // beside compute) make busy exceed span: the idle time is then not measured (idle_measured()
  // false, idle() 0), never a negative one.
  bool idle_measured() const { return span >= busy; }
  double idle() const { return idle_measured() ? span - busy : 0; }
};
TraceCompute trace_compute(const readers::KinetoTrace& trace);
// What to tell the user about a trace's numbers: a trace of several GPUs gives per-GPU means (the
// ranks' work should be alike, as data parallelism's), and overlapping kernels leave the idle time
// unmeasured. Empty for a one-GPU trace with kernels one after another.
std::vector<std::string> trace_notes(const TraceCompute& c);

// The busiest rank's compute of `spec`'s step by class, as the step plan prices it (its GPU, the
// power limit's stretch). Throws SpecError for a scenario without [model].
workload::ComputeClasses scenario_compute(const ScenarioSpec& spec);

struct ComputeFit {
  TraceCompute measured;
  workload::ComputeClasses laws;    // at the scenario's own parameters
  workload::ComputeClasses fitted;  // at the fitted ones
  double gemm = 1, attention = 1, elementwise = 1, optimizer = 1, gap = 1;  // the factors k and g
  bool gaps_fitted = false;
  int iterations = 0;
  std::map<std::string, double> params;  // the fitted compute.* values
};
// Throws SpecError("training.compute_efficiency", ...) when that key fixes the GEMM rate.
ComputeFit fit_compute(const ScenarioSpec& traced, const TraceCompute& measured);

}  // namespace models::measured
