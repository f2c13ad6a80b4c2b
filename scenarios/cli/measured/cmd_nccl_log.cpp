// commsim nccl-log LOGFILE [--scenario OUT.toml] [--instance NAME] [--json]
// Reads a real NCCL debug log (NCCL_DEBUG=INFO), prints what it shows (version, ranks and nodes,
// channels, rings and trees, transports per peer, network plugin, GDR, variables, init timings,
// tuning) and a diagnosis in plain words; --scenario writes a scenario that reproduces it.
#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "models/nccl/diagnosis.hpp"
#include "models/parse_error.hpp"
#include "models/readers/nccl_log.hpp"
#include "scenarios/cli/cli_support.hpp"
#include "scenarios/cli/command.hpp"
#include "scenarios/cli/output/result_schema.hpp"
#include "scenarios/import/nccl_log_scenario.hpp"
#include "scenarios/load/input_file.hpp"

namespace scenarios {
namespace {

using models::nccl::Finding;
using models::readers::NcclLogReport;

nlohmann::json report_json(const NcclLogReport& r, const std::vector<Finding>& findings) {
  using nlohmann::json;
  json j;
  j["source"] = r.source;
  j["nccl_version"] = r.nccl_version;
  j["nccl_lines"] = r.nccl_lines;
  j["other_lines"] = r.other_lines;
  j["hosts"] = r.hosts;
  j["processes"] = r.processes;
  j["nranks"] = r.nranks;
  j["nnodes"] = r.nnodes;
  j["local_ranks"] = r.local_ranks;
  j["communicators"] = json::array();
  for (const auto& c : r.comms)
    j["communicators"].push_back({{"host", c.host},
                                  {"pid", c.pid},
                                  {"comm", c.comm},
                                  {"rank", c.rank},
                                  {"nranks", c.nranks},
                                  {"nnodes", c.nnodes},
                                  {"local_ranks", c.local_ranks},
                                  {"local_rank", c.local_rank},
                                  {"line", c.line}});
  if (!r.channels.empty()) {
    const auto& c = r.channels.front();
    j["channels"] = {
        {"coll", c.coll}, {"collnet", c.collnet}, {"nvls", c.nvls}, {"p2p", c.p2p}, {"p2p_per_peer", c.p2p_per_peer}};
  }
  j["rings"] = json::array();
  for (const auto& ring : r.rings) j["rings"].push_back({{"channel", ring.channel}, {"ranks", ring.ranks}});
  j["trees"] = json::array();
  for (const auto& t : r.trees)
    j["trees"].push_back({{"channel", t.channel}, {"rank", t.rank}, {"up", t.up}, {"down", t.down}});
  j["transports"] = json::array();
  for (const auto& t : r.transports)
    j["transports"].push_back({{"channel", t.channel},
                               {"from", t.from_rank},
                               {"to", t.to_rank},
                               {"direction", t.direction},
                               {"via", t.via},
                               {"kind", t.kind},
                               {"line", t.line}});
  j["transport_kinds"] = r.transport_kinds;
  j["network"] = {{"using", r.network},
                  {"plugin_requested", r.net_plugin_requested},
                  {"plugin_loaded", r.net_plugin_loaded},
                  {"ofi", r.ofi_version},
                  {"provider", r.ofi_provider},
                  {"plugin_failed", r.plugin_failed},
                  {"failure", r.plugin_failure},
                  {"platform", r.platform},
                  {"topo_file", r.topo_file}};
  if (r.ofi_nics) j["network"]["nics"] = *r.ofi_nics;
  j["gdr"] = r.gdr;
  j["env"] = json::array();
  for (const auto& e : r.env)
    j["env"].push_back({{"name", e.name}, {"value", e.value}, {"source", e.source}, {"line", e.line}});
  j["init_timings"] = json::array();
  for (const auto& t : r.init_timings)
    j["init_timings"].push_back({{"function", t.function},
                                 {"rank", t.rank},
                                 {"nranks", t.nranks},
                                 {"total_s", t.total_s},
                                 {"parts_s", t.parts_s}});
  if (r.bootstrap_total_s) j["bootstrap_total_s"] = *r.bootstrap_total_s;
  j["tuning"] = json::array();
  for (const auto& c : r.tuning)
    j["tuning"].push_back({{"function", c.function},
                           {"algo", c.algo},
                           {"proto", c.proto},
                           {"latency_us", c.latency_us},
                           {"bandwidth_gbs", c.bandwidth_gbs}});
  j["enabled"] = json::array();
  for (const auto& e : r.enabled)
    j["enabled"].push_back({{"function", e.function}, {"protos", e.protos}, {"algos", e.algos}});
  j["algo_choices"] = json::array();
  for (const auto& c : r.algo_choices)
    j["algo_choices"].push_back(
        {{"function", c.function}, {"bytes", c.bytes}, {"algo", c.algo}, {"proto", c.proto}, {"channels", c.channels}});
  j["warnings"] = r.warnings;
  j["findings"] = json::array();
  for (const auto& f : findings)
    j["findings"].push_back({{"severity", models::nccl::severity_name(f.severity)},
                             {"id", f.id},
                             {"message", f.message},
                             {"advice", f.advice}});
  return j;
}

std::string report_text(const NcclLogReport& r, const std::vector<Finding>& findings) {
  std::string o;
  auto row = [&](const char* k, const std::string& v) {
    if (!v.empty()) o += fmt::format("  {:<13} {}\n", k, v);
  };
  o += fmt::format("NCCL log {}: {} NCCL lines, {} other lines\n", r.source, r.nccl_lines, r.other_lines);
  row("version", r.nccl_version);
  std::string hosts;
  for (const auto& h : r.hosts) hosts += (hosts.empty() ? "" : ", ") + h;
  row("hosts", hosts.empty() ? "" : fmt::format("{} ({} process{})", hosts, r.processes, r.processes == 1 ? "" : "es"));
  if (r.nranks && r.nnodes)
    row("ranks",
        fmt::format("{} ranks on {} NCCL node{}, {} local rank{} per node ({} communicator line{}{})", r.nranks,
                    r.nnodes, r.nnodes == 1 ? "" : "s", r.local_ranks, r.local_ranks == 1 ? "" : "s", r.comms.size(),
                    r.comms.size() == 1 ? "" : "s", r.node_layout_from_hosts ? "; nodes counted from the hosts" : ""));
  else if (r.nranks)
    row("ranks",
        fmt::format("{} ranks; nodes unknown (the log shows {} of them and no 'nNodes' line)", r.nranks, r.ranks_seen));
  if (!r.channels.empty()) {
    const auto& c = r.channels.front();
    row("channels", fmt::format("{} collective, {} p2p ({} per peer), {} collnet, {} nvls", c.coll, c.p2p,
                                c.p2p_per_peer, c.collnet, c.nvls));
  }
  if (!r.rings.empty()) {
    std::string s;
    for (int v : r.rings.front().ranks) s += (s.empty() ? "" : " ") + std::to_string(v);
    row("rings", fmt::format("{} (channel {}: {})", r.rings.size(), r.rings.front().channel, s));
  }
  if (!r.trees.empty()) row("trees", fmt::format("{} tree entries", r.trees.size()));
  std::string kinds;
  for (const auto& [k, n] : r.transport_kinds) kinds += fmt::format("{}{} x{}", kinds.empty() ? "" : ", ", k, n);
  row("transports", kinds);
  const size_t shown = std::min<size_t>(r.transports.size(), 12);
  for (size_t i = 0; i < shown; ++i) {
    const auto& t = r.transports[i];
    o += fmt::format("    channel {:02}  {} -> {} {:<8} via {}\n", t.channel, t.from_rank, t.to_rank, t.direction,
                     t.via);
  }
  if (r.transports.size() > shown)
    o += fmt::format("    ... {} more (--json lists all)\n", r.transports.size() - shown);
  std::string net = r.network;
  if (!r.net_plugin_requested.empty() || !r.net_plugin_loaded.empty()) {
    net += fmt::format(" (plugin {}{}{}{}{})", r.net_plugin_requested.empty() ? "?" : r.net_plugin_requested,
                       r.net_plugin_loaded.empty() ? "" : ": " + r.net_plugin_loaded,
                       r.ofi_version.empty() ? "" : ", " + r.ofi_version,
                       r.ofi_provider.empty() ? "" : ", provider " + r.ofi_provider, r.plugin_failed ? ", FAILED" : "");
  }
  row("network", net);
  row("platform", r.platform);
  if (!r.gdr.empty()) row("GDR", fmt::format("{} (from 'Connected all rings ... GDR')", r.gdr.front()));
  for (const auto& e : r.env)
    row("variable", fmt::format("{}={} ({}, line {})", e.name, e.value,
                                e.source == "environment" ? "set by environment" : "added by " + e.source, e.line));
  for (const auto& t : r.init_timings) {
    std::string parts;
    for (const auto& [k, v] : t.parts_s) parts += fmt::format("{}{} {:.2f}", parts.empty() ? "" : ", ", k, v);
    row("init", fmt::format("{} rank {}: total {:.2f} s ({})", t.function, t.rank, t.total_s, parts));
  }
  if (r.bootstrap_total_s) row("bootstrap", fmt::format("{:.3f} s", *r.bootstrap_total_s));
  if (!r.tuning.empty())
    row("tuning", fmt::format("{} (function, algorithm, protocol) cells of latency/bandwidth", r.tuning.size()));
  if (!r.enabled.empty()) {
    std::string on;
    for (const auto& [p, e] : r.enabled.front().protos)
      if (e) on += (on.empty() ? "" : " ") + p;
    row("protocols", fmt::format("enabled for {}: {}", r.enabled.front().function, on));
  }
  if (!r.algo_choices.empty())
    row("choices", fmt::format("{} (function, size) -> algorithm/protocol lines", r.algo_choices.size()));
  o += "\nDiagnosis:\n";
  if (findings.empty()) o += "  nothing unusual found\n";
  for (const auto& f : findings) {
    o += fmt::format("  [{}] {}: {}\n", models::nccl::severity_name(f.severity), f.id, f.message);
    if (!f.advice.empty()) o += fmt::format("      -> {}\n", f.advice);
  }
  return o;
}

// What the same job would gain with one pod per host: when the log shows ranks alone
// on their NCCL nodes on a multi-GPU instance, simulate the layout the log shows and the one-pod
// layout. Empty when it does not apply or cannot run (the report is still useful without it).
struct OnePodComparison {
  double logged_step_s = 0, one_pod_step_s = 0;
  int gpus_per_pod = 0, nodes = 0;
  bool hostid = false;  // NCCL_HOSTID isolated the ranks (diagnosis): the one-pod layout is the run without it
  std::string error;
};

std::optional<OnePodComparison> compare_one_pod(const NcclLogReport& r, const std::vector<Finding>& findings,
                                                const std::string& instance_opt) {
  bool isolated = false;
  for (const auto& f : findings)
    isolated = isolated || (f.id == "ranks-isolated" && f.severity == models::nccl::Severity::Warning);
  const std::string instance = instance_opt.empty() ? r.platform : instance_opt;
  const int host_gpus = models::nccl::instance_gpus(instance);
  // With P2P disabled by the environment one pod would not help: the finding says so instead.
  const auto* p2p_off = r.find_env("NCCL_P2P_DISABLE");
  // One process driving every rank (a communicator of each in its log) is one pod already.
  const bool one_process = r.processes == 1 && static_cast<int>(r.comms.size()) >= r.nranks;
  if (!isolated || host_gpus < 2 || (p2p_off && p2p_off->value == "1") || one_process) return std::nullopt;
  OnePodComparison c;
  // Hosts of one size holding the log's ranks, no more (as the scenario the log gives).
  c.gpus_per_pod = std::min(host_gpus, r.nranks);
  while (r.nranks % c.gpus_per_pod != 0) --c.gpus_per_pod;
  c.nodes = r.nranks / c.gpus_per_pod;
  c.hostid = r.find_env("NCCL_HOSTID") != nullptr;
  try {
    const std::string toml = scenario_from_nccl_log(r, {instance});
    models::RunOptions options;
    options.timeline = false;
    c.logged_step_s = run_loaded(load_scenario_text(toml, "logged.toml"), options).step_time_s;
    const std::vector<std::string> one_pod = {"placement.pods_per_node=1",
                                              "placement.gpus_per_pod=" + std::to_string(c.gpus_per_pod),
                                              "placement.host_ipc=true", "cluster.nodes=" + std::to_string(c.nodes)};
    c.one_pod_step_s = run_loaded(load_scenario_text(toml, "one_pod.toml", one_pod), options).step_time_s;
  } catch (const std::exception& e) {
    c.error = e.what();
  }
  return c;
}

std::string comparison_text(const OnePodComparison& c, int nranks) {
  if (!c.error.empty()) return fmt::format("\n(simulation of the one-pod layout not available: {})\n", c.error);
  const std::string logged = fmt::format("as logged, {} ranks on {} NCCL nodes", nranks, nranks);
  const std::string one_pod =
      c.hostid
          ? fmt::format("without NCCL_HOSTID ({} host{} of {} GPUs)", c.nodes, c.nodes == 1 ? "" : "s", c.gpus_per_pod)
          : fmt::format("one pod of {} GPUs per host ({} host{})", c.gpus_per_pod, c.nodes, c.nodes == 1 ? "" : "s");
  return fmt::format(
      "\nSimulated (commsim run on the scenario the log gives):\n  {:<40} step {:.3f} s\n  {:<40} step {:.3f} s  "
      "({:.2f}x faster)\n",
      logged, c.logged_step_s, one_pod, c.one_pod_step_s,
      c.one_pod_step_s > 0 ? c.logged_step_s / c.one_pod_step_s : 0.0);
}

}  // namespace

int cmd_nccl_log(int argc, char** argv) {
  CLI::App app{"Read a real NCCL INFO log: what it shows, and what it means.", "commsim nccl-log"};
  std::string path, scenario_out, instance;
  bool json = false, no_simulate = false;
  app.add_option("log", path, "NCCL log (NCCL_DEBUG=INFO output, any launcher)")->required()->type_name("LOGFILE");
  app.add_option("--scenario", scenario_out, "write a scenario reproducing the log to this file")
      ->type_name("OUT.toml");
  app.add_option("--instance", instance, "catalog instance, when the log does not name it")->type_name("NAME");
  app.add_flag("--json", json, "print one JSON object (docs/result.schema.json) instead of the report");
  app.add_flag("--no-simulate", no_simulate, "do not simulate the one-pod-per-host layout when ranks look isolated");
  if (const int rc = parse_cli(app, argc, argv); rc >= 0) return rc;

  return guarded([&] {
    refuse_outputs_over_inputs({{"--scenario", scenario_out}}, {path});
    NcclLogReport report;
    try {
      report = models::readers::parse_nccl_log(
          read_input_file(path, {path, 1, 1}, "NCCL log", "an NCCL log (NCCL_DEBUG=INFO output)"), path);
    } catch (const models::ParseError& e) {
      throw UserError({e.file(), e.line(), e.col()}, e.message());
    }
    const auto findings = models::nccl::diagnose_log(report, instance);
    // The scenario first: if it cannot be written, nothing is printed as if all went well.
    if (!scenario_out.empty()) write_file_atomically(scenario_out, scenario_from_nccl_log(report, {instance}));
    const auto cmp = no_simulate ? std::nullopt : compare_one_pod(report, findings, instance);
    std::string out;
    if (json) {
      nlohmann::json report_keys = report_json(report, findings);
      if (cmp && cmp->error.empty())
        report_keys["one_pod_comparison"] = {{"logged_step_s", cmp->logged_step_s},
                                             {"one_pod_step_s", cmp->one_pod_step_s},
                                             {"gpus_per_pod", cmp->gpus_per_pod},
                                             {"nodes", cmp->nodes}};
      // The schema's header first, then the report's keys (sorted, as before).
      Json j = json_header("nccl-log", {{path}, {}});
      for (const auto& item : report_keys.items()) j[item.key()] = item.value();
      out = dump_json(std::move(j));
    } else {
      out = report_text(report, findings);
      if (cmp) out += comparison_text(*cmp, report.nranks);
    }
    std::fputs(out.c_str(), stdout);
    if (!scenario_out.empty() && !json) std::printf("\nscenario written to %s\n", scenario_out.c_str());
    return 0;
  });
}

}  // namespace scenarios
