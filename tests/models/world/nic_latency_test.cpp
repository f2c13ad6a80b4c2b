// nic.latency and eth.latency (models/world/link_rates.hpp): NCCL's per-step latencies already
// hold the catalog's wire, so a value set in [cluster.params] moves every step that crosses the
// network by its difference from the catalog's, and nothing that stays inside a node.
//   T' = T + steps x (L' - L)   for a ring all-reduce over n nodes of one rank each: 2(n-1) steps.
#include <catch2/catch.hpp>

#include "models/run/run.hpp"
#include "models/spec.hpp"

using namespace models;

namespace {
ScenarioSpec one_rank_per_node_ring(int nodes) {
  ScenarioSpec s;
  s.cluster.instance = "p4d.24xlarge";
  s.cluster.nodes = nodes;
  s.placement.pods_per_node = 1;
  s.placement.gpus_per_pod = 1;
  s.collective = CollectiveSpec{"all_reduce", 8, 1};
  s.nccl_env = {{"NCCL_ALGO", "Ring"}, {"NCCL_PROTO", "LL"}};
  return s;
}
}  // namespace

TEST_CASE("nic latency: a set value moves each network step by its difference from the catalog's", "[models]") {
  const ScenarioSpec base = one_rank_per_node_ring(4);
  const double t0 = run_scenario(base).step_time_s;
  ScenarioSpec slow = base;
  slow.cluster.params["nic.latency"] = 1e-3;  // the catalog's EFA is microseconds: ~1 ms more per step
  const double t1 = run_scenario(slow).step_time_s;
  // 2(n - 1) = 6 steps, each ~1 ms more (less the catalog's few microseconds).
  CHECK(t1 - t0 == Approx(6e-3).epsilon(0.02));
  // A lower latency than the catalog's shortens each step, never below 0.
  ScenarioSpec none = base;
  none.cluster.params["nic.latency"] = 0;
  const double t2 = run_scenario(none).step_time_s;
  CHECK(t2 < t0);
  CHECK(t2 > 0);
  // One node: no network step, no change.
  ScenarioSpec node = one_rank_per_node_ring(1);
  node.placement.gpus_per_pod = 8;
  const double n0 = run_scenario(node).step_time_s;
  node.cluster.params["nic.latency"] = 1e-3;
  CHECK(run_scenario(node).step_time_s == n0);
}
