#include "models/nccl/diagnosis.hpp"

#include <algorithm>
#include <cstdio>

#include "models/error.hpp"
#include "models/hw/instance.hpp"
#include "models/nccl/example_tuner.hpp"
#include "models/nccl/tuner_tables.hpp"

namespace models::nccl {
namespace {

// Bootstrap is a handful of small TCP messages between ranks: well under a second when every rank
// starts together (0.001-0.7 s on the calibration machine, scenarios/validation/h200x4/measured). Tens of
// seconds means ranks waited for peers that had not started yet.
constexpr double kLongBootstrapS = 10.0;
// NCCL's bandwidth on NVLink comes from many channels (24 on 4 x H200 in the calibration logs);
// two channels is what it opens for one NIC.
constexpr int kFewChannels = 4;

std::string fmt_s(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f s", s);
  return buf;
}

bool any_kind(const readers::NcclLogReport& r, const std::string& prefix, const std::string& suffix = "") {
  for (const auto& [k, n] : r.transport_kinds)
    if (k.rfind(prefix, 0) == 0 &&
        (suffix.empty() ||
         (k.size() >= suffix.size() && k.compare(k.size() - suffix.size(), suffix.size(), suffix) == 0)))
      return true;
  return false;
}

std::string kinds_list(const readers::NcclLogReport& r) {
  std::string s;
  for (const auto& [k, n] : r.transport_kinds) s += (s.empty() ? "" : ", ") + k;
  return s;
}

}  // namespace

const char* severity_name(Severity s) {
  switch (s) {
    case Severity::Info: return "info";
    case Severity::Warning: return "warning";
    case Severity::Critical: return "critical";
  }
  return "?";
}

int instance_gpus(const std::string& instance) {
  if (instance.empty()) return 0;
  try {
    return models::hw::find_instance(instance).gpus;
  } catch (const models::SpecError&) {
    return 0;
  }
}

std::vector<Finding> diagnose_log(const readers::NcclLogReport& r, const std::string& instance) {
  std::vector<Finding> out;
  const std::string platform = instance.empty() ? r.platform : instance;
  const bool socket_used = r.network == "Socket" || any_kind(r, "NET/Socket");
  const std::string plugin = !r.ofi_version.empty()         ? r.ofi_version
                             : !r.net_plugin_loaded.empty() ? r.net_plugin_loaded
                                                            : r.net_plugin_requested;

  // 1. The external network plugin failed and NCCL fell back to its built-in TCP sockets.
  if (r.plugin_failed) {
    Finding f;
    f.severity = socket_used ? Severity::Critical : Severity::Warning;
    f.id = "net-plugin-failed";
    f.message = "the network plugin" + (plugin.empty() ? std::string() : " (" + plugin + ")") +
                " failed to initialise: " +
                (r.plugin_failure.empty() ? std::string("see the WARN lines") : r.plugin_failure.front()) + ".";
    if (socket_used)
      f.message +=
          " NCCL fell back to TCP sockets (Using network Socket): every byte between ranks goes "
          "through the kernel TCP stack of the ordinary interface instead of EFA, typically an "
          "order of magnitude slower and with far higher latency.";
    int nics = -1;  // EFA interfaces of the instance, from the catalog (-1: unknown instance)
    if (instance_gpus(platform) > 0) nics = models::hw::find_instance(platform).nics;
    if (nics == 0)
      f.advice = platform + " has no EFA interface in the catalog: use an instance type with EFA, ";
    else
      f.advice =
          (nics > 0 ? platform + " has " + std::to_string(nics) + " EFA interface(s): " : std::string()) +
          "make the EFA devices visible to the pod (resources.limits vpc.amazonaws.com/efa, the EFA device plugin), ";
    f.advice += "check FI_PROVIDER=efa; simulate the difference with placement.efa_plugin_ok = true/false";
    out.push_back(f);
  }

  // 2. Every rank is alone on its NCCL node: separate pods (no shared IPC) or intra-node transports off.
  if (r.nranks > 1 && r.nnodes == r.nranks && r.local_ranks == 1) {
    const int host_gpus = instance_gpus(platform);
    Finding f;
    f.id = "ranks-isolated";
    f.message = "each of the " + std::to_string(r.nranks) + " ranks is alone on its NCCL node (nNodes " +
                std::to_string(r.nnodes) + " = nRanks, localRanks 1), so all their traffic goes over the network (" +
                (r.transport_kinds.empty() ? r.network : kinds_list(r)) + ").";
    // The variables first: with P2P and SHM both off NCCL has no path inside a host but the
    // network, whatever the pods; and one process driving every rank is one pod.
    // One process holding a communicator of every rank (nccl-tests -g N), not just the one
    // process a rank's own log shows.
    const bool one_process = r.processes == 1 && static_cast<int>(r.comms.size()) >= r.nranks;
    const readers::LogEnvVar* p2p = r.find_env("NCCL_P2P_DISABLE");
    const readers::LogEnvVar* shm = r.find_env("NCCL_SHM_DISABLE");
    if (p2p && p2p->value == "1" && shm && shm->value == "1") {
      f.severity = Severity::Info;
      f.message +=
          " NCCL_P2P_DISABLE=1 (line " + std::to_string(p2p->line) + ") and NCCL_SHM_DISABLE=1 (line " +
          std::to_string(shm->line) +
          ") leave NCCL no path between GPUs of one host but the network: the environment isolates the "
          "ranks" +
          (one_process ? std::string(" (one process drives them all, so pods are not the cause)") : std::string()) +
          ".";
      f.advice =
          "unset NCCL_P2P_DISABLE and NCCL_SHM_DISABLE unless they work around a known fault (see "
          "intra-node-transports-disabled)";
    } else if (const readers::LogEnvVar* hostid = r.find_env("NCCL_HOSTID")) {
      // NCCL_HOSTID replaces the host's identity in NCCL's host hash (src/misc/utils.cc
      // getHostHash), from which NCCL counts its nodes (src/init.cc): ranks with different values
      // are different nodes whatever host or pod they share. One rank's log shows its own value;
      // nNodes = nRanks says every rank had one of its own.
      f.severity = Severity::Warning;
      f.message +=
          " NCCL_HOSTID=" + hostid->value + " (" +
          (hostid->source == "environment" ? std::string("set by environment") : "added by " + hostid->source) +
          ", line " + std::to_string(hostid->line) +
          ") replaces the host's identity NCCL counts nodes by: with a value per rank, every rank is a "
          "node of its own, even on one host" +
          (one_process ? std::string(" (one process drives them all, so pods are not the cause)")
                       : std::string(" (pods or IPC namespaces need not be the cause)")) +
          ".";
      f.advice =
          "unset NCCL_HOSTID, or give every rank of one host the same value; the scenario --scenario writes leaves "
          "it out and models the log's nodes with its placement";
    } else if (one_process) {
      f.severity = Severity::Warning;
      f.message +=
          " One process drives every rank, so they share a host and a pod: NCCL still counted each as "
          "its own node (a per-rank NCCL_HOSTID, or a topology it could not read).";
      f.advice = "check NCCL_HOSTID and the variables of the run; compare with the log of a run without them";
    } else if (host_gpus == 1) {
      f.severity = Severity::Info;
      f.message += " " + platform + " has one GPU per host, so the network is the only path.";
      f.advice =
          "expected on one-GPU instances; an instance with several NVLink-connected GPUs keeps most traffic off the "
          "network";
    } else {
      f.severity = Severity::Warning;
      f.message += std::string(" If several of these ranks share a host") +
                   (host_gpus > 1 ? " (" + platform + " has " + std::to_string(host_gpus) + " GPUs)" : std::string()) +
                   ", NCCL cannot see it: a pod off the host's network has a hostname of its own, which NCCL's "
                   "host hash is made of, so pods of one host look like different hosts and NVLink/PCIe P2P "
                   "and SHM are not used between them (hostIPC alone does not change that).";
      f.advice =
          "run one pod per host with all its GPUs (nvidia.com/gpu: N, numProcPerNode: N): NVLink between them; "
          "or give the pods hostNetwork: true and hostIPC: true, which makes them one NCCL host with SHM "
          "through /dev/shm between pods; compare the layouts with `commsim compare` "
          "(placement.pods_per_node / gpus_per_pod / host_network)";
    }
    out.push_back(f);
  }

  // 3. P2P or SHM switched off by the environment.
  for (const char* name : {"NCCL_P2P_DISABLE", "NCCL_SHM_DISABLE"}) {
    const readers::LogEnvVar* e = r.find_env(name);
    if (e && e->value == "1") {
      Finding f;
      f.severity = Severity::Warning;
      f.id = "intra-node-transports-disabled";
      f.message = std::string(name) + "=1 (set by " + e->source + ", line " + std::to_string(e->line) +
                  "): GPUs of one host cannot use " +
                  (std::string(name) == "NCCL_P2P_DISABLE" ? "NVLink/PCIe P2P" : "shared host memory") + ".";
      f.advice = std::string("unset ") + name + " unless it works around a known fault";
      out.push_back(f);
    }
  }

  // 4. The protocol forced by a plugin or the environment.
  if (const readers::LogEnvVar* e = r.find_env("NCCL_PROTO")) {
    Finding f;
    f.severity = Severity::Warning;
    f.id = "protocol-forced";
    f.message = "NCCL_PROTO=" + e->value + " " +
                (e->source == "environment" ? "set by the environment" : "added by the " + e->source + " plugin") +
                (r.forced_protocol_reason.empty() ? std::string() : " (" + r.forced_protocol_reason + ")") +
                ": the other protocols are disabled for every collective, NVLink ones included, so small messages pay "
                "Simple's per-hop latency instead of LL's.";
    f.advice =
        "acceptable for large transfers over EFA; for latency-bound traffic inside a node it costs, simulate with and "
        "without [nccl.env] NCCL_PROTO";
    out.push_back(f);
  }

  // 4b. NCCL's example tuner plugin (example_tuner.hpp): it answers 1 channel before it looks at
  // its rows, and NCCL keeps any non-zero answer, so what no row matches runs on one channel.
  if (const readers::LogEnvVar* e = r.find_env("NCCL_TUNER_PLUGIN"); e && names_example_tuner(e->value)) {
    const int release = parse_nccl_version(r.nccl_version);
    Finding f;
    f.severity = Severity::Warning;
    f.id = "example-tuner";
    f.message = "NCCL_TUNER_PLUGIN=" + e->value + " (line " + std::to_string(e->line) +
                ") loads NCCL's example tuner plugin: " +
                (release > 0 && release < kExampleTunerCsvSince
                     ? std::string("in NCCL ") + nccl_version_text(release) +
                           " it runs every collective as Ring/Simple on one channel."
                     : std::string("every collective none of its rows matches, and every row whose channels are -1, "
                                   "runs on one channel (the plugin answers 1 before it matches; NCCL keeps it)."));
    f.advice =
        "give each row a channel count (0 keeps NCCL's own) and a row for every size the job uses, or unset "
        "NCCL_TUNER_PLUGIN; simulate with its file as [nccl.env] NCCL_TUNER_CONFIG_FILE beside the scenario";
    out.push_back(f);
  }

  // 5. P2P in read mode.
  if (any_kind(r, "P2P/", "/read")) {
    Finding f;
    f.severity = Severity::Info;
    f.id = "p2p-read";
    f.message = "P2P in read mode (" + kinds_list(r) +
                "): the receiving GPU pulls data from its peer. NCCL chooses it "
                "by default between A100s (SM80) on NVLink.";
    f.advice = "NCCL_P2P_READ_ENABLE=0 forces write mode; measure both with nccl-tests before changing it";
    out.push_back(f);
  }

  // 6. GPUDirect RDMA off on a real RDMA network (Socket cannot do GDR, so it is not reported there).
  if (any_kind(r, "NET/") && !socket_used && !any_kind(r, "NET/", "/GDRDMA")) {
    Finding f;
    f.severity = Severity::Warning;
    f.id = "gdr-off";
    f.message =
        "GPUDirect RDMA is off (no /GDRDMA in the network transports): data is staged through host memory on both "
        "sides.";
    f.advice = "check FI_EFA_USE_DEVICE_RDMA=1, NCCL_NET_GDR_LEVEL and that the NIC and GPU share a PCIe switch";
    out.push_back(f);
  }

  // 7. Few channels. A ring that crosses the network has the channels its NICs give (NCCL's
  // search sizes every ring of a communicator alike), so P2P links on the same ring are not the
  // cause then: only a communicator inside one NCCL node blames NVLink.
  if (!r.channels.empty() && r.channels.front().coll > 0 && r.channels.front().coll < kFewChannels) {
    const bool net = any_kind(r, "NET/") && r.nnodes > 1;
    const bool p2p = any_kind(r, "P2P/") && !net;
    Finding f;
    f.severity = p2p ? Severity::Warning : Severity::Info;
    f.id = "few-channels";
    std::string net_kinds;
    for (const auto& [k, n] : r.transport_kinds)
      if (k.rfind("NET/", 0) == 0) net_kinds += (net_kinds.empty() ? "" : ", ") + k;
    f.message = std::to_string(r.channels.front().coll) + " collective channels (" +
                std::to_string(r.channels.front().p2p) +
                " p2p): each channel is one ring driven by one GPU block, so " +
                (p2p   ? "NVLink runs far below its bandwidth"
                 : net ? "bandwidth per rank is bounded by these few rings: they cross the network (" + net_kinds +
                             ") between the " + std::to_string(r.nnodes) +
                             " NCCL nodes, whose NICs set the channel count for the whole ring"
                       : "bandwidth per rank is bounded by these few rings (normal for one NIC per rank)") +
                ".";
    f.advice = p2p ? "check NCCL_MAX_NCHANNELS / NCCL_MIN_NCHANNELS and the topology NCCL detected"
                   : "more NICs per rank (one pod with several GPUs and EFA interfaces) give NCCL more channels";
    out.push_back(f);
  }

  // 8. Very long bootstrap.
  double boot = r.bootstrap_total_s.value_or(0);
  for (const auto& t : r.init_timings) {
    auto it = t.parts_s.find("bootstrap");
    if (it != t.parts_s.end()) boot = std::max(boot, it->second);
  }
  if (boot > kLongBootstrapS) {
    Finding f;
    f.severity = Severity::Warning;
    f.id = "long-bootstrap";
    f.message =
        "NCCL init spent " + fmt_s(boot) + " in bootstrap" +
        (r.bootstrap_recv_s ? " (" + fmt_s(*r.bootstrap_recv_s) + " waiting to receive from peers)" : std::string()) +
        ": the other ranks started late (image pull, pod scheduling, slow data loading). This is start-up time, not a "
        "communication cost of training.";
    f.advice = "pre-pull images and start all pods together (gang scheduling); it does not change step time";
    out.push_back(f);
  }

  // 9. Other WARN lines.
  if (!r.warnings.empty() && !r.plugin_failed) {
    Finding f;
    f.severity = Severity::Warning;
    f.id = "nccl-warnings";
    f.message = std::to_string(r.warnings.size()) + " NCCL WARN line(s), the first: " + r.warnings.front();
    f.advice = "read the WARN lines: NCCL prints them when it gives up a faster path";
    out.push_back(f);
  }

  std::stable_sort(out.begin(), out.end(), [](const Finding& a, const Finding& b) {
    return static_cast<int>(a.severity) > static_cast<int>(b.severity);
  });
  return out;
}

}  // namespace models::nccl
