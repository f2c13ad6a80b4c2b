#pragma once
// Which environment variables in [nccl.env] commsim models (modelled_nccl_variables(), in
// models/nccl/env.hpp, where each is parsed), which it knows to have no effect on time, and which
// it does not model; and catching a misspelt NCCL variable before it silently
// does nothing (a typo in NCCL_P2P_LEVEL would otherwise simulate the wrong transport).
#include <map>
#include <string>
#include <vector>

namespace models::nccl {

// Throws SpecError("nccl.env.NAME") for an NCCL_ name that is not a known NCCL variable but is
// within two edits of one ("did you mean"). Other unknown NCCL_ names, and FI_ names, pass.
void check_nccl_env_names(const std::map<std::string, std::string>& env);

// One note per group of variables that are set but not modelled (empty when there are none):
// "nccl.env: NCCL_CROSS_NIC, FI_EFA_USE_DEVICE_RDMA are set but not modelled (...)".
std::vector<std::string> unmodelled_nccl_env_notes(const std::map<std::string, std::string>& env);

}  // namespace models::nccl
