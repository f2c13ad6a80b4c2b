#pragma once
// Reader of a PyTorch profiler (Kineto) Chrome trace: torch.profiler's export_chrome_trace JSON
// ({"traceEvents": [...]} with "X" events of categories kernel, gpu_memcpy, gpu_memset on the GPU
// and cuda_runtime / cuda_driver launches on the host). What a step spent on the GPU, per kernel
// class and per kernel name:
//   step     each CPU "ProfilerStep#N" annotation (torch.profiler's schedule); a GPU event belongs
//            to the step whose annotation holds its launch (the runtime or driver call with the
//            same "correlation"), else whose span holds its start; a trace without annotations is
//            one step over all its GPU events
//   class    by name, first match: communication (nccl), attention (flash, fmha, sdpa, attention,
//            cudnn), gemm (gemm, nvjet, xmma, cutlass, cublas, wgmma, sm90_/sm100_ tiles),
//            optimizer (multi_tensor, foreach, adam), memcpy (gpu_memcpy / gpu_memset events,
//            "Memcpy", "Memset"), elementwise (every other kernel: norms, activations, adds, casts,
//            the loss)
//   busy     the sum of the step's GPU event durations; span = last end - first start over them
//            (the GPU idles span - busy while the host issues kernels, or waits; kernels that
//            overlap on several streams can make busy exceed span)
//   per GPU  a step is what one GPU does: a trace of several GPUs (events of several "device"
//            ids: one process driving several GPUs, or the traces of several ranks merged) gives
//            busy, the class times and the kernels' seconds as the mean over the step's GPUs,
//            and the span as the mean of each GPU's own span
// Times in the trace are microseconds ("ts", "dur"); they are kept as seconds here. Other events
// (cpu_op, flows, instants, metadata) are ignored. A malformed trace throws models::ParseError at
// FILE:LINE:COL naming the JSON path ("traceEvents[12].dur: expected a number").
#include <array>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace models::readers {

enum class KernelClass { Gemm, Attention, Communication, Optimizer, Memcpy, Elementwise };
inline constexpr int kKernelClasses = 6;
const char* kernel_class_name(KernelClass c);  // "gemm", "attention", "communication", ...
KernelClass classify_kernel(std::string_view name, std::string_view category);

struct TraceKernelTotal {  // one kernel name in one step
  std::string name;
  KernelClass cls = KernelClass::Elementwise;
  double seconds = 0;  // per GPU (the mean over the step's GPUs)
  int calls = 0;       // over all GPUs
};

struct TraceStep {
  std::string name;             // "ProfilerStep#1", or "whole trace"
  double host_s = 0;            // the annotation's duration (0 without one)
  double gpu_busy_s = 0;        // sum of GPU event durations, per GPU
  double gpu_span_s = 0;        // first start to last end of those events on each GPU, the mean over GPUs
  int gpu_events = 0;           // over all GPUs
  int gpus = 0;                 // GPUs ("device" ids, a missing one counted as one) with events in the step
  std::array<double, kKernelClasses> class_s{};  // busy seconds per KernelClass, per GPU
  std::vector<TraceKernelTotal> kernels;         // per name, longest first
};

struct KinetoTrace {
  std::string source;
  std::string device;  // deviceProperties[0].name, if any ("NVIDIA H200")
  int gpus = 0;        // distinct GPU "device" ids of the GPU events
  std::vector<TraceStep> steps;
  // Mean over steps.
  double mean_busy_s() const;
  double mean_span_s() const;
  double mean_host_s() const;
  double mean_class_s(KernelClass c) const;
};

KinetoTrace parse_kineto_trace(std::string_view text, const std::string& source);
// Reads the file (a missing file is a ParseError at FILE:1:1).
KinetoTrace read_kineto_trace(const std::string& path);

// Whether `text` looks like a Chrome trace (a JSON object whose first key names traceEvents or a
// Kineto header such as schemaVersion), without parsing it all.
bool looks_like_kineto_trace(std::string_view text);

}  // namespace models::readers
