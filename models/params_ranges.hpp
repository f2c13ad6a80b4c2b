#pragma once
// The registry's physical bounds per kind of quantity (params.hpp's ParamRange), shared by the
// rows of params.cpp, params_compute.hpp and params_goodput.hpp.
#include "models/params.hpp"

namespace models::params_detail {

// Physical bounds, so that a unit mistake (a latency in us written as seconds, "1e300") is refused
// where it is written instead of printing tables of hundreds of hours. They are far
// outside any real value, not fits:
// - times [0, 1] s: NCCL's largest modelled latency is 14 us (hwLat NET Simple, tuning.cc); one
//   way across a continent is ~0.05 s. A second is above every latency a link or kernel has.
// - bandwidths [1e6, 1e15] B/s: below 1 MB/s is slower than 10 Mb/s Ethernet (1.25 MB/s); above
//   1 PB/s is over 500 x NVLink 5's 1.8 TB/s per GPU (both directions). Within these bounds a
//   1 TB transfer stays under 12 days, inside the picosecond clock's 106 days (sim/time.hpp).
// - compute rates [1e9, 1e18] FLOP/s: below 1 GFLOP/s is slower than one CPU core; above
//   1 EFLOP/s is over 50 x a B200's 18 PFLOP/s (FP4, sparse), its datasheet's highest figure.
// - time per logit [0, 3.6e-5] s: the loss moves 36 B per logit (compute/gpu_rates.hpp), and at
//   the bandwidth floor of 1 MB/s that takes 3.6e-5 s; a second per logit (the times' bound) would
//   make one Llama step longer than the picosecond clock holds.
// - memory sizes [0, 1e12] B: more than 3 x the largest GPU memory sold (B300, 288 GB); what the
//   framework holds beside the tensors cannot exceed the GPU's memory.
inline constexpr ParamRange kBandwidth{1e6, 1e15, false, false};          // [1e6, 1e15] B/s
inline constexpr ParamRange kChannelRate{1e6, 1e15, false, false, true};  // 0 (unknown) or [1e6, 1e15] B/s
inline constexpr ParamRange kTime{0, 1, false, false};                    // [0, 1] s: latencies, windows
inline constexpr ParamRange kTimePerLogit{0, 36 / 1e6, false, false};     // [0, 3.6e-5] s per logit
inline constexpr ParamRange kFlopRate{1e9, 1e18, false, false};           // [1e9, 1e18] FLOP/s
inline constexpr ParamRange kMemorySize{0, 1e12, false, false};           // [0, 1e12] B
inline constexpr ParamRange kFraction{0, 1, true, false};                 // (0, 1]: efficiencies
inline constexpr ParamRange kSharpness{1, 64, false, false};              // [1, 64]: exponent p of a p-norm
inline constexpr ParamRange kStretch{0, 10, false, false};                // [0, 10]

}  // namespace models::params_detail
