#pragma once
// The NCCL environment variables the transport choice and channel counts depend on, parsed and
// checked the way NCCL reads them (src/misc/param.cc: integers with strtol base 0; path levels
// by name or legacy integer, src/graph/paths.cc ncclGetLevel). A value NCCL would not accept
// (or would silently ignore, which users never intend) is a SpecError("nccl.env.NAME", ...).
// Variables not listed here are kept verbatim in `raw` for the other models (NCCL_ALGO,
// NCCL_PROTO, ...) and are not checked here.
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "models/hw/path_type.hpp"

namespace models::nccl {

struct NcclEnv {
  bool p2p_disable = false;                // NCCL_P2P_DISABLE=1
  bool shm_disable = false;                // NCCL_SHM_DISABLE=1
  std::optional<PathType> p2p_level;       // NCCL_P2P_LEVEL
  std::optional<bool> p2p_read_enable;     // NCCL_P2P_READ_ENABLE
  bool p2p_use_cuda_memcpy = false;        // NCCL_P2P_USE_CUDA_MEMCPY=1: "/CE"
  bool cumem_enable = true;                // NCCL_CUMEM_ENABLE (0: legacy "P2P/IPC")
  std::optional<PathType> net_gdr_level;   // NCCL_NET_GDR_LEVEL
  bool ib_disable = false;                 // NCCL_IB_DISABLE=1
  bool net_disable_intra = false;          // NCCL_NET_DISABLE_INTRA=1
  std::string net;                         // NCCL_NET: "", "Socket", "IB", "Libfabric"
  int socket_nthreads = 0;                 // NCCL_SOCKET_NTHREADS (0: auto)
  int nsocks_perthread = 0;                // NCCL_NSOCKS_PERTHREAD (0: auto)
  int64_t buffsize = int64_t{1} << 22;     // NCCL_BUFFSIZE (Simple protocol buffer, 4 MiB)
  int min_nchannels = 0;                   // NCCL_MIN_NCHANNELS (0: unset)
  int max_nchannels = 0;                   // NCCL_MAX_NCHANNELS (0: unset)
  std::string hostid;                      // NCCL_HOSTID (per node: pods of a node share it)
  std::map<std::string, std::string> raw;  // every variable as given
};

inline constexpr int kMaxChannels = 64;  // MAXCHANNELS, src/include/device.h

NcclEnv parse_nccl_env(const std::map<std::string, std::string>& env);
// NCCL_P2P_LEVEL / NCCL_NET_GDR_LEVEL syntax: LOC NVL NVB C2C PIX PXB P2C PXN PHB SYS, or the
// legacy integers 0 LOC, 1 PIX, 2 PXB, 3 PHB, 4+ SYS. Throws SpecError(key).
PathType parse_path_level(const std::string& value, const std::string& key);
// Socket transport threads and sockets per thread NCCL uses (src/transport/net_socket.cc:
// auto = 2 x 8 on AWS ENA, 4 x 4 on GCP gVNIC, else 1 x 1; product capped at 64).
struct SocketThreads {
  int threads = 1, socks_per_thread = 1;
};
SocketThreads socket_threads(const NcclEnv& env, const std::string& eth_driver);

}  // namespace models::nccl
