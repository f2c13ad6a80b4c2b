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

// nvidia-smi's memory.total for GPUs not measured here, as public logs of the GPU print it (the
// same figure in every log found). A datasheet's "GB" is GiB on some parts and not on others:
// B300's "288 GB" is 275,040 MiB (268.6 GiB), L40S's "48 GB" 46,068 MiB, where B200's "180 GB"
// is 183,359 MiB (179.1 GiB).
struct Listed {
  const char* gpu;
  double mib;
  const char* source;
};
constexpr Listed kListed[] = {
    {"B200", 183359, "nvidia-smi's 183,359 MiB per B200 (public logs of 8 x B200 machines)"},
    {"B300", 275040,
     "nvidia-smi's 275,040 MiB per B300 SXM6 AC (public logs, p6-b300.48xlarge among them; AWS gives 2.1 TB for "
     "its 8), not the datasheet's 288 GB"},
    {"GB200", 189471, "nvidia-smi's 189,471 MiB per GB200 GPU (public logs of NVL72 trays)"},
    {"GB300", 284208, "nvidia-smi's 284,208 MiB per GB300 GPU (public logs of NVL72 trays)"},
    {"L40S", 46068, "nvidia-smi's 46,068 MiB per L40S (public logs, AWS g6e among them), not the datasheet's 48 GB"},
    {"A10G", 23028, "nvidia-smi's 23,028 MiB per A10G (public logs of AWS g5), not 24 GB"},
    {"L4", 23034, "nvidia-smi's 23,034 MiB per L4 (public logs), not 24 GB"},
};

// What a process gets of nvidia-smi's total on the measured GPUs: 0.9941 (H100, 85.02e9 /
// 81,559 MiB) and 0.9957 (H200, 150.11e9 / 143,771 MiB).
constexpr double kProcessShare = 0.995;

// For a GPU with neither: the datasheet's figure read as GiB, times the share a process got of it
// on the measured GPUs, 0.9915 (H200, 150.11e9 / (141 x 2^30)) and 0.9897 (H100, 85.02e9 / (80 x 2^30)).
constexpr double kUsableFraction = 0.99;
}  // namespace

UsableMemory usable_memory(const GpuSpec& gpu) {
  for (const auto& m : kMeasured)
    if (gpu.name == m.gpu) return {m.bytes, m.source};
  for (const auto& l : kListed)
    if (gpu.name == l.gpu)
      return {l.mib * 1024 * 1024 * kProcessShare,
              std::string(l.source) + " x 0.995, the share a process got of it on the measured H100 and H200"};
  // The datasheet's figure is in decimal bytes in the catalog (hbm_bytes = GB x 1e9).
  const double datasheet_gb = std::round(gpu.hbm_bytes / 1e9);
  return {datasheet_gb * kGiB * kUsableFraction,
          "not measured: the datasheet's " + std::to_string(static_cast<long long>(datasheet_gb)) +
              " GB read as GiB (as nvidia-smi lists NVIDIA's GPUs) x 0.99, the share a process got on the "
              "measured H100 and H200"};
}

}  // namespace models::hw
