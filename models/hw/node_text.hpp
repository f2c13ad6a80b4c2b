#pragma once
// A node in words, one home for `commsim instances`' columns and for what `compare` says when
// two columns run on different machines: its GPU, NVLink, NICs, and the differences between two
// nodes that can move a result (so an "InfiniBand -> RoCE" what-if that also turns NVLink SHARP
// off says so, instead of a ratio that reads as the fabric's).
#include <string>
#include <vector>

#include "models/hw/node.hpp"

namespace models::hw {

// "NVLink4 x18, NVSwitch, NVLS" (NVLS: NVSwitch multicast NCCL uses), "none (PCIe)".
std::string nvlink_text(const NodeSpec& n);
// "8 x 400 Gb/s InfiniBand NDR", "32 x 100 Gb/s EFA v2", "none (Socket)".
std::string nics_text(const NodeSpec& n);
// "B200 180GB bf16 2.25 fp8 4.5 fp4 9 PF": the GPU's HBM and dense peaks.
std::string gpu_text(const GpuSpec& g);
// "72 (18x4)" for a multi-host NVLink domain, else the GPU count.
std::string gpus_text(const NodeSpec& n);

// What differs between node `a` and node `b` that the model prices, each "what: a's -> b's"
// ("NVLS (NVLink SHARP): on -> off", "NICs: 8 x 400 Gb/s InfiniBand NDR -> 8 x 400 Gb/s RoCE v2");
// empty when the two are the same machine to the model.
std::vector<std::string> node_differences(const NodeSpec& a, const NodeSpec& b);

}  // namespace models::hw
