#pragma once
// GPU catalog: what the communication and compute models need to know about each GPU model.
// Peak rates are dense (no structured sparsity), per GPU, from the vendor datasheets cited in
// gpu.cpp. Bandwidths in bytes/s, sizes in bytes, rates in FLOP/s.
#include <string>
#include <string_view>
#include <vector>

namespace models::hw {

struct GpuSpec {
  std::string name;      // catalog key: "H200", "A100-80GB", ...
  int sm = 0;            // CUDA compute capability x10 (80 = SM80): NCCL's read-mode rule
  int nvlink_gen = 0;    // 0: no NVLink
  int nvlink_links = 0;  // NVLink links per GPU
  int pcie_gen = 0;
  int pcie_lanes = 16;
  double bf16_flops = 0;  // dense tensor-core peak
  double fp16_flops = 0;
  double fp32_flops = 0;  // non-tensor FP32
  double hbm_bytes = 0;
  double hbm_bytes_per_s = 0;
  std::string citation;
  double fp8_flops = 0;  // dense fp8 tensor-core peak; 0: no fp8 tensor cores (before Ada/Hopper)
  // Dense fp4 (NVFP4 / MXFP4, block-scaled e2m1) tensor-core peak; 0: none (before Blackwell).
  // Blackwell's block-scaled MXFP8 runs at the fp8 peak (the datasheets' single "FP8/FP6" figure).
  double fp4_flops = 0;
};

const std::vector<GpuSpec>& gpu_catalog();
// Throws SpecError(key, "unknown GPU 'X' (did you mean ...)"). Names are matched without case.
const GpuSpec& find_gpu(std::string_view name, const std::string& key = "cluster.node.gpu");

}  // namespace models::hw
