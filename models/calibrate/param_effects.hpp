#pragma once
// Which registered parameter sets a collective's simulated time, read off the engine itself: each
// candidate parameter is made 10 % costlier (a latency 10 % longer, a rate or an efficiency 10 %
// lower) from the value the engine uses on the scenario's machine, the same nccl-tests sweep is run
// again, and the relative change of each size's time is that parameter's effect there:
//   effect(p, size) = T(p costlier) / T - 1        (0.1: the time follows p one for one)
// A heuristic by link class names the NIC's efficiency for a two-node row that NVLink binds (its
// slowest edge is the NIC, but the step's bytes are NVLink's); the engine's own tangent does not.
// The candidates: nccl-tests' loop cost (nccl.launch_overhead), the device's fixed cost
// (nccl.kernel_latency), and for every link class the communicator's consecutive ranks cross, its
// hop latency and efficiency (of each protocol, probed together: a row runs one protocol) and its
// per-channel rate; NVLS's efficiency where a row runs NVLS or NVLSTree.
#include <cstdint>
#include <string>
#include <vector>

#include "models/calibrate/nccl_tests.hpp"
#include "models/nccl/ops.hpp"
#include "models/spec.hpp"

namespace models::calibrate {

// How much one parameter costlier by kProbeStep moves a row's time (a fraction: 0.1 = one for one).
inline constexpr double kProbeStep = 0.10;

struct ParamEffect {
  std::string name;  // registered, as [cluster.params] writes it: "efa.efficiency.simple"
  double effect = 0;
};

struct RowEffects {
  NcclTestsRow row;                  // the sweep's row at the defaults (the scenario's parameters)
  std::vector<ParamEffect> effects;  // largest first; parameters that move the row less than 0.01 % left out
};

// One RowEffects per entry of `sizes`, in that order. `ranks` is the communicator's size (the
// compared column: NcclTestsRow::compared_time_us). Throws SpecError as run_nccl_tests does.
std::vector<RowEffects> parameter_effects(const ScenarioSpec& spec, nccl::CollOp op, const std::vector<int64_t>& sizes,
                                          int ranks);

// The value the collective engine prices with on the scenario's machine for registered parameter
// `name`: the scenario's own where it sets it, else the default after the engine's rules by GPU and
// NVLink generation (nvlink.efficiency.simple, nvlink.channel_bandwidth for collective algorithms,
// nvls.efficiency). Setting a parameter to this value leaves every time unchanged (tested).
double engine_param_value(const ScenarioSpec& spec, const std::string& name, bool point_to_point);

}  // namespace models::calibrate
