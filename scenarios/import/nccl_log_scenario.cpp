#include "scenarios/import/nccl_log_scenario.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "models/error.hpp"
#include "models/hw/instance.hpp"
#include "models/model/model_shape.hpp"
#include "models/nccl/diagnosis.hpp"
#include "models/nccl/env_names.hpp"
#include "models/nccl/tuner_tables.hpp"
#include "scenarios/import/scenario_writer.hpp"
#include "scenarios/load/loader.hpp"

namespace scenarios {

std::string preset_for_parameters(long long parameters) {
  if (parameters <= 0) return "";
  for (const auto& name : models::model::preset_names()) {
    models::ModelSpec spec;
    spec.preset = name;
    try {
      const double total = static_cast<double>(models::model::resolve_model(spec).total_params());
      if (std::abs(total - static_cast<double>(parameters)) <= 0.005 * static_cast<double>(parameters)) return name;
    } catch (const models::SpecError&) {
    }
  }
  return "";
}

std::string scenario_from_nccl_log(const models::readers::NcclLogReport& r, const LogScenarioOptions& options) {
  using models::nccl::instance_gpus;
  const std::string instance = !options.instance.empty() ? options.instance : r.platform;
  const SourcePos at{r.source, 1, 1};
  if (instance.empty())
    throw UserError(
        at,
        "the log does not name the instance (no aws-ofi-nccl platform line); "
        "pass --instance NAME (expected one of: " +
            [] {
              std::string s;
              for (const auto& n : models::hw::instance_names()) s += (s.empty() ? "" : ", ") + n;
              return s;
            }() +
            ")");
  const int host_gpus = instance_gpus(instance);
  if (host_gpus == 0) {
    try {
      models::hw::find_instance(instance);
    } catch (const models::SpecError& e) {
      throw UserError(at, e.what());
    }
  }
  if (r.nranks == 0)
    throw UserError(at,
                    "the log has no communicator line ('comm 0x... rank R nRanks N nNodes M localRanks L', or "
                    "in older versions 'comm 0x... rank R nranks N cudaDev D ... - Init COMPLETE') (expected a log "
                    "of NCCL_DEBUG=INFO with the INIT subsystem, NCCL_DEBUG_SUBSYS unset or including INIT)");
  if (r.nnodes == 0)
    throw UserError(at, "NCCL " + (r.nccl_version.empty() ? std::string("before 2.20") : r.nccl_version) +
                            " prints no nNodes/localRanks, and the log shows " + std::to_string(r.ranks_seen) +
                            " of the " + std::to_string(r.nranks) +
                            " ranks' 'Init COMPLETE' lines, so the nodes cannot be counted from their hosts "
                            "(expected the log of every rank, with the host:pid:tid prefix, or a log of NCCL 2.20 "
                            "or later)");

  ScenarioWriter w;
  const std::string file = std::filesystem::path(r.source).filename().string();
  w.header("Written by `commsim nccl-log " + file + " --scenario`: what the log shows, as a scenario.");
  w.header("Values the log cannot show keep the scenario defaults; check them before drawing conclusions.");
  w.set("", "name", "from NCCL log " + file);
  // The release picks the tuner's tables (models/nccl/tuner_tables.hpp); one older than they go is
  // left to the default, with a note.
  if (const int version = models::nccl::parse_nccl_version(r.nccl_version);
      models::nccl::nccl_version_in_tables(version))
    w.set("nccl", "version", r.nccl_version.substr(0, r.nccl_version.find('+')), "the log's NCCL banner");
  else if (version > 0)
    w.header("note: NCCL " + r.nccl_version + " is outside the tuner tables commsim carries (2.17 to 2.30); the " +
             "default release (" + models::nccl::nccl_version_text(0) + ") picks the algorithms");

  // Where the ranks run. NCCL counts a "node" per host hash; pods that do not share the IPC
  // namespace count as separate nodes even on one host. We pack NCCL nodes onto as few hosts as
  // the instance allows, which is what a scheduler does with 1-GPU pods on a multi-GPU host
  // (seeds/000: four pods on one p4d.24xlarge).
  const auto* p2p_off = r.find_env("NCCL_P2P_DISABLE");
  const auto* shm_off = r.find_env("NCCL_SHM_DISABLE");
  const bool env_isolates = p2p_off && p2p_off->value == "1" && shm_off && shm_off->value == "1";
  // NCCL_HOSTID (src/misc/utils.cc getHostHash) sets the host hash NCCL counts nodes by, per
  // process; commsim takes it per node (models/nccl/transport.hpp), so one rank's value copied into
  // [nccl.env] would join every pod of a node into one NCCL node, against the log's nNodes. It is
  // left out of [nccl.env] (a comment there says so); the placement below gives the log's nodes.
  const auto* hostid = r.find_env("NCCL_HOSTID");
  const int local = std::max(1, r.local_ranks);
  const int nnodes = std::max(1, r.nnodes);
  // A host must hold one NCCL node's ranks, one GPU each: a smaller instance could not have run it.
  if (host_gpus > 0 && local > host_gpus)
    throw UserError(options.instance.empty() ? at : SourcePos{"--instance", 1, 1},
                    "the log's NCCL nodes run " + std::to_string(local) + " ranks each (localRanks), but " + instance +
                        " has " + std::to_string(host_gpus) + " GPU" + (host_gpus == 1 ? "" : "s") +
                        " (expected an instance of at least " + std::to_string(local) + " GPUs)");
  // The scenario's ranks are the log's: every NCCL node of localRanks ranks (a scenario's pods are
  // of one size), hosts of equal pods.
  if (static_cast<long long>(nnodes) * local != r.nranks)
    throw UserError(at, "the log's " + std::to_string(r.nranks) + " ranks are not " + std::to_string(nnodes) +
                            " NCCL nodes of " + std::to_string(local) +
                            " ranks (localRanks): its nodes hold different numbers of ranks, and a scenario's pods "
                            "are of one size (expected a log whose NCCL nodes each run localRanks ranks)");
  // The largest count up to `limit` that divides n: hosts of one size that hold every rank, no more.
  auto divisor_up_to = [](int n, int limit) {
    int d = std::max(1, std::min(n, limit));
    while (n % d != 0) --d;
    return d;
  };
  int gpus_per_pod = local, pods_per_node = 1, nodes = nnodes;
  bool host_ipc = true;
  std::string why;
  if (env_isolates && local == 1 && nnodes > 1) {
    // One pod per host with its GPUs; the environment, not the pods, kept NCCL off NVLink and SHM.
    gpus_per_pod = divisor_up_to(r.nranks, host_gpus);
    nodes = r.nranks / gpus_per_pod;
    why = "NCCL_P2P_DISABLE=1 and NCCL_SHM_DISABLE=1 explain localRanks 1: one pod per host assumed, " +
          std::to_string(nodes) + " host" + (nodes == 1 ? "" : "s") + " of " + std::to_string(gpus_per_pod) +
          " ranks (" + instance + " has " + std::to_string(host_gpus) + " GPUs)";
  } else {
    pods_per_node = divisor_up_to(nnodes, host_gpus / local);
    nodes = nnodes / pods_per_node;
    if (pods_per_node > 1) {
      host_ipc = false;
      why = "nNodes " + std::to_string(nnodes) + " x localRanks " + std::to_string(local) + " on " + instance + " (" +
            std::to_string(host_gpus) + " GPUs): " + std::to_string(pods_per_node) + " pods packed per host on " +
            std::to_string(nodes) + " host" + (nodes == 1 ? "" : "s") + ", not sharing IPC" +
            (hostid ? std::string(" (NCCL_HOSTID, a value per NCCL node, split the hosts in the run; pods not "
                                  "sharing IPC give the same nodes and transports)")
                    : std::string());
    } else {
      why = "nNodes " + std::to_string(nnodes) + ", localRanks " + std::to_string(local);
    }
  }
  w.set("cluster", "instance", instance,
        options.instance.empty() ? "from the line 'NET/OFI ... platform'" : "given with --instance");
  w.set("cluster", "nodes", static_cast<long long>(nodes));
  w.note("placement", why);
  w.set("placement", "pods_per_node", static_cast<long long>(pods_per_node));
  w.set("placement", "gpus_per_pod", static_cast<long long>(gpus_per_pod));
  w.set("placement", "host_ipc", host_ipc);
  if (r.processes == 1 && r.comms.size() > 1 && static_cast<int>(r.comms.size()) >= r.nranks &&
      r.transport_kinds.count("P2P/direct pointer"))
    w.set("placement", "single_process", true, "one process drives every GPU (P2P/direct pointer)");
  w.set("placement", "efa_plugin_ok", !r.plugin_failed,
        r.plugin_failed ? "the network plugin failed: NCCL fell back to Socket" : "");

  if (hostid)
    w.note("nccl.env", "NCCL_HOSTID=" + hostid->value + " (line " + std::to_string(hostid->line) +
                           ") left out: commsim applies it to every pod of a node, which would join what the log "
                           "counts as nNodes " +
                           std::to_string(nnodes) + "; [placement] gives those nodes");
  for (const auto& e : r.env) {
    if (e.name == "NCCL_TUNER_CONFIG_FILE") {  // a file on the run's machine: the scenario could not load it
      w.note("nccl.env", "NCCL_TUNER_CONFIG_FILE=" + e.value + " (line " + std::to_string(e.line) +
                             ") left out: the file is on the run's machine; copy it beside this scenario and name "
                             "it here to simulate NCCL's example tuner with its rows");
      continue;
    }
    if (!models::nccl::is_nccl_env_name(e.name) || e.name == "NCCL_HOSTID") continue;
    w.set("nccl.env", e.name, e.value,
          (e.source == "environment" ? std::string("set by environment") : "added by " + e.source) + ", line " +
              std::to_string(e.line));
  }

  const std::string preset = r.trainable_parameters ? preset_for_parameters(*r.trainable_parameters) : "";
  if (!preset.empty()) {
    w.set("model", "preset", preset, "Number of trainable parameters = " + std::to_string(*r.trainable_parameters));
    if (r.micro_batch)
      w.set("training", "micro_batch", static_cast<long long>(*r.micro_batch), "Instantaneous batch size per device");
    if (r.grad_accum)
      w.set("training", "grad_accum", static_cast<long long>(*r.grad_accum), "Gradient Accumulation steps");
    if (r.total_steps) w.set("training", "steps", static_cast<long long>(*r.total_steps), "Total optimization steps");
    if (r.deepspeed_zero3) {
      w.set("parallel", "strategy", std::string("zero3"), "DeepSpeed 'Stage 3 initialize'");
      w.set("zero", "stage", 3LL);
      if (r.deepspeed_offload) w.set("zero", "offload_optimizer", std::string("cpu"), "'Detected ZeRO Offload'");
    }
  } else {
    w.note("collective",
           "the log does not show the workload: a 1 GiB all-reduce over all ranks exercises the same transports");
    w.set("collective", "op", std::string("all_reduce"));
    w.set("collective", "bytes", std::string("1 GiB"));
  }
  return w.str();
}

}  // namespace scenarios
