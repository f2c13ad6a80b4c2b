#pragma once
// How far off the model was measured where a run's caveats apply (RunResult::caveats), where that
// is more than its median error on training steps (3.4 %: Megatron-LM on A100, the README's
// accuracy table), so that `plan` and `compare` call no margin inside it a win:
//   ZeRO offload to the host (workload::kOffloadCaveat): whole steps ran 28-37 % slower than
//     predicted: 0.37 (workload::kOffloadMeasuredError);
//   a machine's network note (hw::NodeSpec::network_caveat) where it states a figure at the sizes
//     a step's gradient collectives move (hw::NodeSpec::network_caveat_error): across GB200 and
//     GB300 NVL72 racks, 0.24 on two racks and 1.3 (2.3x the model's time) on more.
// Every other caveat names where the model is off without a figure for a whole step (NVLS across a
// rack's hosts, GPUDirect-TCPX and TCPXO, Socket rates, MoE routing, a calibration profile away from
// where it was fitted) or is not about the model's time (a given price far from the catalog's, a
// Capacity Block count): 0 for them.
#include <string>
#include <vector>

namespace models {

// The largest such error of `caveats`, those of a run on `nodes` nodes; 0 where none gives one.
double caveats_measured_error(const std::vector<std::string>& caveats, int nodes);

}  // namespace models
