// Several jobs on one cluster (jobs.hpp states the model).
#include "models/run/jobs.hpp"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <deque>
#include <map>
#include <memory>
#include <numeric>
#include <string>
#include <string_view>

#include "models/collectives/collective.hpp"
#include "models/error.hpp"
#include "models/memory/memory_fill.hpp"
#include "models/nccl/env.hpp"
#include "models/nccl/example_tuner.hpp"
#include "models/nccl/tuner_tables.hpp"
#include "models/params.hpp"
#include "models/run/breakdown.hpp"
#include "models/run/cost.hpp"
#include "models/run/result_fill.hpp"
#include "models/run/step_build.hpp"
#include "models/scale/step/mode.hpp"
#include "models/topology/fabric.hpp"
#include "models/workload/executor.hpp"
#include "models/workload/steps/strategy.hpp"
#include "sim/check.hpp"

namespace models {

namespace {

using Clock = std::chrono::steady_clock;

std::string job_key(std::size_t i) { return "jobs." + std::to_string(i); }

std::string node_range(int first, int count) {
  return count == 1 ? std::to_string(first) : std::to_string(first) + ".." + std::to_string(first + count - 1);
}

// A SpecError raised while building job i: a key of the job's own tables goes under jobs.<i>
// (where the loader recorded it); a key of the shared cluster stays as it is.
[[noreturn]] void rethrow_for_job(const SpecError& e, std::size_t i, const std::string& name) {
  const std::string& k = e.key();
  std::string key = k;
  for (const char* table : {"placement", "model", "training", "parallel", "zero", "collective"}) {
    const std::string t = table;
    if (k == t || k.rfind(t + ".", 0) == 0) key = job_key(i) + "." + k;
  }
  throw SpecError(key, "job '" + name + "': " + e.what());
}

// One job's part of a shared simulation. Held in a deque: the executor points at the engine and
// World, the engine at the World.
struct JobRun {
  std::size_t index = 0;
  ScenarioSpec spec;
  std::unique_ptr<World> world;
  std::unique_ptr<collectives::CollectiveEngine> engine;
  workload::StepPlan plan;  // its programs, groups and ranks moved into the executor
  MemoryFill memory;
  scale::StepMode mode;
  std::unique_ptr<workload::StepExecutor> exec;
};

// What one simulation of some of the jobs gives.
struct SharedRun {
  std::vector<RunResult> jobs;    // in the order they were asked for
  std::vector<LinkResult> links;  // every link that carried bytes, over the longest job's step
  uint64_t events = 0;
  bool partial = false;
  double progress = 1;  // the least share of a step's operations any job simulated (--time-limit)
};

// Whether a link name belongs to one of `count` nodes from `first` ("node<k>/...").
bool on_nodes(std::string_view name, int first, int count) {
  if (name.rfind("node", 0) != 0) return false;
  const std::size_t slash = name.find('/');
  if (slash == std::string_view::npos || slash <= 4) return false;
  int k = -1;
  if (std::from_chars(name.data() + 4, name.data() + slash, k).ptr != name.data() + slash) return false;
  return k >= first && k < first + count;
}

// Simulates the jobs `which` together (one of them: alone) on one network.
SharedRun simulate(const ScenarioSpec& spec, const std::vector<int>& first, const std::vector<std::size_t>& which,
                   const RunOptions& options, Clock::time_point wall_start) {
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  if (options.audit) net.set_audit(true);
  net.set_closed_forms(!options.full);
  std::deque<JobRun> runs;
  std::vector<double> shares(which.size(), 0.0);  // each job's share of its step simulated (progress)
  const topology::Fabric* fabric = nullptr;  // built by the first job's World, crossed by all
  for (const std::size_t i : which) {
    const JobSpec& job = spec.jobs[i];
    JobRun& jr = runs.emplace_back();
    jr.index = i;
    try {
      jr.spec = job_scenario(spec, job, first[i], i);
      // The run's pipeline (step_build.hpp), on the job's nodes of the shared cluster; the
      // run-wide notes are the shared run's.
      // --time-limit is checked while simulating
      WallBudget setup(std::nullopt, wall_start, setup_progress(options));
      BuiltStep built =
          *build_step(jr.spec, sim, net, options, setup, ClusterSlot{first[i], spec.cluster.nodes, fabric}, false);
      jr.world = std::move(built.world);
      if (!fabric) fabric = jr.world->fabric();
      jr.engine = std::move(built.engine);
      jr.plan = std::move(built.plan);
      workload::StepPlan& plan = jr.plan;
      jr.memory = std::move(built.memory);
      // Rank classes only (mode.hpp): a class's ranks share one job's programs and communicators,
      // and every collective still launches all its flows on the shared network.
      jr.mode = scale::choose_mode({.full = options.full, .audit = options.audit, .jobs = true}, *jr.world, net, plan,
                                   *jr.engine);
      jr.exec = std::make_unique<workload::StepExecutor>(sim, net, *jr.engine, jr.world.get(), std::move(plan.programs),
                                                         std::move(plan.groups), std::move(plan.ranks));
      jr.exec->overlap_slowdown = plan.overlap_slowdown;
      jr.exec->comm_overlap_slowdown = plan.comm_overlap_slowdown;
    } catch (const SpecError& e) {
      rethrow_for_job(e, i, job.name);
    }
    workload::StepExecutor& exec = *jr.exec;
    std::vector<int> recorded;
    if (options.timeline) exec.record_timeline(recorded = timeline_ranks(exec));
    scale::start_mode(jr.mode, *jr.engine, exec, recorded, jr.world->size(), jr.plan.notes);
    exec.set_wall_limit(options.time_limit_s, wall_start);
    if (options.progress)  // the jobs share one simulator: the run's progress is the least advanced job's
      exec.set_progress([&options, &shares, k = runs.size() - 1](double fraction) {
        shares[k] = fraction;
        options.progress({}, *std::min_element(shares.begin(), shares.end()));
      });
  }
  for (auto& jr : runs) jr.exec->start_ranks();
  sim.run();
  SharedRun out;
  for (auto& jr : runs) {
    jr.exec->finish_run();
    out.partial |= jr.exec->stopped();
    out.progress = std::min(out.progress, jr.exec->progress());
  }
  for (auto& jr : runs)
    SIM_CHECK(jr.exec->all_done() || out.partial, "step programs deadlocked: a rank waits for a peer that never comes");
  if (options.audit && !out.partial)
    SIM_CHECK(net.active_flows() == 0, "flows still in flight after every rank finished its program");
  net.settle_blocks();  // link totals of repeated closed-form collectives

  // Each job's result: its own ranks and the links of its own nodes (the fabric's, which others
  // share, are the shared run's), nodes and pods numbered as on the cluster. The capacity audit
  // is done below over the longest step: a shared link's bytes may outlast one job's step.
  RunOptions job_options = options;
  job_options.audit = false;
  sim::Time end = sim::Time::zero();
  for (auto& jr : runs) {
    end = std::max(end, jr.exec->stopped() ? std::max(jr.exec->end(), jr.exec->now()) : jr.exec->end());
    // Its own nodes' links only, chosen before the busiest are kept: among every link of the
    // network the fabric's and the other jobs' would take the places.
    const int f = first[jr.index];
    RunResult res = fill_result(*jr.exec, net, *jr.world, jr.spec, job_options,
                                [&](std::string_view link) { return on_nodes(link, f, jr.spec.cluster.nodes); });
    res.partial = out.partial;
    const int pods_per_node = jr.world->placement().pods_per_node;
    for (auto& r : res.ranks) {
      r.node += f;
      r.pod += f * pods_per_node;
    }
    scale::finish_mode(jr.mode, *jr.engine, net, sim, *jr.world, *jr.exec, jr.plan.notes);  // no guard to fail
    complete_result(res, jr.spec, *jr.world, jr.plan, std::move(jr.memory));
    apply_token_target(jr.spec, res);  // the job's length from its own training.tokens
    if (options.explain_mode) res.scale_mode = std::move(jr.mode.lines);
    out.jobs.push_back(std::move(res));
  }
  const double step = end.seconds();
  for (std::size_t i = 0; i < net.link_count(); ++i) {
    const sim::LinkId l{uint32_t(i)};
    const double bytes = net.link_bytes(l);
    if (bytes <= 0) continue;
    LinkResult lr;
    lr.name = std::string(net.link_name(l));
    lr.kind = net.link_kind(l);
    lr.bytes = bytes;
    lr.busy_s = net.link_busy(l).seconds();
    // The owner's physical bandwidth: another World knows only the usable capacity, which is less.
    for (const auto& jr : runs)
      lr.capacity_bytes_per_s = std::max(lr.capacity_bytes_per_s, jr.world->raw_capacity(l, net));
    lr.utilization = step > 0 && lr.capacity_bytes_per_s > 0 ? bytes / (lr.capacity_bytes_per_s * step) : 0;
    if (options.audit && !out.partial)
      SIM_CHECK(lr.utilization <= 1.0 + 1e-6, "a link carried more than its capacity over the step");
    out.links.push_back(std::move(lr));
  }
  std::sort(out.links.begin(), out.links.end(), [](const LinkResult& a, const LinkResult& b) {
    return a.utilization != b.utilization ? a.utilization > b.utilization : a.name < b.name;
  });
  // The busiest 32, and every fabric link (where jobs meet).
  std::vector<LinkResult> kept;
  for (std::size_t i = 0; i < out.links.size(); ++i)
    if (i < 32 || out.links[i].kind == "fabric") kept.push_back(std::move(out.links[i]));
  out.links = std::move(kept);
  out.events = sim.events_run();
  return out;
}

}  // namespace

std::vector<int> place_jobs(const ScenarioSpec& spec) {
  const int n = spec.cluster.nodes;
  std::vector<int> owner(std::max(0, n), -1), first(spec.jobs.size(), -1);
  std::map<std::string, std::size_t> names;
  for (std::size_t i = 0; i < spec.jobs.size(); ++i) {
    const JobSpec& job = spec.jobs[i];
    if (auto [it, fresh] = names.emplace(job.name, i); !fresh)
      throw SpecError(job_key(i) + ".name", job_key(i) + ".name: '" + job.name + "' is also " + job_key(it->second) +
                                                "'s name (expected a name per job)");
    const std::string key = job_key(i) + ".nodes";
    if (job.nodes < 1) throw SpecError(key, key + ": no nodes (expected a range [first, last] or a node count)");
    if (!job.first_node) continue;
    const int a = *job.first_node, b = a + job.nodes - 1;
    if (a < 0 || b >= n)
      throw SpecError(key, key + ": nodes " + node_range(a, job.nodes) + " but the cluster has " + std::to_string(n) +
                               " nodes (expected a range within 0.." + std::to_string(n - 1) + ")");
    for (int k = a; k <= b; ++k) {
      if (owner[k] >= 0)
        throw SpecError(key, key + ": node " + std::to_string(k) + " is also in job '" + spec.jobs[owner[k]].name +
                                 "', " + job_key(owner[k]) + ".nodes (expected node ranges that do not overlap)");
      owner[k] = static_cast<int>(i);
    }
    first[i] = a;
  }
  // Counts, first-fit in the order written: the lowest run of `nodes` free consecutive nodes.
  for (std::size_t i = 0; i < spec.jobs.size(); ++i) {
    const JobSpec& job = spec.jobs[i];
    if (job.first_node) continue;
    int run = 0;
    for (int k = 0; k < n && first[i] < 0; ++k) {
      run = owner[k] < 0 ? run + 1 : 0;
      if (run == job.nodes) first[i] = k - job.nodes + 1;
    }
    const std::string key = job_key(i) + ".nodes";
    if (first[i] < 0)
      throw SpecError(key, key + ": no " + std::to_string(job.nodes) + " free consecutive nodes left on the " +
                               std::to_string(n) + "-node cluster (expected fewer nodes, or ranges [first, last])");
    for (int k = first[i]; k < first[i] + job.nodes; ++k) owner[k] = static_cast<int>(i);
  }
  return first;
}

ScenarioSpec job_scenario(const ScenarioSpec& spec, const JobSpec& job, int first_node, std::size_t index) {
  ScenarioSpec s;
  s.name = job.name;
  s.source_file = spec.source_file;
  s.cluster = spec.cluster;
  s.cluster.nodes = job.nodes;
  if (!spec.cluster.groups.empty()) {
    s.cluster.groups.clear();
    int start = 0;
    for (const NodeGroupSpec& g : spec.cluster.groups) {
      if (first_node < start + g.nodes) {
        if (first_node + job.nodes > start + g.nodes) {
          const std::string key = job_key(index) + ".nodes";
          throw SpecError(key, key + ": nodes " + node_range(first_node, job.nodes) + " span the " + g.instance +
                                   " group (nodes " + node_range(start, g.nodes) +
                                   ") and the next one (expected each job on the nodes of one [[cluster.groups]] "
                                   "entry: a job over two instances is not modelled)");
        }
        s.cluster.instance = g.instance;
        break;
      }
      start += g.nodes;
    }
  }
  s.nccl_env = spec.nccl_env;
  s.nccl_version = spec.nccl_version;
  s.nccl_tuner_config = spec.nccl_tuner_config;
  s.placement = job.placement;
  s.model = job.model;
  s.training = job.training;
  s.parallel = job.parallel;
  s.zero = job.zero;
  s.collective = job.collective;
  return s;
}

RunResult run_jobs(const ScenarioSpec& spec, const RunOptions& options) {
  const auto wall_start = Clock::now();
  check_params(spec.cluster.params);
  if (!spec.stragglers.empty())
    throw SpecError("stragglers",
                    "stragglers: not modelled beside [[jobs]] yet (expected no [[stragglers]] in a "
                    "scenario with several jobs)");
  const std::vector<int> first = place_jobs(spec);
  std::vector<std::size_t> all(spec.jobs.size());
  std::iota(all.begin(), all.end(), std::size_t{0});
  SharedRun together = simulate(spec, first, all, options, wall_start);
  RunOptions alone_options = options;
  alone_options.timeline = false;

  RunResult out;
  out.scenario = spec.name;
  out.partial = together.partial;
  out.events = together.events;
  double progress = together.progress;
  out.links = std::move(together.links);
  int offset = 0;
  std::map<std::string, std::size_t> transport_at;
  double worst_memory = -1;
  for (std::size_t i = 0; i < spec.jobs.size(); ++i) {
    SharedRun alone = simulate(spec, first, {i}, alone_options, wall_start);
    out.partial |= alone.partial;
    out.events += alone.events;
    progress = std::min(progress, alone.progress);
    JobResult job;
    job.name = spec.jobs[i].name;
    job.first_node = first[i];
    job.last_node = first[i] + spec.jobs[i].nodes - 1;
    job.together = std::move(together.jobs[i]);
    job.gpus = static_cast<int>(job.together.ranks.size());
    job.step_alone_s = alone.jobs.front().step_time_s;
    job.step_together_s = job.together.step_time_s;
    if (job.together.step_time_s * job.together.steps > out.run_time_s) {
      out.run_time_s = job.together.run_time_s;
      out.steps = job.together.steps;
    }
    out.step_time_s = std::max(out.step_time_s, job.step_together_s);
    const RunResult& r = job.together;
    for (const auto& t : r.transports) {
      auto [it, fresh] = transport_at.emplace(t.label, out.transports.size());
      if (fresh)
        out.transports.push_back(t);
      else
        out.transports[it->second].pairs += t.pairs;
    }
    for (auto p : r.pair_transports) {
      p.a += offset;
      p.b += offset;
      if (out.pair_transports.size() < 4096) out.pair_transports.push_back(std::move(p));
    }
    for (auto e : r.timeline) {
      e.rank += offset;
      out.timeline.push_back(std::move(e));
    }
    for (const auto& note : r.notes) out.notes.push_back("job '" + job.name + "': " + note);
    if (r.memory.estimated && r.memory.capacity_bytes > 0 &&
        r.memory.peak_bytes / r.memory.capacity_bytes > worst_memory) {
      worst_memory = r.memory.peak_bytes / r.memory.capacity_bytes;
      out.memory = r.memory;
    }
    offset += job.gpus;
    out.jobs.push_back(std::move(job));
  }
  std::sort(out.transports.begin(), out.transports.end(),
            [](const auto& a, const auto& b) { return a.pairs != b.pairs ? a.pairs > b.pairs : a.label < b.label; });
  // The shared run's ranks: every job's, numbered job after job, over the longest step: a job that
  // ends sooner waits at the step's end (barrier wait, as a single job's early rank does).
  double collectives = 0;
  offset = 0;
  for (const auto& job : out.jobs) {
    for (auto r : job.together.ranks) {
      r.rank += offset;
      r.breakdown.barrier_wait_s += out.step_time_s - job.step_together_s;
      r.barrier_wait_s = r.breakdown.barrier_wait_s;
      out.ranks.push_back(r);
    }
    offset += job.gpus;
    if (auto it = job.together.breakdown.find("collectives"); it != job.together.breakdown.end())
      collectives += it->second;
  }
  out.step_breakdown = mean_breakdown(out.ranks);
  const double inv = out.ranks.empty() ? 0 : 1.0 / static_cast<double>(out.ranks.size());
  for (const auto& r : out.ranks) {
    out.breakdown["compute_s"] += r.compute_s * inv;
    out.breakdown["comm_s"] += r.comm_s * inv;
    out.breakdown["exposed_comm_s"] += r.exposed_comm_s * inv;
    out.breakdown["barrier_wait_s"] += r.barrier_wait_s * inv;
    out.breakdown["offload_s"] += r.offload_s * inv;
  }
  out.breakdown["collectives"] = collectives;
  // --explain-mode: every job gets the same mode (rank classes only); the first job's lines.
  if (options.explain_mode && !out.jobs.empty()) out.scale_mode = out.jobs.front().together.scale_mode;
  // --time-limit: how much of one step the least advanced simulation (together or alone) covered.
  if (out.partial) out.breakdown["simulated_fraction"] = progress;
  std::vector<std::string> notes = {
      std::to_string(spec.jobs.size()) +
          " jobs on one cluster: each simulated alone (the other jobs' nodes idle) and together (one "
          "simulation, every job's flows sharing the fabric's links, every job starting one step at t = 0); "
          "lost = step together - step alone",
      "one step per job: a job that ends first leaves the fabric to the others for the rest of their step, so a "
      "longer job's loss is a lower bound of its loss in steady state, where every job keeps stepping",
      "step time and ranks here: the longest job's step, every job's ranks numbered job after job (a job that "
      "ends sooner waits at the step's end, as barrier wait); each job's own figures are under its name"};
  for (auto& note : nccl::unmodelled_nccl_env_notes(spec.nccl_env)) notes.push_back(std::move(note));
  if (spec.nccl_version > 0) notes.push_back(nccl::nccl_version_note(spec.nccl_version));
  if (auto note = nccl::collnet_note(spec.nccl_env, spec.cluster.fabric.sharp)) notes.push_back(std::move(*note));
  if (auto note = nccl::example_tuner_note(spec.nccl_env, spec.nccl_version)) notes.push_back(std::move(*note));
  if (options.full) notes.push_back("full simulation (--full): every rank and every flow simulated");
  out.notes.insert(out.notes.begin(), notes.begin(), notes.end());
  return out;
}

}  // namespace models
