// RunResult::goodput from the scenario and the step (goodput_fill.hpp).
#include "models/run/goodput_fill.hpp"

#include "models/run/cost.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <utility>

#include "models/goodput/checkpoint.hpp"
#include "models/goodput/failures.hpp"
#include "models/goodput/goodput.hpp"
#include "models/hw/links.hpp"
#include "models/memory/checkpoint_state.hpp"
#include "models/memory/memory_fill.hpp"
#include "models/model/model_shape.hpp"
#include "models/params.hpp"
#include "models/topology/resolve.hpp"
#include "models/workload/layout.hpp"

namespace models {

CheckpointBytes checkpoint_bytes_per_param(const ScenarioSpec& spec, int gpus, int node_ranks) {
  const auto& p = spec.cluster.params;
  if (p.count("checkpoint.bytes_per_param"))
    return {param_or(p, "checkpoint.bytes_per_param", 0), "checkpoint.bytes_per_param"};
  const model::ModelShape shape = model::resolve_model(*spec.model);
  const workload::ParallelLayout layout = workload::make_layout(spec, shape, gpus, node_ranks);
  const memory::CheckpointStateBytes b = memory::checkpoint_state_bytes(step_memory_inputs(spec, shape, layout));
  char parts[120];
  if (b.master > 0)
    std::snprintf(parts, sizeof parts, "weights %g + fp32 master %g + Adam m, v %g", b.weights, b.master, b.moments);
  else
    std::snprintf(parts, sizeof parts, "weights %g + Adam m, v %g", b.weights, b.moments);
  return {b.total(), parts};
}

void fill_goodput(RunResult& result, const ScenarioSpec& spec) {
  if (spec.collective || !spec.model || result.partial || result.step_time_s <= 0 || result.ranks.empty()) return;
  const int gpus = static_cast<int>(result.ranks.size());
  const hw::NodeSpec node = topology::resolve_node(spec.cluster);
  // Host failures count hosts: a node of the catalog that is a multi-host NVLink domain (an NVL72
  // rack, 18 trays of 4 GPUs) fails by its trays, each its own host with its own CPUs, memory,
  // power and NICs, as the hosts of 8-GPU nodes do.
  int nodes = 0, node_ranks = 0;
  std::set<std::pair<int, int>> hosts;
  for (const auto& r : result.ranks) {
    nodes = std::max(nodes, r.node + 1);
    hosts.insert({r.node, node.host_of(r.gpu)});
    node_ranks += r.node == result.ranks.front().node;
  }
  const auto& p = spec.cluster.params;
  GoodputResult& g = result.goodput;
  g.estimated = true;
  g.gpus = gpus;
  g.nodes = nodes;
  g.hosts = static_cast<int>(hosts.size());

  const goodput::FailureModel failures = goodput::failure_model(p, gpus, g.hosts);
  g.interruptions_per_day = failures.per_hour() * 24;
  g.mtbf_s = failures.mtbf_s();
  for (const auto& c : failures.components) g.components.push_back({c.name, c.per_hour * 24});
  g.failure_rates_source = goodput::failure_rates_source(p);
  std::stable_sort(g.components.begin(), g.components.end(),
                   [](const ComponentRate& a, const ComponentRate& b) { return a.per_day > b.per_day; });

  const double aggregate = param_or(p, "checkpoint.storage_bandwidth", 0);
  g.storage_bandwidth_bytes_per_s =
      aggregate > 0 ? aggregate
                    : param_or(p, "checkpoint.storage_bandwidth_per_gpu",
                               param_default("checkpoint.storage_bandwidth_per_gpu")) *
                          gpus;
  g.checkpoint_async = param_or(p, "checkpoint.async", 0) >= 0.5;
  const model::ModelShape shape = model::resolve_model(*spec.model);
  const CheckpointBytes per_param = checkpoint_bytes_per_param(spec, gpus, node_ranks);
  g.checkpoint_bytes_per_param = per_param.per_param;
  g.checkpoint_states = per_param.parts;
  const goodput::CheckpointCost ckpt =
      goodput::checkpoint_cost({.params = static_cast<double>(shape.total_params()),
                                .bytes_per_param = g.checkpoint_bytes_per_param,
                                .gpus = gpus,
                                .storage_bandwidth = g.storage_bandwidth_bytes_per_s,
                                .host_copy_bandwidth = hw::pcie(node.host_link_gen(), node.pcie_lanes).bytes_per_s,
                                .async = g.checkpoint_async});
  g.checkpoint_bytes = ckpt.bytes;
  g.checkpoint_write_s = ckpt.write_s;
  g.checkpoint_blocking_s = ckpt.blocking_s;
  g.restart_s = param_or(p, "restart.time", param_default("restart.time"));
  g.restart_assumed = !p.count("restart.time");

  g.step_s = result.variability.sampled ? result.variability.mean_s : result.step_time_s;
  // The run's steps as its run time counts them (RunResult::steps stops at 2e9; a token target
  // past it still runs them all).
  g.work_s = g.step_s * (result.step_time_s > 0 ? result.run_time_s / result.step_time_s : double(result.steps));
  const goodput::GoodputEstimate e = goodput_over(g, g.work_s, g.step_s);
  g.young_interval_s = e.young_s;
  g.daly_interval_s = e.daly_s;
  g.plan = e.plan;
  g.interval_s = e.interval_s;
  g.interval_steps = e.interval_steps;
  g.interval_wall_s = e.interval_wall_s;
  g.expected_wall_s = e.wall_s;
  g.goodput = e.goodput;
  g.expected_interruptions = e.interruptions;
  g.checkpoint_overhead_s = e.checkpoint_overhead_s;
  g.rework_s = e.rework_s;
  g.restart_overhead_s = e.restart_overhead_s;
  // The run's own price (make_cost: the scenario's, the user's file or the catalog), so the
  // goodput's cost and the run's $ per run rest on one figure.
  if (result.cost.known && result.cost.usd_per_hour > 0) {
    g.billed_gpus = result.cost.gpus > 0 ? result.cost.gpus : gpus;  // whole nodes, idle GPUs too
    g.price_per_gpu_hour = result.cost.usd_per_hour / g.billed_gpus;
    g.expected_cost = usd_for_seconds(result.cost, g.expected_wall_s);
    g.work_cost = usd_for_seconds(result.cost, g.work_s);
  }
}

goodput::GoodputEstimate goodput_over(const GoodputResult& g, double work_s, double step_s) {
  return goodput::estimate_goodput({.work_s = work_s,
                                    .step_s = step_s,
                                    .blocking_s = g.checkpoint_blocking_s,
                                    .write_s = g.checkpoint_write_s,
                                    .async = g.checkpoint_async,
                                    .restart_s = g.restart_s,
                                    .mtbf_s = g.mtbf_s});
}

}  // namespace models
