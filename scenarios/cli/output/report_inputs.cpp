// Report inputs from a scenario (see report_inputs.hpp).
#include "scenarios/cli/output/report_inputs.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>

#include <fmt/format.h>

#include "models/calibrate/nccl_tests.hpp"
#include "models/nccl/tuner_tables.hpp"
#include "models/readers/nccl_log.hpp"
#include "models/readers/nccl_tests_output.hpp"
#include "models/run/jobs.hpp"
#include "models/run/layout_line.hpp"
#include "scenarios/cli/output/result_format.hpp"

namespace scenarios {

std::vector<std::pair<std::string, std::string>> scenario_summary(const models::ScenarioSpec& s,
                                                                  const models::RunResult* result) {
  std::vector<std::pair<std::string, std::string>> out;
  const int gpus = result ? result->gpus : 0;
  const int nodes = s.cluster.nodes;
  if (!s.cluster.instance.empty())
    out.push_back({"cluster", fmt::format("{} x {} node{}", s.cluster.instance, nodes, nodes == 1 ? "" : "s")});
  else if (s.cluster.node)
    out.push_back(
        {"cluster", fmt::format("custom node: {} x {} GPUs{}, {} node{}", s.cluster.node->gpus, s.cluster.node->gpu,
                                s.cluster.node->nvlink.empty() ? "" : ", " + s.cluster.node->nvlink, nodes,
                                nodes == 1 ? "" : "s")});
  const auto& p = s.placement;
  out.push_back({"placement", fmt::format("{} pod{} per node x {} GPU{} per pod; host IPC {}{}", p.pods_per_node,
                                          p.pods_per_node == 1 ? "" : "s",
                                          p.gpus_per_pod == 0 ? std::string("all") : std::to_string(p.gpus_per_pod),
                                          p.gpus_per_pod == 1 ? "" : "s", p.host_ipc ? "shared" : "private",
                                          p.efa_plugin_ok ? "" : "; EFA plugin finds no provider")});
  if (s.model) {
    const auto& m = *s.model;
    out.push_back(
        {"model",
         fmt::format("{}, seq {}",
                     m.preset.empty() ? fmt::format("{} layers x {} hidden", m.layers, m.hidden) : m.preset, m.seq)});
    const auto& t = s.training;
    // The micro-batches per step as the run used them: with global_batch, global_batch /
    // (micro_batch x dp), dp = GPUs / (tp x cp x pp) (the text's and the step's number).
    std::string batches = fmt::format("micro batch {} x grad accum {}", t.micro_batch, t.grad_accum);
    if (t.global_batch > 0 && gpus > 0 && t.micro_batch > 0) {
      const auto& q = s.parallel;
      const int dp = q.strategy == "megatron" ? gpus / std::max(1, q.tp * q.pp * std::max(1, q.cp)) : gpus;
      if (dp > 0)
        batches = fmt::format("global batch {} = micro batch {} x dp {} x grad accum {}", t.global_batch, t.micro_batch,
                              dp, t.global_batch / (t.micro_batch * dp));
    }
    // The steps the run takes: a token target's (training.tokens over the step's tokens), not the
    // training.steps it leaves at its default.
    std::string steps = fmt::format("{} steps", result ? result->steps : t.steps);
    if (result && t.tokens > 0 && result->throughput.tokens_per_step > 0)
      steps = fmt::format("{:.4g} tokens = {} steps of {:.0f} tokens", t.tokens, result->steps,
                          result->throughput.tokens_per_step);
    out.push_back({"training", fmt::format("{}, {}, {}{}", batches, steps, t.dtype,
                                           t.grad_checkpointing ? ", activation checkpointing" : "")});
    // Every degree of the layout, as the run's layout line states it (one formatter for both).
    std::string par = models::parallel_text(s.parallel, std::nullopt, gpus);
    if (s.parallel.strategy == "hsdp")
      par += fmt::format("; shard groups of {}",
                         s.parallel.dp_shard > 0 ? std::to_string(s.parallel.dp_shard) : std::string("one node"));
    // DeepSpeed's settings for DeepSpeed's strategies only; FSDP and HSDP are PyTorch's fully_shard,
    // which reads none of them (models/workload/steps/fsdp_step.cpp).
    if (s.parallel.strategy == "zero1" || s.parallel.strategy == "zero2" || s.parallel.strategy == "zero3")
      par += fmt::format("; DeepSpeed stage {}, overlap_comm {}, offload optimizer {}, params {}", s.zero.stage,
                         s.zero.overlap_comm, s.zero.offload_optimizer, s.zero.offload_param);
    else if (s.parallel.strategy == "fsdp" || s.parallel.strategy == "hsdp")
      par += "; PyTorch FSDP2 (fully_shard per transformer block, resharded after forward)";
    out.push_back({"parallel", par});
  }
  if (s.collective)
    out.push_back({"collective", fmt::format("{} of {} bytes x {}", s.collective->op, s.collective->bytes,
                                             s.collective->iterations)});
  std::string env;
  for (const auto& [k, v] : s.nccl_env) env += (env.empty() ? "" : "  ") + k + "=" + v;
  out.push_back({"NCCL env", env.empty() ? "(none set)" : env});
  if (!s.cluster.profile.empty()) out.push_back({"calibration", s.cluster.profile});
  return out;
}

namespace {
// A measured file's series name: its file name and the NCCL variables its INFO lines set
// ("ar_tree.txt (NCCL_ALGO=Tree)"); the file name alone when it has no INFO lines.
std::string measured_series(const std::string& path) {
  std::string label = std::filesystem::path(path).filename().string();
  std::string vars;
  try {
    for (const auto& e : models::readers::parse_nccl_log_file(path).env)
      if (e.name.rfind("NCCL_", 0) == 0) vars += (vars.empty() ? "" : ", ") + e.name + "=" + e.value;
  } catch (const std::exception&) {  // no log lines to read: the name alone
  }
  return vars.empty() ? label : label + " (" + vars + ")";
}
}  // namespace

std::vector<viz::BusBwPoint> busbw_curves(const models::ScenarioSpec& spec, const models::RunResult& result,
                                          const std::vector<std::string>& measured_files,
                                          const MeasuredAsRan& as_ran_of) {
  // Measured busbw (out of place, as nccl-tests' own summary uses) by file, op and size. One file:
  // the measured values sit on the predicted curve's points; several: one series per file.
  std::map<std::string, std::map<std::string, std::map<int64_t, double>>> by_file;  // series -> op -> size
  std::vector<std::string> file_order;
  std::map<std::string, std::map<int64_t, double>> measured;  // op -> size, all files
  std::map<std::string, std::string> series_of;               // path -> series name
  for (const auto& run : models::readers::parse_nccl_tests_files(measured_files)) {
    if (!series_of.count(run.source)) {
      series_of[run.source] = measured_series(run.source);
      file_order.push_back(run.source);
    }
    // From the time, not the printed busbw: nccl-tests prints two decimals of GB/s, so below ~1 MiB
    // its busbw is rounded by up to a third (and 8-128 B print 0.00), where the time has 3-4 digits.
    models::nccl::CollOp op;
    const int n = run.ranks > 0 ? run.ranks : (result.gpus > 0 ? result.gpus : int(result.ranks.size()));
    if (run.op.empty() || !models::nccl::parse_coll_op(run.op, op) || n < 1) continue;
    for (const auto& row : run.rows)
      if (row.oop.time_us > 0 && row.size_bytes > 0) {
        const double busbw = models::calibrate::bus_factor(op, n) * double(row.size_bytes) / (row.oop.time_us * 1e-6);
        measured[run.op][row.size_bytes] = busbw;
        by_file[series_of[run.source]][run.op][row.size_bytes] = busbw;
      }
  }
  const bool per_file = file_order.size() > 1;

  // Each measured op as its files ran it (as_ran_of; header: what it does).
  std::map<std::string, models::ScenarioSpec> as_ran;  // op -> the scenario as its files ran
  std::map<std::string, std::string> as_ran_words;     // op -> "as ar.txt ran (NCCL_ALGO=Tree)"
  std::set<std::string> disagree;
  for (const auto& run : as_ran_of ? models::readers::parse_nccl_tests_files(measured_files)
                                   : std::vector<models::readers::NcclTestsRun>{}) {
    if (run.op.empty()) continue;
    models::ScenarioSpec ran = as_ran_of(spec, run);
    const auto same = [](const models::ScenarioSpec& a, const models::ScenarioSpec& b) {
      return a.nccl_env == b.nccl_env && a.nccl_version == b.nccl_version &&
             a.placement.single_process == b.placement.single_process;
    };
    if (auto it = as_ran.find(run.op); it != as_ran.end()) {
      if (!same(it->second, ran)) disagree.insert(run.op);
      continue;
    }
    if (same(ran, spec)) continue;
    std::string what;
    for (const auto& [k, v] : ran.nccl_env)
      if (!spec.nccl_env.count(k) || spec.nccl_env.at(k) != v) what += (what.empty() ? "" : ", ") + k + "=" + v;
    if (ran.nccl_version != spec.nccl_version)
      what += (what.empty() ? "" : ", ") + std::string("NCCL ") + models::nccl::nccl_version_text(ran.nccl_version);
    if (ran.placement.single_process != spec.placement.single_process)
      what += (what.empty() ? "" : ", ") + std::string("one process driving every GPU");
    as_ran.emplace(run.op, std::move(ran));
    as_ran_words[run.op] = "as " + std::filesystem::path(run.source).filename().string() + " ran (" + what + ")";
  }
  for (const auto& op : disagree) {
    as_ran.erase(op);
    as_ran_words.erase(op);
  }

  // The curves: each collective the step launched on its own group's ranks (a TP all-gather over
  // its 8 GPUs, not over the cluster), then each measured op over every rank of the scenario (as
  // nccl-tests ran over the cluster), unless a collective of the step already spans them all.
  struct Curve {
    std::string op;
    std::vector<int> ranks;  // empty: every rank
    std::string group;       // in words, for the legend
    const models::ScenarioSpec* on = nullptr;  // the scenario replayed (a job's own); null: `spec`
  };
  const int gpus = result.gpus > 0 ? result.gpus : int(result.ranks.size());
  const int nodes = result.nodes;
  auto on_nodes = [](int n, int k) {
    return fmt::format("{} GPU{} on {} node{}", n, n == 1 ? "" : "s", k, k == 1 ? "" : "s");
  };
  const std::string everyone = nodes > 0 ? "all " + on_nodes(gpus, nodes) : fmt::format("all {} GPUs", gpus);
  std::vector<Curve> curves;
  std::set<std::string> everyone_ops;  // ops with a curve over every rank
  for (const auto& u : result.collectives_used) {
    if (u.ranks.size() < 2) continue;  // a group of one moves nothing: no bus bandwidth
    const bool all = int(u.ranks.size()) == gpus;
    curves.push_back({u.op, all ? std::vector<int>{} : u.ranks,
                      all ? everyone : fmt::format("{} group of {}", u.group, on_nodes(int(u.ranks.size()), u.nodes))});
    if (all) everyone_ops.insert(u.op);
  }
  // With [[jobs]], each job's collectives on its own groups, replayed on the job's own nodes
  // (models::job_scenario; ranks numbered within the job, as its result has them).
  std::vector<models::ScenarioSpec> job_specs;
  if (!spec.jobs.empty() && result.jobs.size() == spec.jobs.size()) {
    const std::vector<int> first = models::place_jobs(spec);
    for (std::size_t i = 0; i < spec.jobs.size(); ++i)
      job_specs.push_back(models::job_scenario(spec, spec.jobs[i], first[i], i));
    for (std::size_t i = 0; i < job_specs.size(); ++i)
      for (const auto& u : result.jobs[i].together.collectives_used) {
        if (u.ranks.size() < 2) continue;
        curves.push_back({u.op, u.ranks,
                          fmt::format("job {}: {} group of {}", result.jobs[i].name, u.group,
                                      on_nodes(int(u.ranks.size()), u.nodes)),
                          &job_specs[i]});
      }
  }
  std::set<std::string> wanted;  // over every rank: measured ops, and a run that names no groups
  for (const auto& [op, _] : measured) wanted.insert(op);
  if (result.collectives_used.empty() && job_specs.empty()) {
    for (const auto& e : result.timeline)
      if (!e.op.empty()) wanted.insert(e.op);
    if (spec.collective) wanted.insert(spec.collective->op);
  }
  for (const auto& op : wanted)
    if (!everyone_ops.count(op) && !as_ran.count(op))
      curves.push_back(
          {op,
           {},
           disagree.count(op) ? everyone + ", the scenario's NCCL settings (the files ran with others)" : everyone});
  for (const auto& [op, ran] : as_ran) curves.push_back({op, {}, everyone + ", " + as_ran_words.at(op), &ran});

  std::vector<viz::BusBwPoint> out;
  for (const auto& c : curves) {
    models::calibrate::NcclTestsOptions o;
    if (!models::nccl::parse_coll_op(c.op, o.op)) continue;  // e.g. "send": no nccl-tests curve
    o.min_bytes = 8;
    o.max_bytes = int64_t{1} << 30;
    o.factor = 4;
    o.iters = 1;
    o.ranks = c.ranks;
    // Measured files ran over the cluster: their points sit on the curve over every rank.
    const bool takes_measured = c.ranks.empty() && (!as_ran.count(c.op) || c.on == &as_ran.at(c.op));
    const auto it = takes_measured ? measured.find(c.op) : measured.end();
    if (it != measured.end() && !it->second.empty()) {  // predict at exactly the measured sizes
      o.min_bytes = it->second.begin()->first;
      o.max_bytes = it->second.rbegin()->first;
      o.factor = 2;
    }
    const auto predicted = models::calibrate::run_nccl_tests(c.on ? *c.on : spec, o);
    for (const auto& row : predicted.rows) {
      viz::BusBwPoint p;
      p.op = c.op;
      p.group = c.group;
      p.size_bytes = row.size;
      p.predicted_bytes_per_s =
          std::max(row.busbw_gbs, row.ip_busbw_gbs) * 1e9;  // as the measured side: the faster column
      if (it != measured.end() && !per_file)
        if (auto m = it->second.find(row.size); m != it->second.end()) p.measured_bytes_per_s = m->second;
      out.push_back(p);
    }
  }
  if (per_file)
    for (const auto& path : file_order) {
      const std::string& series = series_of[path];
      for (const auto& [op, sizes] : by_file[series])
        for (const auto& [size, bw] : sizes) out.push_back({op, size, 0, bw, series, ""});  // the file names its run, no group
    }
  return out;
}

viz::ReportInputs report_inputs_for(const LoadedScenario& scenario, const models::RunResult& result,
                                    const CommandInputs& inputs, const std::vector<std::string>& measured_files,
                                    bool with_busbw, const MeasuredAsRan& as_ran) {
  viz::ReportInputs in;
  in.title = result.scenario;
  in.source_file = inputs.files.empty() ? scenario.spec.source_file : inputs.files.front();
  in.summary = scenario_summary(scenario.spec, &result);
  if (!result.layout.empty()) in.summary.insert(in.summary.begin(), {"layout", result.layout});
  std::string files;
  for (size_t i = 1; i < inputs.files.size(); ++i) files += (files.empty() ? "" : ", ") + inputs.files[i];
  for (const auto& m : measured_files) files += (files.empty() ? "" : ", ") + m;
  if (!files.empty()) in.summary.push_back({"files it reads", files});
  std::string sets;
  for (const auto& o : inputs.overrides) sets += (sets.empty() ? "--set " : " --set ") + shell_word(o);
  in.summary.push_back({"overrides", sets.empty() ? "none" : sets});
  in.summary.push_back({"commsim", commsim_version()});
  in.billed_window = billed_window_text(result);
  if (with_busbw) {
    try {
      in.busbw = busbw_curves(scenario.spec, result, measured_files, as_ran);
    } catch (const models::SpecError& e) {
      throw scenario.to_user_error(e);
    }
  }
  return in;
}

}  // namespace scenarios
