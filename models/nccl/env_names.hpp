#pragma once
// The names of the NCCL environment (env_names.cpp): which variables a scenario's [nccl.env] may
// hold, which a typo was meant to be, and the notes for those set but not modelled (env.hpp parses
// the modelled ones).
//
// Which environment variables a scenario's [nccl.env] holds: NCCL's own (NCCL_*), libfabric's
// (FI_*, read by the EFA provider under aws-ofi-nccl) and aws-ofi-nccl's (OFI_NCCL_*: its tuner
// and rail settings change what NCCL runs on AWS, models/nccl/env.cpp). One rule for the loader,
// the importers and calibrate, so a variable a job sets is never dropped by one and kept by another.
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace models::nccl {

inline bool is_nccl_env_name(std::string_view name) {
  return name.starts_with("NCCL_") || name.starts_with("FI_") || name.starts_with("OFI_NCCL_");
}

inline constexpr const char* kNcclEnvNames = "NCCL_, OFI_NCCL_ or FI_";

// Throws SpecError("nccl.env.NAME") for an NCCL_ name that is not a known NCCL variable but is
// within two edits of one ("did you mean"). Other unknown NCCL_ names, and FI_ names, pass.
void check_nccl_env_names(const std::map<std::string, std::string>& env);

// NCCL_COLLNET_ENABLE=1 on a fabric without SHARP ([cluster.fabric] sharp), or with the network
// forced to Socket (NCCL_NET=Socket, NCCL_IB_DISABLE=1): NCCL finds no collnet plugin or
// SHARP-capable switch and runs without CollNet, as commsim does; the note says so.
std::optional<std::string> collnet_note(const std::map<std::string, std::string>& env, bool sharp_fabric);

// One note per group of variables that are set but not modelled (empty when there are none):
// "nccl.env: NCCL_CROSS_NIC, FI_EFA_USE_DEVICE_RDMA are set but not modelled (...)", and one for a
// variable that is read but moves no time (NCCL_NSOCKS_PERTHREAD).
std::vector<std::string> unmodelled_nccl_env_notes(const std::map<std::string, std::string>& env);

}  // namespace models::nccl
