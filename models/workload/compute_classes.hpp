#pragma once
// One rank's step compute by kernel class, as a profiler names kernels (models/readers/kineto_trace.hpp):
// the same sum rank_compute_seconds (compute.hpp) takes, split into
//   gemm         every GEMM (linear layers' forward, dgrad, wgrad; the LM head), x gemm_stretch
//   attention    the attention core (flash SDPA forward and backward, or the unfused scores)
//   elementwise  every memory-bound kernel: norms, residual adds, activations, the q/k/v copies,
//                the loss, FSDP2's copies and casts
//   optimizer    AdamW (and the master weights' casts it issues)
// each as kernel time alone (launch gaps 0), and the launch gaps of the same kernels apart:
//   gaps = (the sum at `rates`) - (the sum at `rates` with launch_gap_s = 0).
// So gemm + attention + elementwise + optimizer + gaps = rank_compute_seconds' gemm + other, plus,
// for a Megatron step of one pipeline stage, the embedding's AdamW, which the step program runs and
// rank_compute_seconds (the power stretch's estimate) leaves out.
#include "models/spec.hpp"
#include "models/workload/compute.hpp"
#include "models/workload/layout.hpp"

namespace models::workload {

struct ComputeClasses {
  double gemm = 0, attention = 0, elementwise = 0, optimizer = 0;
  double gaps = 0;  // launch gaps of those kernels (compute.launch_gap each)
  double kernels() const { return gemm + attention + elementwise + optimizer; }
  double total() const { return kernels() + gaps; }
};

ComputeClasses rank_compute_classes(const ScenarioSpec& spec, const model::ModelShape& m, const ParallelLayout& layout,
                                    const ComputeRates& rates);

}  // namespace models::workload
