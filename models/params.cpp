// The parameter registry: every physical number [cluster.params] may set, registered once with its
// unit, range, default and source (see params.hpp). Rows are grouped by the model that reads them.
#include "models/params.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <vector>

#include "models/error.hpp"
#include "models/params_compute.hpp"
#include "models/params_goodput.hpp"
#include "models/params_links.hpp"
#include "models/suggest.hpp"
#include "sim/check.hpp"

namespace models {

namespace {

using U = ParamUnit;
using O = ParamOwner;

// (The GPU's compute rows come between: params_compute.hpp.)
constexpr std::array kWorkloadRegistry = std::to_array<ParamSpec>({
    // Workload: host work and compute-communication interference (models/workload/compute.hpp).
    // DeepSpeed CPU-Adam is memory-bound (30 B per parameter: read p, g, m, v fp32, write p, m, v
    // fp32 and the bf16 copy). ZeRO-Offload (Ren et al., USENIX ATC 2021, Table 3) measures
    // CPU-Adam at 2.41 s for 8B parameters on a 2 x 24-core Xeon 8168 host: 8e9 x 30 B / 2.41 s =
    // 100 GB/s of DRAM traffic, about 0.4 of that host's 256 GB/s peak. A prior, not fitted here.
    {"host.adam_efficiency", U::Fraction, params_detail::kFraction, 0.4, "", O::Workload,
     "CPU-Adam's fraction of host DRAM bandwidth; ZeRO-Offload (Ren et al., ATC 2021, Table 3)"},
    // One core's achieved DRAM bandwidth on a Skylake-SP/Cascade Lake Xeon: ~12 GB/s, limited by
    // the outstanding L1/L2 misses one core can hold (Little's law), far below the socket's share.
    // Source: J. D. McCalpin, "Memory Bandwidth and System Balance in HPC Systems" (SC16 invited
    // talk) and his STREAM single-thread results on Xeon Platinum 8160 (~12-14 GB/s). CPU-Adam
    // with AVX512 does ~1.5e9 elements/s of arithmetic per core (sqrt + div per element), so one
    // thread is bandwidth-bound: 12 GB/s / 28 B = 0.43e9 elements/s.
    {"host.core_bytes_per_s", U::BytesPerSecond, params_detail::kBandwidth, 12e9, "", O::Workload,
     "one CPU thread's achieved DRAM bandwidth; McCalpin, STREAM single-thread on Xeon 8160"},
    // Compute-communication interference, measured with the PyTorch profiler on 2 x H200 (NV18)
    // during FSDP2 steps of the calibration decoder (bench/device/steps/torch_fsdp_step.py PROFILE=...,
    // tables in scenarios/validation/h200x2/profile_fsdp_n{1,2}.txt): the same GEMMs take 64.5 ms
    // per step on one GPU and 77.0 ms with 2 GPUs, whose all-gather/reduce-scatter kernels (24
    // channels = 24 of 132 SMs) ran 38 ms per step beside them. Compute work W overlapped for
    // 38 ms at rate 1/(1+s) with W*s = 12.5 ms gives s = 12.5 / (38 - 12.5) = 0.49: while a
    // collective's CTAs hold SMs, the GEMMs (one persistent CTA per SM) lose whole waves. One
    // measurement on one GPU type; 0 = perfect overlap.
    {"compute.overlap_slowdown", U::Factor, params_detail::kStretch, 0.49, "", O::Workload,
     "compute stretch while comm is in flight; 2 x H200 FSDP2 profile (validation/h200x2/profile_fsdp_n*.txt)"},
    // The converse of compute.overlap_slowdown: a collective launched while a rank of its group computes
    // runs its flows at 1 / (1 + this) (the compute kernels hold SMs and memory bandwidth the
    // NCCL CTAs need; over SHM the copies go through host memory as well). Not measured yet: an
    // FSDP step over SHM (fsdp_shm_n2, -11 %) is predicted faster than its isolated collectives
    // allow, which this would explain; it needs the profiler on a multi-GPU host. 0 until then.
    {"comm.overlap_slowdown", U::Factor, params_detail::kStretch, 0, "", O::Workload,
     "comm stretch for a collective launched beside compute; not measured: 0"},
    // GPU memory the framework holds beside the tensors (models/memory/memory_peak.hpp): the CUDA
    // context and libraries' handles. Measured on one H200 (PyTorch 2.11, CUDA 13.0): an OOM
    // report says "this process has 79.06 GiB memory in use ... 76.96 GiB is allocated by PyTorch,
    // and 1.29 GiB is reserved by PyTorch but unallocated", leaving 0.81 GiB outside PyTorch
    // (scenarios/validation/h200x1/measured/memory_peaks.jsonl, ANALYSIS.md section 6). The
    // caching allocator's fragmentation (0.4-17 GB there) is not in it.
    {"memory.framework_overhead", U::Bytes, params_detail::kMemorySize, 0.81 * 1024 * 1024 * 1024, "", O::Workload,
     "CUDA context and libraries beside PyTorch's tensors; 1 x H200 OOM report "
     "(validation/h200x1/measured/memory_peaks.jsonl)"},
});

// The links' rows, the GPU's compute rows (params_compute.hpp), the workload's, then the at-scale
// models' (params_goodput.hpp): the order `commsim params` lists them in.
template <std::size_t A, std::size_t B>
constexpr std::array<ParamSpec, A + B> joined(const std::array<ParamSpec, A>& a, const std::array<ParamSpec, B>& b) {
  std::array<ParamSpec, A + B> all{};
  for (std::size_t i = 0; i < A; ++i) all[i] = a[i];
  for (std::size_t i = 0; i < B; ++i) all[A + i] = b[i];
  return all;
}
constexpr auto kRegistry =
    joined(joined(joined(params_detail::kLinkParams, params_detail::kComputeParams), kWorkloadRegistry),
           params_detail::kGoodputParams);

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

[[noreturn]] void unknown(const std::string& name) {
  std::vector<std::string> names;
  for (const ParamSpec& p : kRegistry) names.emplace_back(p.name);
  std::sort(names.begin(), names.end());
  throw SpecError("cluster.params." + name, unknown_name_message("parameter", name, names));
}

void check_value(const ParamSpec& p, double value) {
  if (p.range.contains(value)) return;
  const std::string unit = p.unit == U::Seconds || p.unit == U::BytesPerSecond || p.unit == U::FlopsPerSecond
                               ? std::string(" ") + param_unit_symbol(p.unit)
                               : "";
  const ParamRange span{p.range.min, p.range.max, p.range.min_open, p.range.max_open};  // without "0 or"
  throw SpecError("cluster.params." + std::string(p.name),
                  "parameter '" + std::string(p.name) + "' = " + number(value) + " is out of range (expected " +
                      (p.range.zero_too ? "0 or " : "") + "a " + param_unit_noun(p.unit) + " in " + span.text() + unit +
                      ")");
}

}  // namespace

const char* param_unit_symbol(ParamUnit u) {
  switch (u) {
    case U::Seconds: return "s";
    case U::BytesPerSecond: return "B/s";
    case U::Fraction:
    case U::Factor: return "1";
    case U::FlopsPerSecond: return "FLOP/s";
    case U::Bytes: return "B";
    case U::PerMillionHours: return "1/(1e6 h)";
    case U::UsdPerHour: return "$/h";
  }
  return "?";
}

const char* param_unit_noun(ParamUnit u) {
  switch (u) {
    case U::Seconds: return "time";
    case U::BytesPerSecond: return "bandwidth";
    case U::Fraction: return "fraction";
    case U::Factor: return "factor";
    case U::FlopsPerSecond: return "rate";
    case U::Bytes: return "size";
    case U::PerMillionHours: return "failure rate";
    case U::UsdPerHour: return "price";
  }
  return "?";
}

const char* param_owner_name(ParamOwner o) {
  switch (o) {
    case O::World: return "models/world";
    case O::Collectives: return "models/collectives";
    case O::Compute: return "models/compute";
    case O::Workload: return "models/workload";
    case O::Goodput: return "models/goodput";
  }
  return "?";
}

bool ParamRange::contains(double v) const {
  if (!std::isfinite(v)) return false;
  if (zero_too && v == 0) return true;
  if (min_open ? !(v > min) : !(v >= min)) return false;
  if (std::isinf(max)) return true;
  return max_open ? v < max : v <= max;
}

std::string ParamRange::text() const {
  const bool open_max = max_open || std::isinf(max);
  return std::string(zero_too ? "0 or " : "") + (min_open ? "(" : "[") + number(min) + ", " +
         (std::isinf(max) ? "inf" : number(max)) + (open_max ? ")" : "]");
}

std::span<const ParamSpec> param_registry() { return kRegistry; }

const ParamSpec* find_param(std::string_view name) {
  for (const ParamSpec& p : kRegistry)
    if (p.name == name) return &p;
  return nullptr;
}

double param_default(std::string_view name) {
  const ParamSpec* p = find_param(name);
  SIM_CHECK(p && p->default_value, "parameter without a registered default");
  return *p->default_value;
}

void check_param(const std::string& name, double value) {
  const ParamSpec* p = find_param(name);
  if (!p) unknown(name);
  check_value(*p, value);
}

void check_params(const std::map<std::string, double>& params) {
  for (const auto& [name, value] : params) check_param(name, value);
}

double param_or(const std::map<std::string, double>& params, std::string_view name, double fallback) {
  const ParamSpec* p = find_param(name);
  SIM_CHECK(p != nullptr, "a model reads a parameter the registry does not list");
  const auto it = params.find(std::string(name));
  if (it == params.end()) return fallback;
  check_value(*p, it->second);
  return it->second;
}

}  // namespace models
