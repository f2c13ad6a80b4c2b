#pragma once
// The NCCL environment of a run, parsed ONCE (World::build does it; World::nccl_env() hands it
// out) into one struct that the transport choice, the channel counts and NCCL's tuner read. Values
// are checked the way NCCL reads them (src/misc/param.cc: integers with strtoll base 0; path
// levels by name or legacy integer, src/graph/paths.cc ncclGetLevel; NCCL_ALGO/NCCL_PROTO lists
// as src/graph/tuning.cc parses them). A value NCCL would not accept (or would silently ignore,
// which users never intend) is a SpecError("nccl.env.NAME", ...). The variables parsed here are
// the modelled ones (modelled_nccl_variables(), the one list); the others are classified
// (timing-neutral, documented but not modelled, misspelt) so that no setting silently does
// nothing: a typo in NCCL_P2P_LEVEL would otherwise simulate the wrong transport.
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "models/hw/path_type.hpp"
#include "models/nccl/env_names.hpp"
#include "models/nccl/example_tuner.hpp"
#include "models/nccl/ops.hpp"
#include "models/nccl/transport_choice.hpp"

namespace models::nccl {

// What NCCL's tuner reads (src/graph/tuning.cc, src/enqueue.cc), per collective (indexed by
// nccl::CollOp): NCCL_ALGO="Ring,Tree" or "^Tree", NCCL_PROTO likewise, and from NCCL 2.24 the
// per-collective form "allreduce:tree;allgather:ring" (tuning.cc parseList); NCCL_PAT_ENABLE; the
// channel limits of NCCL_MIN/MAX_NCHANNELS and NCCL_MIN/MAX_CTAS together (connect.cc).
struct TuningEnv {
  static constexpr int kOps = 7;  // nccl::CollOp's values
  // Per collective and algorithm (nccl::Algo order): on unless NCCL_ALGO leaves it out. Whether an
  // algorithm exists is the communicator's (tuning.hpp CommView::collnet, nvls; PAT: pat_enable).
  std::array<std::array<bool, 7>, kOps> algo_enabled = every_algo_on();
  // Per collective and protocol (nccl::Proto order), NCCL's protoEnable: 0 off, 1 on, 2 NCCL's own
  // rule (LL128's default: tuning.cc enables it only on NVLink inside nodes and near NICs across).
  std::array<std::array<int, 3>, kOps> proto_state = default_protos();
  std::string algo_value, proto_value;  // NCCL_ALGO, NCCL_PROTO as given (empty: unset), for messages
  bool algo_set = false, proto_set = false;
  // NCCL_PAT_ENABLE (tuning.cc ncclPatEnable): 2 (default) on with one rank per node; 0 off; other
  // values on wherever PAT exists (NCCL 2.23 on, all-gather and reduce-scatter).
  int pat_enable = 2;
  std::optional<int> min_channels, max_channels;
  std::optional<int> nvls_channels;  // NCCL_NVLS_NCHANNELS (NVLS's CTAs; unset: 16 on Hopper, 24/32 on Blackwell)
  bool tuner_plugin = true;          // NCCL_TUNER_PLUGIN not "none": the net plugin's tuner may load
  bool ofi_tuner_fallback = false;   // OFI_NCCL_TUNER_TYPE=Internal or OFI_NCCL_FORCE_NUM_RAILS set
  // NCCL_TUNER_PLUGIN=example: NCCL's example tuner plugin, in place of the net plugin's, with the
  // rows of NCCL_TUNER_CONFIG_FILE (example_tuner.hpp).
  bool example_tuner = false;
  std::vector<ExampleTunerRow> example_rows;

  bool algo_on(CollOp op, Algo a) const { return algo_enabled[static_cast<int>(op)][static_cast<int>(a)]; }
  int proto_on(CollOp op, Proto p) const { return proto_state[static_cast<int>(op)][static_cast<int>(p)]; }

