// The names of the NCCL environment: which variables exist, which are modelled (env.cpp's one list),
// which are timing-neutral or documented but not modelled, and which a typo was meant to be; the
// notes a run prints for them.
#include "models/nccl/env_names.hpp"

#include <algorithm>

#include "models/error.hpp"
#include "models/nccl/env.hpp"
#include "models/suggest.hpp"

namespace models::nccl {

namespace {
// No effect on time in NCCL: logging, files, timeouts and retries. PyTorch's own NCCL_-prefixed
// settings (NCCL_ASYNC_ERROR_HANDLING, NCCL_BLOCKING_WAIT) belong here too.
const std::vector<std::string> kTimingNeutral = {
    "NCCL_ASYNC_ERROR_HANDLING",
    "NCCL_BLOCKING_WAIT",
    "NCCL_COMM_BLOCKING",
    "NCCL_CONF_FILE",
    "NCCL_DEBUG",
    "NCCL_DEBUG_FILE",
    "NCCL_DEBUG_SUBSYS",
    "NCCL_DEBUG_TIMESTAMP_FORMAT",
    "NCCL_DEBUG_TIMESTAMP_LEVELS",
    "NCCL_IB_RETRY_CNT",
    "NCCL_IB_TIMEOUT",
    "NCCL_RAS_ENABLE",
    "NCCL_SET_THREAD_NAME",
    "NCCL_SOCKET_RETRY_CNT",
    "NCCL_SOCKET_RETRY_SLEEP_MSEC",
    "NCCL_TOPO_DUMP_FILE",
    "FI_LOG_LEVEL",
};
// Features commsim never uses: turning them off changes nothing here, turning them on is not modelled.
const std::vector<std::string> kNeutralWhenOff = {};

// NCCL's documented variables (docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html, 2.11
// to 2.28), a few long-standing undocumented ones users set (LL/LL128 buffer and thread counts)
// and libfabric's EFA settings. Set, they are kept but not modelled.
const std::vector<std::string> kDocumented = {
    "NCCL_ALLOC_P2P_NET_LL_BUFFERS",
    "NCCL_CGA_CLUSTER_SIZE",
    "NCCL_CHECK_POINTERS",
    "NCCL_CHECKS_DISABLE",
    "NCCL_COLLNET_NODE_THRESHOLD",
    "NCCL_CROSS_NIC",
    "NCCL_CTA_POLICY",
    "NCCL_CUMEM_HOST_ENABLE",
    "NCCL_DMABUF_ENABLE",
    "NCCL_GDRCOPY_ENABLE",
    "NCCL_GRAPH_MIXING_SUPPORT",
    "NCCL_GRAPH_REGISTER",
    "NCCL_IB_ADAPTIVE_ROUTING",
    "NCCL_IB_ADDR_FAMILY",
    "NCCL_IB_ADDR_RANGE",
    "NCCL_IB_AR_THRESHOLD",
    "NCCL_IB_CUDA_SUPPORT",
    "NCCL_IB_ECE_ENABLE",
    "NCCL_IB_FIFO_TC",
    "NCCL_IB_GDR_LEVEL",
    "NCCL_IB_GID_INDEX",
    "NCCL_IB_HCA",
    "NCCL_IB_MERGE_NICS",
    "NCCL_IB_MERGE_VFS",
    "NCCL_IB_PCI_RELAXED_ORDERING",
    "NCCL_IB_QPS_PER_CONNECTION",
    "NCCL_IB_RETURN_ASYNC_EVENTS",
    "NCCL_IB_ROCE_VERSION_NUM",
    "NCCL_IB_SL",
    "NCCL_IB_SPLIT_DATA_ON_QPS",
    "NCCL_IB_TC",
    "NCCL_IB_USE_INLINE",
    "NCCL_IGNORE_CPU_AFFINITY",
    "NCCL_LAUNCH_MODE",
    "NCCL_LAUNCH_ORDER_IMPLICIT",
    "NCCL_LEGACY_CUDA_REGISTER",
    "NCCL_LL128_BUFFSIZE",
    "NCCL_LL128_NTHREADS",
    "NCCL_LL_BUFFSIZE",
    "NCCL_LL_THRESHOLD",
    "NCCL_LOCAL_REGISTER",
    "NCCL_MEM_SYNC_DOMAIN",
    "NCCL_NCHANNELS_PER_NET_PEER",
    "NCCL_NET_FORCE_FLUSH",
    "NCCL_NET_GDR_C2C",
    "NCCL_NET_GDR_READ",
    "NCCL_NET_OVERHEAD",
    "NCCL_NET_PLUGIN",
    "NCCL_NET_SHARED_BUFFERS",
    "NCCL_NET_SHARED_COMMS",
    "NCCL_NETDEVS_POLICY",
    "NCCL_NTHREADS",
    "NCCL_NVB_DISABLE",
    "NCCL_OOB_NET_ENABLE",
    "NCCL_OOB_NET_IFNAME",
    "NCCL_P2P_DIRECT_DISABLE",
    "NCCL_P2P_NET_CHUNKSIZE",
    "NCCL_P2P_NVL_CHUNKSIZE",
    "NCCL_P2P_PCI_CHUNKSIZE",
    "NCCL_P2P_PXN_LEVEL",
    "NCCL_PROFILER_PLUGIN",
    "NCCL_PXN_C2C",
    "NCCL_RUNTIME_CONNECT",
    "NCCL_SET_STACK_SIZE",
    "NCCL_SHM_USE_CUDA_MEMCPY",
    "NCCL_SINGLE_RING_THRESHOLD",
    "NCCL_SOCKET_FAMILY",
    "NCCL_SOCKET_IFNAME",
    "NCCL_TOPO_FILE",
    "NCCL_TREE_THRESHOLD",
    "NCCL_UID_STAGGER_RATE",
    "NCCL_UID_STAGGER_THRESHOLD",
    "NCCL_WIN_ENABLE",
    "NCCL_WORK_FIFO_BYTES",
    // libfabric's EFA provider, as AWS's guides set them (aws-ofi-nccl reads them through libfabric).
    "FI_EFA_ENABLE_SHM_TRANSFER",
    "FI_EFA_FORK_SAFE",
    "FI_EFA_SET_CUDA_SYNC_MEMOPS",
    "FI_EFA_USE_DEVICE_RDMA",
    "FI_EFA_USE_HUGE_PAGE",
    "FI_HMEM_DISABLE_P2P",
    "FI_PROVIDER",
};

bool in(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

std::vector<std::string> all_known() {
  std::vector<std::string> all = modelled_nccl_variables();
  all.insert(all.end(), kTimingNeutral.begin(), kTimingNeutral.end());
  all.insert(all.end(), kNeutralWhenOff.begin(), kNeutralWhenOff.end());
  all.insert(all.end(), kDocumented.begin(), kDocumented.end());
  return all;
}

std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}
}  // namespace

void check_nccl_env_names(const std::map<std::string, std::string>& env) {
  const std::vector<std::string> known = all_known();
  for (const auto& [name, value] : env) {
    if (name.rfind("NCCL_", 0) != 0 || in(known, name)) continue;
    std::vector<std::string> near;
    for (const auto& k : known)
      if (edit_distance(name, k) <= 2) near.push_back(k);
    if (!near.empty())
      throw SpecError("nccl.env." + name, "'" + name + "' is not an NCCL variable (did you mean " +
                                              join(closest_names(name, near, 2)) + "?)");
  }
}

std::optional<std::string> collnet_note(const std::map<std::string, std::string>& env, bool sharp_fabric) {
  const auto it = env.find("NCCL_COLLNET_ENABLE");
  if (it == env.end() || it->second == "0") return std::nullopt;
  if (!sharp_fabric)
    return "nccl.env: NCCL_COLLNET_ENABLE=1 has no effect here: the fabric has no SHARP switches (CollNet needs "
           "InfiniBand with SHARP: [cluster.fabric] sharp = true; EFA and RoCE have none), so NCCL runs without "
           "CollNet";
  // NCCL takes the collnet of the plugin whose net it uses (src/net.cc, ncclNetInit); its
  // internal Socket net has none, so TCP sockets leave CollNet (and NVLS over SHARP) off.
  const auto net = env.find("NCCL_NET"), ib = env.find("NCCL_IB_DISABLE");
  const bool forced_socket = net != env.end() && net->second == "Socket";
  if (!forced_socket && (ib == env.end() || ib->second == "0")) return std::nullopt;
  return std::string("nccl.env: NCCL_COLLNET_ENABLE=1 has no effect with ") +
         (forced_socket ? "NCCL_NET=Socket" : "NCCL_IB_DISABLE=1") +
         ": the network is TCP sockets, and the SHARP plugin's CollNet comes only with the InfiniBand net, so NCCL "
         "runs without CollNet";
}

std::vector<std::string> unmodelled_nccl_env_notes(const std::map<std::string, std::string>& env) {
  std::vector<std::string> documented, other;
  for (const auto& [name, value] : env) {
    if (in(modelled_nccl_variables(), name) || in(kTimingNeutral, name)) continue;
    if (in(kNeutralWhenOff, name) && value == "0") continue;
    (in(kDocumented, name) || in(kNeutralWhenOff, name) ? documented : other).push_back(name);
  }
  std::vector<std::string> notes;
  if (!documented.empty())
    notes.push_back("nccl.env: " + join(documented) + (documented.size() == 1 ? " is" : " are") +
                    " set but not modelled (no effect on the simulated times)");
  if (!other.empty())
    notes.push_back("nccl.env: " + join(other) + (other.size() == 1 ? " is" : " are") +
                    " not known to commsim (kept; no effect on the simulated times)");
  // Read (env.cpp: it caps the sockets with NCCL_SOCKET_NTHREADS at 64) but no rate depends on it:
  // the model's Socket rate is a thread's (its copies bind: measured between pods of one host,
  // docs/accuracy.md), whatever the sockets it splits a message over.
  if (env.count("NCCL_NSOCKS_PERTHREAD"))
    notes.push_back(
        "nccl.env: NCCL_NSOCKS_PERTHREAD moves no simulated time: the model's Socket rate is per helper thread "
        "(NCCL_SOCKET_NTHREADS), whose copies bind between pods of one host; what one TCP flow may carry across "
        "nodes (AWS caps a single flow at 5 Gb/s outside a cluster placement group) is not modelled");
  return notes;
}

}  // namespace models::nccl
