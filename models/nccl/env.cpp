// Parsing and checking NCCL environment variables.
#include "models/nccl/env.hpp"

#include <cerrno>
#include <cstdlib>

#include "models/error.hpp"
#include "models/nccl/env_names.hpp"

namespace models::nccl {

namespace {
std::string key_of(const std::string& name) { return "nccl.env." + name; }

// NCCL reads integers with strtoll(str, NULL, 0): decimal, 0x hex, 0 octal.
int64_t parse_int(const std::string& name, const std::string& value, int64_t lo, int64_t hi) {
  errno = 0;
  char* end = nullptr;
  long long v = std::strtoll(value.c_str(), &end, 0);
  if (value.empty() || errno != 0 || *end != '\0')
    throw SpecError(key_of(name), name + "='" + value + "' is not an integer");
  if (v < lo || v > hi)
    throw SpecError(key_of(name), name + "=" + value + " is out of range (expected " + std::to_string(lo) + ".." +
                                      std::to_string(hi) + ")");
  return v;
}

bool parse_flag(const std::string& name, const std::string& value) { return parse_int(name, value, 0, 1) == 1; }
}  // namespace

PathType parse_path_level(const std::string& value, const std::string& key) {
  // src/graph/topo.cc topoPathTypeStr, compared for i <= PATH_SYS.
  static const std::pair<const char*, PathType> kNames[] = {
      {"LOC", PathType::LOC}, {"NVL", PathType::NVL}, {"NVB", PathType::NVB}, {"C2C", PathType::C2C},
      {"PIX", PathType::PIX}, {"PXB", PathType::PXB}, {"P2C", PathType::P2C}, {"PXN", PathType::PXN},
      {"PHB", PathType::PHB}, {"SYS", PathType::SYS}};
  for (const auto& [n, t] : kNames)
    if (value == n) return t;
  if (!value.empty() && value[0] >= '0' && value[0] <= '9') {
    // levelsOldToNew = { LOC, PIX, PXB, PHB, SYS, SYS }, larger values clamp to the last.
    static const PathType kOld[] = {PathType::LOC, PathType::PIX, PathType::PXB,
                                    PathType::PHB, PathType::SYS, PathType::SYS};
    char* end = nullptr;
    long v = std::strtol(value.c_str(), &end, 0);
    if (*end == '\0') return kOld[v > 5 ? 5 : v];
  }
  std::string hint = value == "NODE" ? " (NODE is nvidia-smi's name; NCCL calls it PHB)" : "";
  throw SpecError(key, "unknown path level '" + value + "'" + hint +
                           " (expected LOC, NVL, NVB, C2C, PIX, PXB, P2C, PXN, PHB, SYS or 0-5)");
}

NcclEnv parse_nccl_env(const std::map<std::string, std::string>& env) {
  check_nccl_env_names(env);
  NcclEnv e;
  e.raw = env;
  for (const auto& [name, value] : env) {
    if (name == "NCCL_P2P_DISABLE")
      e.p2p_disable = parse_flag(name, value);
    else if (name == "NCCL_SHM_DISABLE")
      e.shm_disable = parse_flag(name, value);
    else if (name == "NCCL_P2P_LEVEL")
      e.p2p_level = parse_path_level(value, key_of(name));
    else if (name == "NCCL_P2P_READ_ENABLE")
      e.p2p_read_enable = parse_flag(name, value);
    else if (name == "NCCL_P2P_USE_CUDA_MEMCPY")
      e.p2p_use_cuda_memcpy = parse_flag(name, value);
    else if (name == "NCCL_CUMEM_ENABLE")
      e.cumem_enable = parse_flag(name, value);
    else if (name == "NCCL_NET_GDR_LEVEL")
      e.net_gdr_level = parse_path_level(value, key_of(name));
    else if (name == "NCCL_IB_DISABLE")
      e.ib_disable = parse_flag(name, value);
    else if (name == "NCCL_NET_DISABLE_INTRA")
      e.net_disable_intra = parse_flag(name, value);
    else if (name == "NCCL_NET") {
      // Plugin names as NCCL logs them ("Using network Socket", "Loaded net plugin Libfabric").
      if (value == "Socket" || value == "IB" || value == "Libfabric")
        e.net = value;
      else if (value == "AWS Libfabric" || value == "OFI")
        e.net = "Libfabric";
      else
        throw SpecError(key_of(name), "unknown network '" + value + "' (expected Socket, IB or Libfabric)");
    } else if (name == "NCCL_SOCKET_NTHREADS")
      e.socket_nthreads = static_cast<int>(parse_int(name, value, 1, 16));
    else if (name == "NCCL_NSOCKS_PERTHREAD")
      e.nsocks_perthread = static_cast<int>(parse_int(name, value, 1, 64));
    else if (name == "NCCL_BUFFSIZE")
      e.buffsize = parse_int(name, value, 1, int64_t{1} << 40);
    else if (name == "NCCL_MIN_NCHANNELS")
      e.min_nchannels = static_cast<int>(parse_int(name, value, 1, kMaxChannels));
    else if (name == "NCCL_MAX_NCHANNELS")
      e.max_nchannels = static_cast<int>(parse_int(name, value, 1, kMaxChannels));
    else if (name == "NCCL_HOSTID") {
      if (value.empty()) throw SpecError(key_of(name), "NCCL_HOSTID is empty");
      e.hostid = value;
    }
  }
  if (e.socket_nthreads && e.nsocks_perthread && e.socket_nthreads * e.nsocks_perthread > 64)
    throw SpecError(key_of("NCCL_NSOCKS_PERTHREAD"), "NCCL_SOCKET_NTHREADS x NCCL_NSOCKS_PERTHREAD = " +
                                                         std::to_string(e.socket_nthreads * e.nsocks_perthread) +
                                                         " exceeds NCCL's 64 sockets");
  return e;
}

SocketThreads socket_threads(const NcclEnv& env, const std::string& eth_driver) {
  SocketThreads t;
  if (eth_driver == "ena")
    t = {2, 8};
  else if (eth_driver == "gve")
    t = {4, 4};
  if (env.socket_nthreads) t.threads = env.socket_nthreads;
  if (env.nsocks_perthread) t.socks_per_thread = env.nsocks_perthread;
  if (t.threads * t.socks_per_thread > 64) t.socks_per_thread = 64 / t.threads;
  return t;
}

}  // namespace models::nccl