 private:
  static std::array<std::array<bool, 7>, kOps> every_algo_on() {
    std::array<std::array<bool, 7>, kOps> out{};
    for (auto& row : out) row.fill(true);
    return out;
  }
  static std::array<std::array<int, 3>, kOps> default_protos() {  // tuning.cc: LL 1, LL128 2, Simple 1
    std::array<std::array<int, 3>, kOps> out{};
    for (auto& row : out) row = {1, 2, 1};
    return out;
  }
};

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
  std::optional<NetPlugin> net;            // NCCL_NET: the plugin forced (empty: NCCL's choice)
  std::optional<int> socket_nthreads;      // NCCL_SOCKET_NTHREADS (unset: auto)
  int nsocks_perthread = 0;                // NCCL_NSOCKS_PERTHREAD (0: auto)
  int64_t buffsize = int64_t{1} << 22;     // NCCL_BUFFSIZE (Simple protocol buffer, 4 MiB)
  int64_t nvls_chunksize = int64_t{1} << 17;  // NCCL_NVLS_CHUNKSIZE (src/transport/nvls.cc: 128 KiB)
  int64_t nvlstree_max_chunksize = -2;        // NCCL_NVLSTREE_MAX_CHUNKSIZE (-2: 64 KiB from 4 nodes)
  int64_t p2p_ll_threshold = 16384;        // NCCL_P2P_LL_THRESHOLD: per p2p channel a peer may get (p2p_channels.hpp)
  int min_nchannels = 0;                   // NCCL_MIN_NCHANNELS (0: unset)
  int max_nchannels = 0;                   // NCCL_MAX_NCHANNELS (0: unset)
  int min_ctas = 0, max_ctas = 0;          // NCCL_MIN_CTAS, NCCL_MAX_CTAS (0: unset; tuner only)
  bool pxn_disable = false;                // NCCL_PXN_DISABLE=1 (no sending through a peer GPU's NIC)
  bool nvls_enable = true;                 // NCCL_NVLS_ENABLE (0: off; else where the node has multicast)
  bool collnet_enable = false;             // NCCL_COLLNET_ENABLE=1 (CollNet where the fabric has SHARP)
  bool mnnvl_enable = true;                // NCCL_MNNVL_ENABLE (0: off; 1, 2 (default): on where the node
                                           // is a multi-host NVLink domain, hw::NodeSpec::host_gpus)
  std::string hostid;                      // NCCL_HOSTID (per node: pods of a node share it)
  TuningEnv tuning;                        // NCCL_ALGO, NCCL_PROTO, NCCL_PAT_ENABLE, NCCL_MIN/MAX_NCHANNELS|CTAS
  int version = 0;                         // the scenario's nccl.version (not a variable; 0: the default)
  std::map<std::string, std::string> raw;  // every variable as given
};

inline constexpr int kMaxChannels = 64;  // MAXCHANNELS, src/include/device.h (2.25 on; 32 before)
// MAXCHANNELS of `nccl_version` (0: the default release): 32 to 2.24, 64 from 2.25 (v2.25.1-1
// src/include/device.h). NCCL caps its channels and NCCL_MIN/MAX_NCHANNELS and _CTAS there.
int max_channels_of(int nccl_version);

// Checks the names (check_nccl_env_names) and parses every modelled variable, NCCL_ALGO and
// NCCL_PROTO as `nccl_version` (0: the default release) parses them. `tuner_config_text`: the
// file NCCL_TUNER_CONFIG_FILE names, as the scenario loader read (and checked) it.
NcclEnv parse_nccl_env(const std::map<std::string, std::string>& env, int nccl_version = 0,
                       const std::string& tuner_config_text = "");
// The NCCL variables whose values change what commsim simulates: exactly those parse_nccl_env
// reads, in name order.
const std::vector<std::string>& modelled_nccl_variables();
// NCCL_P2P_LEVEL / NCCL_NET_GDR_LEVEL syntax: LOC NVL NVB C2C PIX PXB P2C PXN PHB SYS, or the
// legacy integers 0 LOC, 1 PIX, 2 PXB, 3 PHB, 4+ SYS. Throws SpecError(key).
PathType parse_path_level(const std::string& value, const std::string& key);
// Socket transport helper threads and sockets per thread NCCL uses (src/transport/net_socket.cc
// ncclNetSocketGetNsockNthread: auto = 2 x 8 on AWS ENA (vendor 0x1d0f), 4 x 1 on GCP gVNIC
// (0x1ae0), else autoNt=0, autoNs=1: no helper thread, the rank's proxy thread moves every byte;
// product capped at 64). The vendor is read from /sys/class/net/<if>/device/vendor: a pod in a
// network namespace of its own (Kubernetes without hostNetwork) reaches the others through a veth,
// which has no device, so NCCL finds no vendor and starts no helper thread whatever the host's
// NIC (the seeds' g6e pods' log: "NET/Socket : Using [0]eth0" and no "Using N threads" line,
// which NCCL prints whenever it starts sockets). NCCL_SOCKET_NTHREADS / NSOCKS_PERTHREAD win.
struct SocketThreads {
  int threads = 0, socks_per_thread = 1;
};
SocketThreads socket_threads(const NcclEnv& env, const std::string& eth_driver, bool pod_network_namespace);

}  // namespace models::nccl
