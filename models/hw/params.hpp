#pragma once
// Raw physical capacities the World gives its links, overridable by name through
// spec.cluster.params (bytes/s for bandwidths, seconds for latencies). These are physical
// numbers (datasheet or measured); NCCL's per-channel and protocol limits are applied on top by
// the collective engine (models/collectives/link_params.hpp, which owns the "nccl.*", hop latency and
// efficiency names).
#include <array>
#include <string_view>

namespace models::hw {

inline constexpr std::string_view kParamNvlinkBandwidth = "nvlink.bandwidth";  // per GPU, per direction (all its links)
inline constexpr std::string_view kParamPcieBandwidth =
    "pcie.bandwidth";  // per GPU slot / switch uplink, per direction
inline constexpr std::string_view kParamHostmemBandwidth = "hostmem.bandwidth";  // per node, host DRAM
inline constexpr std::string_view kParamNicBandwidth = "nic.bandwidth";          // per NIC (EFA/IB), per direction
inline constexpr std::string_view kParamEthBandwidth = "eth.bandwidth";  // per node ordinary Ethernet, per direction
inline constexpr std::string_view kParamLoopbackBandwidth = "loopback.bandwidth";  // per node, TCP between its pods
inline constexpr std::string_view kParamNvlinkLatency = "nvlink.latency";          // GPU to GPU, one way
inline constexpr std::string_view kParamPcieLatency = "pcie.latency";              // GPU to host, one way
inline constexpr std::string_view kParamNicLatency = "nic.latency";                // NIC to NIC, one way
inline constexpr std::string_view kParamEthLatency = "eth.latency";                // TCP, one way

inline constexpr std::array<std::string_view, 10> kWorldParams = {
    kParamNvlinkBandwidth,   kParamPcieBandwidth, kParamHostmemBandwidth, kParamNicBandwidth, kParamEthBandwidth,
    kParamLoopbackBandwidth, kParamNvlinkLatency, kParamPcieLatency,      kParamNicLatency,   kParamEthLatency};

}  // namespace models::hw
