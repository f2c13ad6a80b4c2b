// The NCCL environment: every modelled variable parsed (the one list, kModelled). The names of
// the others (timing-neutral, documented but not modelled), for typos and notes: env_names.cpp.
#include "models/nccl/env.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <sstream>

#include "models/error.hpp"
#include "models/nccl/tuner_tables.hpp"
#include "models/suggest.hpp"

namespace models::nccl {

namespace {
std::string key_of(const std::string& name) { return "nccl.env." + name; }

// NCCL reads integers with strtoll(str, NULL, 0) (src/misc/param.cc): decimal, 0x hex, 0 octal.
// The one integer parser of the NCCL environment.
int64_t parse_int(const std::string& name, const std::string& value, int64_t lo, int64_t hi) {
  const std::string expected = " (expected an integer from " + std::to_string(lo) + " to " + std::to_string(hi) + ")";
  errno = 0;
  char* end = nullptr;
  long long v = std::strtoll(value.c_str(), &end, 0);
  if (value.empty() || errno != 0 || *end != '\0')
    throw SpecError(key_of(name), name + "='" + value + "' is not an integer" + expected);
  if (v < lo || v > hi) throw SpecError(key_of(name), name + "=" + value + " is out of range" + expected);
  return v;
}

bool parse_flag(const std::string& name, const std::string& value) { return parse_int(name, value, 0, 1) == 1; }

int parse_channels(const std::string& name, const std::string& value) {
  return static_cast<int>(parse_int(name, value, 1, kMaxChannels));
}

bool same_name(const std::string& a, const char* b) {
  const std::string n = b;
  return a.size() == n.size() && std::equal(a.begin(), a.end(), n.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

// strtok_r's pieces of `text` between `sep`s (empty pieces dropped, as strtok does).
std::vector<std::string> tokens(const std::string& text, char sep) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  for (std::string item; std::getline(ss, item, sep);)
    if (!item.empty()) out.push_back(item);
  return out;
}

// The collectives NCCL_ALGO/NCCL_PROTO prefixes may name (by ops.hpp nccl_func_name).
constexpr CollOp kFuncOps[] = {CollOp::Broadcast, CollOp::Reduce, CollOp::AllGather, CollOp::ReduceScatter,
                               CollOp::AllReduce};

// NCCL_ALGO / NCCL_PROTO into NCCL's enable table (0 off, 1 on; the LL128 column keeps 2, NCCL's
// own rule, where the value does not name it), per collective (src/graph/tuning.cc parseList):
// - before 2.24: one comma-separated list, or "^" and the names to leave out; every entry the
//   list does not turn on is off (an empty value turns everything off);
// - from 2.24: entries "[FUNC:]LIST" separated by ";", only the first without a FUNC (it then
//   sets every collective); each entry resets its collectives' row to off (on with "^") before
//   applying its names; an empty value changes nothing.
// A name NCCL does not know is an error (NCCL 2.24+ refuses it; older releases ignored it).
template <std::size_t N, typename T>
void parse_list(const std::string& name, const std::string& value, const std::array<const char*, N>& names,
                std::array<std::array<T, N>, TuningEnv::kOps>& table, int version) {
  std::string all;
  for (std::size_t i = 0; i < N; ++i) all += std::string(i ? ", " : "") + names[i];
  const bool prefixed = nccl_release_or_default(version) >= nccl_version_number(24, 0);
  const std::string expected = " (expected a comma-separated list of " + all + ", optionally starting with ^" +
                               (prefixed ? "; or FUNC:LIST entries separated by ;, FUNC one of Broadcast, Reduce, "
                                           "AllGather, ReduceScatter, AllReduce)"
                                         : ")");
  auto apply = [&](const std::string& list, const std::vector<CollOp>& ops) {
    std::string items = list;
    const bool negate = !items.empty() && items[0] == '^';
    if (negate) items.erase(0, 1);
    for (CollOp op : ops) table[static_cast<int>(op)].fill(static_cast<T>(negate ? 1 : 0));
    for (std::string item : tokens(items, ',')) {
      item.erase(0, item.find_first_not_of(" \t"));
      item.erase(item.find_last_not_of(" \t") + 1);
      std::size_t i = 0;
      while (i < N && !same_name(item, names[i])) ++i;
      if (i == N) {
        const bool per_func = item.find(':') != std::string::npos || item.find(';') != std::string::npos;
        throw SpecError(key_of(name), "unknown value '" + item + "' in " + name +
                                          (per_func && !prefixed ? " (the per-collective form FUNC:LIST came with NCCL "
                                                                   "2.24; expected nccl.version 2.24 or later, or a "
                                                                   "comma-separated list of " +
                                                                       all + ")"
                                                                 : expected));
      }
      for (CollOp op : ops) table[static_cast<int>(op)][i] = static_cast<T>(negate ? 0 : 1);
    }
  };
  std::vector<CollOp> every;
  for (int op = 0; op < TuningEnv::kOps; ++op) every.push_back(static_cast<CollOp>(op));
  if (!prefixed) {
    apply(value, every);
    return;
  }
  const std::vector<std::string> entries = tokens(value, ';');
  for (std::size_t e = 0; e < entries.size(); ++e) {
    const std::vector<std::string> parts = tokens(entries[e], ':');
    if (parts.empty()) continue;
    if (parts.size() == 1) {
      if (e > 0)
        throw SpecError(key_of(name),
                        name + "='" + value + "': every entry after the first needs a FUNC: prefix" + expected);
      apply(parts[0], every);
      continue;
    }
    std::vector<CollOp> ops;
    for (CollOp op : kFuncOps)
      if (same_name(parts[0], nccl_func_name(op))) ops.push_back(op);
    if (ops.empty()) throw SpecError(key_of(name), "unknown collective '" + parts[0] + "' in " + name + expected);
    apply(parts[1], ops);
  }
}

constexpr std::array<const char*, 7> kAlgoNames = {"Tree",         "Ring", "PAT",     "CollNetDirect",
                                                   "CollNetChain", "NVLS", "NVLSTree"};  // nccl::Algo order
constexpr std::array<const char*, 3> kProtoNames = {"LL", "LL128", "Simple"};            // nccl::Proto order

// The modelled variables, each with how it is read: the one list (modelled_nccl_variables()).
using Reader = void (*)(NcclEnv& e, const std::string& name, const std::string& value);
struct Modelled {
  const char* name;
  Reader read;
};
const Modelled kModelled[] = {
    {"NCCL_ALGO",
     [](NcclEnv& e, const std::string& n, const std::string& v) {
       parse_list(n, v, kAlgoNames, e.tuning.algo_enabled, e.version);
       e.tuning.algo_value = v;
       e.tuning.algo_set = true;
     }},
    {"NCCL_BUFFSIZE",
     [](NcclEnv& e, const std::string& n, const std::string& v) { e.buffsize = parse_int(n, v, 1, int64_t{1} << 40); }},
    {"NCCL_COLLNET_ENABLE",
     [](NcclEnv& e, const std::string& n, const std::string& v) { e.collnet_enable = parse_flag(n, v); }},
    {"NCCL_CUMEM_ENABLE",
     [](NcclEnv& e, const std::string& n, const std::string& v) { e.cumem_enable = parse_flag(n, v); }},
    {"NCCL_HOSTID",
     [](NcclEnv& e, const std::string& n, const std::string& v) {
       if (v.empty()) throw SpecError(key_of(n), "NCCL_HOSTID is empty");
       e.hostid = v;
     }},
    {"NCCL_IB_DISABLE",
     [](NcclEnv& e, const std::string& n, const std::string& v) { e.ib_disable = parse_flag(n, v); }},
    {"NCCL_MAX_CTAS",
     [](NcclEnv& e, const std::string& n, const std::string& v) { e.max_ctas = parse_channels(n, v); }},
    {"NCCL_MAX_NCHANNELS",
     [](NcclEnv& e, const std::string& n, const std::string& v) { e.max_nchannels = parse_channels(n, v); }},
    {"NCCL_MIN_CTAS",
     [](NcclEnv& e, const std::string& n, const std::string& v) { e.min_ctas = parse_channels(n, v); }},
    {"NCCL_MIN_NCHANNELS",
     [](NcclEnv& e, const std::string& n, const std::string& v) { e.min_nchannels = parse_channels(n, v); }},
    {"NCCL_MNNVL_ENABLE",
     [](NcclEnv& e, const std::string& n, const std::string& v) {
       // src/init.cc: 0 off, 1 forced, 2 (default) when the communicator spans hosts of one NVLink
       // fabric (ncclMnnvlCheck in src/mnnvl.cc then needs IMEX channels).
       e.mnnvl_enable = parse_int(n, v, 0, 2) != 0;
     }},
    {"NCCL_NET",
     [](NcclEnv& e, const std::string& n, const std::string& v) {
       // Plugin names as NCCL logs them ("Using network Socket", "Loaded net plugin Libfabric").
       for (NetPlugin p : {NetPlugin::Socket, NetPlugin::IB, NetPlugin::Libfabric})
         if (v == net_plugin_name(p)) e.net = p;
       if (v == "AWS Libfabric" || v == "OFI") e.net = NetPlugin::Libfabric;
       if (!e.net) throw SpecError(key_of(n), "unknown network '" + v + "' (expected Socket, IB or Libfabric)");
     }},
    {"NCCL_NET_DISABLE_INTRA",
     [](NcclEnv& e, const std::string& n, const std::string& v) { e.net_disable_intra = parse_flag(n, v); }},
    {"NCCL_NET_GDR_LEVEL",
     [](NcclEnv& e, const std::string& n, const std::string& v) { e.net_gdr_level = parse_path_level(v, key_of(n)); }},
    {"NCCL_NSOCKS_PERTHREAD",
     [](NcclEnv& e, const std::string& n, const std::string& v) {
       e.nsocks_perthread = static_cast<int>(parse_int(n, v, 1, 64));
     }},
    {"NCCL_NVLS_ENABLE",
     [](NcclEnv& e, const std::string& n, const std::string& v) {
       // 0 off; 1 on; 2 (default) on where the driver reports multicast (hw::NodeSpec::nvls).
       e.nvls_enable = parse_int(n, v, 0, 2) != 0;
     }},
    {"NCCL_NVLS_CHUNKSIZE",
     [](NcclEnv& e, const std::string& n, const std::string& v) {
       e.nvls_chunksize = parse_int(n, v, 1, int64_t{1} << 30);
     }},
    {"NCCL_NVLSTREE_MAX_CHUNKSIZE",
     [](NcclEnv& e, const std::string& n, const std::string& v) {
       e.nvlstree_max_chunksize = parse_int(n, v, -2, int64_t{1} << 30);
     }},
    {"NCCL_NVLS_NCHANNELS",
     [](NcclEnv& e, const std::string& n, const std::string& v) { e.tuning.nvls_channels = parse_channels(n, v); }},
    {"NCCL_P2P_DISABLE",
     [](NcclEnv& e, const std::string& n, const std::string& v) { e.p2p_disable = parse_flag(n, v); }},
    {"NCCL_P2P_LL_THRESHOLD",
     [](NcclEnv& e, const std::string& n, const std::string& v) {
       e.p2p_ll_threshold = parse_int(n, v, 0, int64_t{1} << 30);
     }},
    {"NCCL_P2P_LEVEL",
     [](NcclEnv& e, const std::string& n, const std::string& v) { e.p2p_level = parse_path_level(v, key_of(n)); }},
    {"NCCL_P2P_READ_ENABLE",
     [](NcclEnv& e, const std::string& n, const std::string& v) { e.p2p_read_enable = parse_flag(n, v); }},
    {"NCCL_P2P_USE_CUDA_MEMCPY",
     [](NcclEnv& e, const std::string& n, const std::string& v) { e.p2p_use_cuda_memcpy = parse_flag(n, v); }},
    {"NCCL_PROTO",
     [](NcclEnv& e, const std::string& n, const std::string& v) {
       parse_list(n, v, kProtoNames, e.tuning.proto_state, e.version);
       e.tuning.proto_value = v;
       e.tuning.proto_set = true;
     }},
    {"NCCL_PAT_ENABLE",
     [](NcclEnv& e, const std::string& n, const std::string& v) {
       e.tuning.pat_enable = static_cast<int>(parse_int(n, v, 0, 2));
     }},
    {"NCCL_PXN_DISABLE",
     [](NcclEnv& e, const std::string& n, const std::string& v) { e.pxn_disable = parse_flag(n, v); }},
    {"NCCL_SHM_DISABLE",
     [](NcclEnv& e, const std::string& n, const std::string& v) { e.shm_disable = parse_flag(n, v); }},
    {"NCCL_SOCKET_NTHREADS",
     [](NcclEnv& e, const std::string& n,
        const std::string& v) { e.socket_nthreads = static_cast<int>(parse_int(n, v, 0, 16)); }},
    {"NCCL_TUNER_PLUGIN",
     [](NcclEnv& e, const std::string&, const std::string& v) {
       // src/plugin/tuner.cc: "none" (any case) loads no tuner; any other value names a library,
       // and NCCL falls back to the net plugin's tuner when it cannot open it (models/nccl/ofi_tuner.hpp).
       std::string l = v;
       for (char& c : l) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
       e.tuning.tuner_plugin = l != "none";
       e.tuning.example_tuner = names_example_tuner(v);
     }},
    // Read by NCCL's example tuner plugin (example_tuner.hpp); the scenario loader reads the file.
    {"NCCL_TUNER_CONFIG_FILE", [](NcclEnv&, const std::string&, const std::string&) {}},
    // aws-ofi-nccl's own settings (src/nccl_ofi_param.h, prefix OFI_NCCL_): its tuner's type, and
    // the rail count that marks a job of mixed hosts (its tuner then falls back to NCCL's).
    {"OFI_NCCL_FORCE_NUM_RAILS",
     [](NcclEnv& e, const std::string& n, const std::string& v) {
       parse_int(n, v, 1, 64);
       e.tuning.ofi_tuner_fallback = true;
     }},
    {"OFI_NCCL_TUNER_TYPE",
     [](NcclEnv& e, const std::string& n, const std::string& v) {
       std::string l = v;
       for (char& c : l) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
       if (l == "internal") e.tuning.ofi_tuner_fallback = true;
       else if (l == "model")
         throw SpecError(key_of(n), "OFI_NCCL_TUNER_TYPE=Model: aws-ofi-nccl's model-based tuner is not modelled "
                                    "(Region, its default, and Internal are)");
       else if (l != "region")
         throw SpecError(key_of(n), "unknown value '" + v + "' in " + n + " (expected Internal, Region or Model)");
     }},
};
}  // namespace

const std::vector<std::string>& modelled_nccl_variables() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const Modelled& m : kModelled) out.emplace_back(m.name);
    return out;
  }();
  return names;
}

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

