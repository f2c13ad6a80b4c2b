// Usable memory per GPU (see gpu_memory.hpp).
#include "models/hw/gpu_memory.hpp"

#include <cmath>

namespace models::hw {

namespace {
constexpr double kGiB = 1024.0 * 1024 * 1024;

struct Measured {
  const char* gpu;
  double bytes;
  const char* source;
};

// cudaMemGetInfo's total on an idle GPU, as torch.cuda.mem_get_info() printed it.
constexpr Measured kMeasured[] = {
    {"H200", 150109880320.0,
     "measured: torch.cuda.mem_get_info() total on one H200 (scenarios/validation/h200x1/measured/memory_cap.jsonl, "
     "free_total; nvidia-smi 143,771 MiB in info.txt)"},
    {"H100", 85017493504.0,
     "measured: torch.cuda.mem_get_info() total on one H100 SXM (scenarios/validation/h100x1/measured/moe_memory.jsonl, "
     "free_total; nvidia-smi 81,559 MiB in info.txt)"},
};

// The driver's share on the measured GPUs: usable / (datasheet GB as GiB) = 0.9915 (H200,
// 150.11e9 / (141 x 2^30)) and 0.9897 (H100, 85.02e9 / (80 x 2^30)).
constexpr double kUsableFraction = 0.99;
}  // namespace

UsableMemory usable_memory(const GpuSpec& gpu) {
  for (const auto& m : kMeasured)
    if (gpu.name == m.gpu) return {m.bytes, m.source};
  // The datasheet's figure is in decimal bytes in the catalog (hbm_bytes = GB x 1e9).
  const double datasheet_gb = std::round(gpu.hbm_bytes / 1e9);
  return {datasheet_gb * kGiB * kUsableFraction,
          "not measured: the datasheet's " + std::to_string(static_cast<long long>(datasheet_gb)) +
              " GB read as GiB (as nvidia-smi lists NVIDIA's GPUs) x 0.99, the share a process got on the "
              "measured H100 and H200"};
}

}  // namespace models::hw
