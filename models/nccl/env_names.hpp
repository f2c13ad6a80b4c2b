#pragma once
// Which environment variables a scenario's [nccl.env] holds: NCCL's own (NCCL_*), libfabric's
// (FI_*, read by the EFA provider under aws-ofi-nccl) and aws-ofi-nccl's (OFI_NCCL_*: its tuner
// and rail settings change what NCCL runs on AWS, models/nccl/env.cpp). One rule for the loader,
// the importers and calibrate, so a variable a job sets is never dropped by one and kept by another.
#include <string_view>

namespace models::nccl {

inline bool is_nccl_env_name(std::string_view name) {
  return name.starts_with("NCCL_") || name.starts_with("FI_") || name.starts_with("OFI_NCCL_");
}

inline constexpr const char* kNcclEnvNames = "NCCL_, OFI_NCCL_ or FI_";

}  // namespace models::nccl
