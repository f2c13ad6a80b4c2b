#pragma once
// Which registered parameter sets a collective's simulated time, read off the engine itself: each
// candidate parameter is made 10 % worse (a latency x 1.1, a rate or an efficiency / 1.1) from the
// value the engine uses on the scenario's machine, the same nccl-tests sweep is run again, and the
// relative change of each size's time is that parameter's effect there:
//   effect(p, size) = T(p worse) / T - 1        (0.1: the time follows p one for one)
// A heuristic by link class names the NIC's efficiency for a two-node row that NVLink binds (its
// slowest edge is the NIC, but the step's bytes are NVLink's); the engine's own tangent does not.
// The candidates: nccl-tests' loop cost (nccl.launch_overhead), the device's fixed cost
// (nccl.kernel_latency), and for every link class the communicator's consecutive ranks cross, its
// hop latency and efficiency (of each protocol, probed together: a row runs one protocol) and its
// per-channel rate; NVLS's efficiency where a row runs NVLS or NVLSTree. Each row also gets its
// time under every other algorithm and protocol the engine can run it with (the tuner's choice is a
// candidate too: a run whose NCCL switched protocols at another size is off by the switch).
#include <cstdint>
#include <string>
#include <vector>

#include "models/calibrate/nccl_tests.hpp"
#include "models/nccl/ops.hpp"
#include "models/params.hpp"
#include "models/spec.hpp"

namespace models::calibrate {

// The probe's step: a cost x (1 + kProbeStep), a rate / (1 + kProbeStep).
inline constexpr double kProbeStep = 0.10;

struct ParamEffect {
  std::string name;  // registered, as [cluster.params] writes it: "efa.efficiency.simple"
  double effect = 0;
};

// The same row under another algorithm and protocol than the tuner's (NCCL_ALGO and NCCL_PROTO
// forced): where the run's NCCL chose otherwise, the row's gap is the choice, not a parameter.
struct Alternative {
  std::string algo, proto;
  double time_us = 0;  // NcclTestsRow::compared_time_us
  // The tuner picks this (algorithm, protocol) at another size of the sweep within a factor of 4:
  // a switch point a real NCCL may place elsewhere. Others are what NCCL would not run here.
  bool picked_nearby = false;
};

struct RowEffects {
  NcclTestsRow row;                  // the sweep's row at the defaults (the scenario's parameters)
  std::vector<ParamEffect> effects;  // largest first; parameters that move the row less than 0.01 % left out
  // Every other (algorithm, protocol) NCCL could run the row with, where the scenario forces
  // neither NCCL_ALGO nor NCCL_PROTO; none for point-to-point operations.
  std::vector<Alternative> alternatives;
};

// One RowEffects per entry of `sizes`, in that order. `ranks` is the communicator's size (the
// compared column: NcclTestsRow::compared_time_us). Throws SpecError as run_nccl_tests does.
std::vector<RowEffects> parameter_effects(const ScenarioSpec& spec, nccl::CollOp op, const std::vector<int64_t>& sizes,
                                          int ranks);

// Whether a parameter is a rate (an efficiency, a bandwidth: worse lower) rather than a cost (a
// latency, an overhead: worse higher), by its registered unit.
bool is_rate(const ParamSpec& p);

// The value the collective engine prices with on the scenario's machine for registered parameter
// `name`: the scenario's own where it sets it, else the default after the engine's rules by GPU and
// NVLink generation (nvlink.efficiency.simple, nvlink.channel_bandwidth for collective algorithms,
// nvls.efficiency). Setting a parameter to this value leaves every time unchanged (tested).
double engine_param_value(const ScenarioSpec& spec, const std::string& name, bool point_to_point);

}  // namespace models::calibrate
