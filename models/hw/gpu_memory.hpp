#pragma once
// What one GPU gives a training process: the memory "does it fit" is judged against. Not the
// datasheet's figure: NVIDIA's "80GB" and "141GB" are binary gigabytes (nvidia-smi lists
// 81,559 MiB on an H100 and 143,771 MiB on an H200), and the driver keeps part of them, so a
// process sees cudaMemGetInfo's total (torch.cuda.mem_get_info()[1]): 79.18 GiB on the H100,
// 139.80 GiB on the H200 (measured, sources in gpu_memory.cpp).
#include <string>

#include "models/hw/gpu.hpp"

namespace models::hw {

struct UsableMemory {
  double bytes = 0;    // what a process can allocate at most
  std::string source;  // the measurement, or the rule for a GPU not measured
};

// Measured where a measurement is committed; else nvidia-smi's total where public logs give it,
// times the share a process got of it on the measured GPUs (0.995); else the datasheet's figure
// read as GiB times the share of it on the measured GPUs (0.99: 0.9897 on the H100, 0.9915 on
// the H200).
UsableMemory usable_memory(const GpuSpec& gpu);

}  // namespace models::hw