int max_channels_of(int nccl_version) {
  return nccl_release_or_default(nccl_version) >= nccl_version_number(25, 0) ? kMaxChannels : 32;
}

NcclEnv parse_nccl_env(const std::map<std::string, std::string>& env, int nccl_version,
                       const std::string& tuner_config_text) {
  check_nccl_env_names(env);
  NcclEnv e;
  e.raw = env;
  e.version = nccl_version;
  for (const auto& [name, value] : env)
    for (const Modelled& m : kModelled)
      if (name == m.name) m.read(e, name, value);
  // NCCL loads tuner plugins from 2.19 (src/plugin/tuner.cc); the example's rows, from 2.27.5.
  if (nccl_release_or_default(nccl_version) < kExampleTunerSince) e.tuning.example_tuner = false;
  if (e.tuning.example_tuner && !tuner_config_text.empty()) {
    const auto file = env.find("NCCL_TUNER_CONFIG_FILE");
    e.tuning.example_rows =
        parse_example_tuner_config(tuner_config_text, file == env.end() ? "nccl_tuner.conf" : file->second);
  }
  if (e.socket_nthreads && e.nsocks_perthread && *e.socket_nthreads * e.nsocks_perthread > 64)
    throw SpecError(key_of("NCCL_NSOCKS_PERTHREAD"), "NCCL_SOCKET_NTHREADS x NCCL_NSOCKS_PERTHREAD = " +
                                                         std::to_string(*e.socket_nthreads * e.nsocks_perthread) +
                                                         " exceeds NCCL's 64 sockets");
  // The channel limits, both pairs at once (src/graph/connect.cc ncclTopoPostset, 2.28.9):
  //   nChannels = min(ncclMaxNchannels(), nChannels, config.maxCTAs), then copied up to
  //   max(ncclMinNchannels(), config.minCTAs); NCCL_MIN/MAX_CTAS set config.min/maxCTAs (init.cc).
  // Each within MAXCHANNELS of the release (connect.cc ncclMin/MaxNchannels, init.cc "cap it to").
  const int cap = max_channels_of(nccl_version);
  if (e.min_ctas || e.min_nchannels) e.tuning.min_channels = std::min(cap, std::max(e.min_ctas, e.min_nchannels));
  if (e.max_ctas || e.max_nchannels)
    e.tuning.max_channels = std::min({cap, e.max_ctas ? e.max_ctas : cap, e.max_nchannels ? e.max_nchannels : cap});
  return e;
}

SocketThreads socket_threads(const NcclEnv& env, const std::string& eth_driver, bool pod_network_namespace) {
  SocketThreads t;
  if (pod_network_namespace)
    ;  // a veth has no PCI device, so no vendor to detect: NCCL's default, no helper thread
  else if (eth_driver == "ena")
    t = {2, 8};
  else if (eth_driver == "gve")
    t = {4, 1};
  if (env.socket_nthreads) t.threads = *env.socket_nthreads;
  if (env.nsocks_perthread) t.socks_per_thread = env.nsocks_perthread;
  if (t.threads > 0 && t.threads * t.socks_per_thread > 64) t.socks_per_thread = 64 / t.threads;
  return t;
}

}  // namespace models::nccl
