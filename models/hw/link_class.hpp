#pragma once
// models::LinkClass: which physical model (latency per hop, bandwidth per channel) applies to a
// transfer. Shared vocabulary of NCCL's transport choice (which class a rank pair's transfers
// are), the collective engine's per-class parameters (models/comm_plan/link_params.hpp) and
// the result's transport counts, so it sits in the lowest folder that needs it.
namespace models {

enum class LinkClass { NVLink, PCIe, SHM, EFA, IB, Socket };
const char* link_class_name(LinkClass c);  // "nvlink", "pcie", ... (the [cluster.params] prefixes)

}  // namespace models
