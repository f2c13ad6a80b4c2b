// GPU catalog entries, each with the source of its numbers.
#include "models/hw/gpu.hpp"

#include <strings.h>

#include "models/error.hpp"
#include "models/suggest.hpp"

namespace models::hw {

namespace {
constexpr double kT = 1e12;
constexpr double kGB = 1e9;

std::vector<GpuSpec> make_gpu_catalog() {
  return {
      // NVIDIA Tesla V100 datasheet (SXM2, 32 GB): 125 TF fp16 tensor, 15.7 TF fp32, 900 GB/s,
      // NVLink 2.0 x6 (300 GB/s bidirectional); no bf16 support (SM70).
      {"V100", 70, 2, 6, 3, 16, 0, 125 * kT, 15.7 * kT, 32 * kGB, 900 * kGB, "NVIDIA Tesla V100 datasheet (SXM2)"},
      // NVIDIA A100 datasheet (SXM 40 GB): 312 TF bf16/fp16 dense, 19.5 TF fp32, 1555 GB/s,
      // NVLink 3 x12 (600 GB/s bidirectional), PCIe Gen4.
      {"A100-40GB", 80, 3, 12, 4, 16, 312 * kT, 312 * kT, 19.5 * kT, 40 * kGB, 1555 * kGB,
       "NVIDIA A100 Tensor Core GPU datasheet (SXM4 40GB)"},
      // NVIDIA A100 datasheet (SXM 80 GB): same compute, HBM2e 2039 GB/s.
      {"A100-80GB", 80, 3, 12, 4, 16, 312 * kT, 312 * kT, 19.5 * kT, 80 * kGB, 2039 * kGB,
       "NVIDIA A100 Tensor Core GPU datasheet (SXM4 80GB)"},
      // NVIDIA H100 datasheet (SXM5): 989 TF bf16/fp16 dense (1979 with sparsity), 1979 TF fp8
      // dense (3958 sparse), 67 TF fp32, 80 GB HBM3 at 3.35 TB/s, NVLink 4 x18 (900 GB/s
      // bidirectional), PCIe Gen5.
      {"H100", 90, 4, 18, 5, 16, 989 * kT, 989 * kT, 67 * kT, 80 * kGB, 3350 * kGB,
       "NVIDIA H100 Tensor Core GPU datasheet (SXM5)", 1979 * kT},
      // NVIDIA H200 datasheet (SXM): H100 compute (fp8 1979 TF dense), 141 GB HBM3e at 4.8 TB/s,
      // NVLink 4 x18.
      {"H200", 90, 4, 18, 5, 16, 989 * kT, 989 * kT, 67 * kT, 141 * kGB, 4800 * kGB,
       "NVIDIA H200 Tensor Core GPU datasheet (SXM)", 1979 * kT},
      // NVIDIA HGX B200 / DGX B200 datasheet, per GPU (the 8-GPU board's figures / 8; sparse / 2 for
      // dense): 2.25 PF bf16 dense, 4.5 PF fp8 (and MXFP8) dense (9 sparse), 9 PF fp4 dense (18
      // sparse), 75 TF fp32, 180 GB HBM3e (1,440 GB per board) at 8 TB/s, NVLink 5 x18 (1.8 TB/s
      // bidirectional), PCIe Gen6. SM100.
      {"B200", 100, 5, 18, 6, 16, 2250 * kT, 2250 * kT, 75 * kT, 180 * kGB, 8000 * kGB,
       "NVIDIA HGX B200 datasheet (per GPU)", 4500 * kT, 9000 * kT},
      // NVIDIA HGX B300 (Blackwell Ultra) datasheet, per GPU (board / 8): fp4 108 PF dense / 144
      // sparse per board -> 13.5 PF dense, fp8 72 PF sparse -> 4.5 PF dense, bf16 36 PF sparse ->
      // 2.25 PF dense, 75 TF fp32, "up to 2.3 TB" HBM3e per board -> 288 GB per GPU at 8 TB/s,
      // NVLink 5 x18, PCIe Gen6. Compute capability 10.3 (SM103).
      {"B300", 103, 5, 18, 6, 16, 2250 * kT, 2250 * kT, 75 * kT, 288 * kGB, 8000 * kGB,
       "NVIDIA HGX B300 datasheet (per GPU)", 4500 * kT, 13500 * kT},
      // The B200 of a GB200 superchip (NVIDIA GB200 NVL72 datasheet, rack / 72; sparse / 2): the
      // superchip's higher power limit gives 2.5 PF bf16 dense (360 PF sparse per rack), 5 PF fp8 (720
      // sparse), 10 PF fp4 (1,440 sparse), 80 TF fp32 (5,760 TF per rack); 13.4 TB HBM3e per rack ->
      // 186 GB per GPU (nvidia-smi shows 185-186 GB: Azure ND GB200 v6 results, MLCommons GB200
      // system descriptions), 576 TB/s -> 8 TB/s; NVLink 5 x18; the Grace CPU over NVLink-C2C. SM100.
      {"GB200", 100, 5, 18, 6, 16, 2500 * kT, 2500 * kT, 80 * kT, 186 * kGB, 8000 * kGB,
       "NVIDIA GB200 NVL72 datasheet (per GPU: rack / 72)", 5000 * kT, 10000 * kT},
      // The B300 of a GB300 superchip (NVIDIA GB300 NVL72 datasheet, rack / 72): fp4 1,080 PF dense
      // (1,440 sparse) -> 15 PF, fp8 720 PF sparse -> 5 PF dense, bf16 360 PF sparse -> 2.5 PF dense,
      // 80 TF fp32; "up to 20 TB" HBM3e per rack -> 279 GB per GPU as exposed (Verda's GB300 NVL72
      // per-GPU table; 288 GB physical), 576 TB/s -> 8 TB/s; NVLink 5 x18. SM103.
      {"GB300", 103, 5, 18, 6, 16, 2500 * kT, 2500 * kT, 80 * kT, 279 * kGB, 8000 * kGB,
       "NVIDIA GB300 NVL72 datasheet (per GPU: rack / 72)", 5000 * kT, 15000 * kT},
      // NVIDIA L40S datasheet: 362 TF bf16/fp16 dense (733 sparse), 733 TF fp8 dense (1466
      // sparse), 91.6 TF fp32, 48 GB GDDR6 at 864 GB/s, PCIe Gen4 x16, no NVLink.
      {"L40S", 89, 0, 0, 4, 16, 362 * kT, 362 * kT, 91.6 * kT, 48 * kGB, 864 * kGB, "NVIDIA L40S datasheet", 733 * kT},
      // NVIDIA A10 datasheet (A10G is AWS's variant of the same GA102 part; NVIDIA publishes no
      // separate sheet): 125 TF bf16 dense, 31.2 TF fp32, 24 GB GDDR6 at 600 GB/s, PCIe Gen4.
      // Measured A10G tensor rates are lower (clocks): calibrate compute before trusting g5.
      {"A10G", 86, 0, 0, 4, 16, 125 * kT, 125 * kT, 31.2 * kT, 24 * kGB, 600 * kGB,
       "NVIDIA A10 datasheet (A10G: AWS variant)"},
      // NVIDIA L4 datasheet: 121 TF bf16/fp16 dense (242 sparse), 242.5 TF fp8 dense (485 sparse),
      // 30.3 TF fp32, 24 GB GDDR6 at 300 GB/s, PCIe Gen4 x16.
      {"L4", 89, 0, 0, 4, 16, 121 * kT, 121 * kT, 30.3 * kT, 24 * kGB, 300 * kGB, "NVIDIA L4 datasheet", 242.5 * kT},
  };
}
}  // namespace

const std::vector<GpuSpec>& gpu_catalog() {
  static const std::vector<GpuSpec> catalog = make_gpu_catalog();  // immutable after first use
  return catalog;
}

const GpuSpec& find_gpu(std::string_view name, const std::string& key) {
  std::vector<std::string> names;
  for (const auto& g : gpu_catalog()) {
    if (g.name.size() == name.size() && strncasecmp(g.name.c_str(), name.data(), name.size()) == 0) return g;
    names.push_back(g.name);
  }
  // Common aliases users write.
  if (name == "A100" || name == "a100") return find_gpu("A100-40GB", key);
  throw SpecError(key, unknown_name_message("GPU", name, names));
}

}  // namespace models::hw
