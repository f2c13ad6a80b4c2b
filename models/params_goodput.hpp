#pragma once
// The registry rows (params.hpp) of the at-scale models: GPU-to-GPU speed spread, failures,
// checkpoints, restarts and price (models/goodput/README.md states the equations). Included once,
// by params.cpp, which appends them to its table.
#include <array>

#include "models/params.hpp"

namespace models::params_detail {

inline constexpr ParamRange kSpread{0, 0.5, false, false};       // [0, 0.5]: a relative standard deviation
inline constexpr ParamRange kRatePerMillion{0, 1e6, false, false};  // [0, 1e6] failures per 1e6 unit-hours
inline constexpr ParamRange kLongTime{0, 1e6, false, false};     // [0, 1e6] s: restarts (11.6 days)
inline constexpr ParamRange kSwitch{0, 1, false, false};         // [0, 1]: 0 off, 1 on (>= 0.5 reads as on)
inline constexpr ParamRange kStorageBandwidth{1e6, 1e15, false, false};  // [1e6, 1e15] B/s, as every bandwidth
inline constexpr ParamRange kStorageBandwidthOrZero{1e6, 1e15, false, false, true};
inline constexpr ParamRange kBytesPerParam{1, 64, false, false};  // [1, 64] B per parameter
inline constexpr ParamRange kPrice{0, 1e4, false, false};        // [0, 1e4] $ per GPU-hour; 0 unknown

// Llama 3's record (Dubey et al. 2024, "The Llama 3 Herd of Models", arXiv 2407.21783, Table 5):
// 419 unexpected interruptions in 54 days of pre-training on 16,384 H100 in 2,048 Grand Teton
// hosts, i.e. 16,384 x 1,296 h = 21.23 M GPU-hours and 2.654 M host-hours. Grouped by component:
//   gpu      faulty GPU 148, GPU SRAM 19, GPU system processor 17, silent data corruption 6,
//            GPU thermal interface and sensor 6                         196 -> 9.231 per 1e6 GPU-h
//   hbm      GPU HBM3 memory 72                                           72 -> 3.391
//   nic      NIC 7                                                         7 -> 0.330
//   network  network switch and cable 35                                  35 -> 1.648
//   software software bug 54, NCCL watchdog timeouts 7, dependency 2      63 -> 2.967
//   host     host maintenance 32, SSD 3, power supply 3, server chassis 2, IO expansion board 2,
//            CPU 2, system memory 2                                       46 -> 17.33 per 1e6 host-h
// (The paper's percentages do not all match its counts, e.g. 148 is 35.3 % of 419, printed as
// 30.1 %; the counts are used.) Network and software failures are counted per GPU: a Clos fabric's
// switches and cables, and the ranks that can hang, grow with the GPUs. The 47 planned
// interruptions (maintenance) are left out: they come after a checkpoint and lose no work.
// Sum at 16,384 GPUs and 2,048 hosts: 7.76 per day = 419 / 54. Outputs quote the record beside
// the rates (goodput/failures.hpp kFailureRatesRecord).

inline constexpr auto kGoodputParams = std::to_array<ParamSpec>({
    // GPU-to-GPU speed spread of one SKU under power and thermal management. Sinha et al., "Not
    // All GPUs Are Created Equal" (SC'22, arXiv 2208.11035): over 90 % of the GPUs of Summit,
    // Vortex, Frontera, Longhorn and Corona (V100, RTX 5000, MI60), "8 % (max 22 %) average
    // performance variation" between the GPUs of one cluster on compute-bound kernels (SGEMM,
    // ResNet-50, BERT, LAMMPS, PageRank), outliers aside. Read as the range of n normal draws,
    // E[range] = 2 E[max of n], with n ~ 400 (Longhorn) to 27,000 (Summit) GPUs, 2 E[max] = 5.9 to
    // 8.2: sigma = 8 % / 7 = 1.1 % (1.0-1.35 % over that range). A check held back: PRISM (Golden et al. 2025, arXiv
    // 2510.15596) reports 9 % GPU time variability at 64k GPUs, i.e. 9 % / (2 E[max of 65,536] =
    // 8.6) = 1.05 %. A GPU's speed is drawn once per seed (the cluster) and kept every step.
    {"variability.gpu_speed_cv", ParamUnit::Fraction, kSpread, 0.011, "", ParamOwner::Goodput,
     "GPU-to-GPU compute speed spread (sigma); Sinha et al. SC'22: 8 % range over a cluster / 7"},
    // Per step, per rank (OS jitter, clock changes within a step): no published per-rank figure
    // apart from the persistent spread was found (PRISM's 9 % at 64k GPUs is already what the
    // persistent spread gives, above), so 0; set it to ask what jitter would cost.
    {"variability.step_jitter_cv", ParamUnit::Fraction, kSpread, 0, "", ParamOwner::Goodput,
     "per-step per-rank compute jitter (sigma); no separate published figure: 0"},
    // Per node, each NIC's bandwidth as a factor 1 - |sigma Z| (never above its rate): no published
    // spread of NIC bandwidth across a fleet was found; 0.
    {"variability.nic_jitter_cv", ParamUnit::Fraction, kSpread, 0, "", ParamOwner::Goodput,
     "node-to-node NIC bandwidth shortfall (sigma of |Z|); no published figure: 0"},

    {"failures.gpu", ParamUnit::PerMillionHours, kRatePerMillion, 196 / 21.233664, "", ParamOwner::Goodput,
     "per 1e6 GPU-hours: faulty GPU, SRAM, GSP, SDC, thermal (196) of 419 in 54 days on 16,384 H100; Llama 3 paper "
     "Table 5"},
    {"failures.hbm", ParamUnit::PerMillionHours, kRatePerMillion, 72 / 21.233664, "", ParamOwner::Goodput,
     "per 1e6 GPU-hours: GPU HBM3 memory (72) of 419 in 54 days on 16,384 H100; Llama 3 paper Table 5"},
    {"failures.nic", ParamUnit::PerMillionHours, kRatePerMillion, 7 / 21.233664, "", ParamOwner::Goodput,
     "per 1e6 GPU-hours: NIC (7) of 419 in 54 days on 16,384 H100; Llama 3 paper Table 5"},
    {"failures.network", ParamUnit::PerMillionHours, kRatePerMillion, 35 / 21.233664, "", ParamOwner::Goodput,
     "per 1e6 GPU-hours: network switch and cable (35) of 419 in 54 days on 16,384 H100; Llama 3 paper Table 5"},
    {"failures.software", ParamUnit::PerMillionHours, kRatePerMillion, 63 / 21.233664, "", ParamOwner::Goodput,
     "per 1e6 GPU-hours: software bug, NCCL watchdog, dependency (63) of 419 in 54 days on 16,384 H100; Llama 3 paper "
     "Table 5"},
    {"failures.host", ParamUnit::PerMillionHours, kRatePerMillion, 46 / 2.654208, "", ParamOwner::Goodput,
     "per 1e6 host-hours: maintenance, SSD, PSU, chassis, IO board, CPU, DRAM (46) of 419 in 54 days on 16,384 H100; "
     "Llama 3 paper Table 5"},

    // Llama 3 section 3.3.1: Tectonic, 240 PB on 7,500 servers, "2 TB/s sustained" (7 TB/s peak)
    // for the 16k-GPU cluster: 2e12 / 16,384 = 122 MB/s per GPU. Scenarios with their own storage
    // set checkpoint.storage_bandwidth (aggregate).
    {"checkpoint.storage_bandwidth_per_gpu", ParamUnit::BytesPerSecond, kStorageBandwidth, 2e12 / 16384, "",
     ParamOwner::Goodput, "checkpoint storage per GPU; Llama 3 section 3.3.1: Tectonic 2 TB/s sustained / 16,384"},
    {"checkpoint.storage_bandwidth", ParamUnit::BytesPerSecond, kStorageBandwidthOrZero, 0, "", ParamOwner::Goodput,
     "checkpoint storage, aggregate; 0: storage_bandwidth_per_gpu x GPUs"},
    // Synchronous by default: Megatron-LM's --async-save, PyTorch DCP's async_save are opt-in.
    {"checkpoint.async", ParamUnit::Factor, kSwitch, 0, "", ParamOwner::Goodput,
     "1: asynchronous checkpoints (Megatron-core --async-save, DCP async_save); default off as in both"},
    // Unset: the states the strategy keeps between steps, in the memory model's dtypes
    // (memory/checkpoint_state.hpp): DeepSpeed and Megatron-LM weights + fp32 master + m, v
    // (ZeRO section 5.1's K = 12 + the weights: 14 in bf16), torch AdamW (fsdp, hsdp, ddp) the
    // parameters and their m, v in the parameters' dtype (6 in bf16).
    {"checkpoint.bytes_per_param",
     ParamUnit::Factor,
     kBytesPerParam,
     {},
     "the strategy's weights + master + Adam m, v (ZeRO, Megatron 14 B, FSDP/DDP 6 B in bf16)",
     ParamOwner::Goodput,
     "checkpoint bytes per parameter; the memory model's optimizer states: ZeRO section 5.1, torch AdamW"},
    // No measured restart time of a large LLM job was found in print; Daly 2006's worked examples
    // use R = 10 min. It covers detection (NCCL timeouts default to 10 min in PyTorch, Llama 3
    // lowered them), rescheduling and reloading the checkpoint.
    {"restart.time", ParamUnit::Seconds, kLongTime, 600, "", ParamOwner::Goodput,
     "detect, reschedule, reload after an interruption; assumption: Daly 2006's example R = 10 min"},
    // A price per GPU-hour, as GPU clouds quote it; used (x every node's GPUs: whole nodes are paid
    // for) when the scenario gives no [cluster] price_per_hour. Without either, the instance price
    // table (models/run/cost.hpp).
    {"price.gpu_hour", ParamUnit::UsdPerHour, kPrice, 0, "", ParamOwner::Goodput,
     "US$ per GPU-hour for the run's cost (x each node's GPUs); 0: the node's price from the catalog or --prices"},
});

}  // namespace models::params_detail
