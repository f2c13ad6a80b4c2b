// Unequal ranks and NICs through run_scenario: placement.nics_per_pod (a pod's NICs), and
// [[stragglers]] (a slow GPU or NIC) with the barrier wait it puts on every other rank.
#include <catch2/catch.hpp>

#include "models/error.hpp"
#include "models/run/run.hpp"
#include "models/run/stragglers.hpp"

using namespace models;

namespace {
ScenarioSpec collective_on(const std::string& instance, int nodes, int64_t bytes) {
  ScenarioSpec s;
  s.cluster.instance = instance;
  s.cluster.nodes = nodes;
  s.collective = CollectiveSpec{"all_reduce", bytes, 1};
  return s;
}
ScenarioSpec zero3_p4d_2node() {
  ScenarioSpec s;
  s.cluster.instance = "p4d.24xlarge";
  s.cluster.nodes = 2;
  ModelSpec m;
  m.layers = 4;
  m.hidden = 2048;
  m.heads = 16;
  m.kv_heads = 16;
  m.ffn = 8192;
  m.vocab = 32000;
  m.seq = 1024;
  s.model = m;
  s.parallel.strategy = "zero3";
  s.cluster.params["compute.overlap_slowdown"] = 0;  // compute time independent of overlap: exact
  return s;
}
}  // namespace

TEST_CASE("nics per pod: a p5 pod holding 1 EFA is visibly slower than one holding 4", "[models]") {
  ScenarioSpec s = collective_on("p5.48xlarge", 2, int64_t{1} << 30);
  s.nccl_env = {{"NCCL_ALGO", "Ring"}};  // the ring's closed form (2 nodes would pick Tree)
  s.placement.nics_per_pod = 1;
  const double one = run_scenario(s).step_time_s;
  s.placement.nics_per_pod = 4;
  const double four = run_scenario(s).step_time_s;
  // The ring's bytes leave each node through 1 x 100 Gb/s instead of 4: about 4x the bandwidth term.
  CHECK(one > 3 * four);
  const double one_efa_bound = 2.0 * 15 / 16 * (int64_t{1} << 30) / 12.5e9;
  CHECK(one >= one_efa_bound);
}

TEST_CASE("stragglers: one slow GPU of a 2-node job puts barrier wait on the other 15 ranks", "[models]") {
  ScenarioSpec s = zero3_p4d_2node();
  const RunResult even = run_scenario(s);
  StragglerSpec slow;
  slow.ranks = {5};
  slow.compute_slowdown = 1.3;
  s.stragglers.push_back(slow);
  const RunResult r = run_scenario(s);
  REQUIRE(r.ranks.size() == 16);
  CHECK(r.step_time_s > even.step_time_s);
  // Rank 5 arrives last at every collective: it waits for nobody; the others wait for it.
  const double own = r.ranks[5].barrier_wait_s;
  for (const auto& rr : r.ranks) {
    INFO("rank " << rr.rank);
    CHECK(rr.compute_s ==
          Approx(rr.rank == 5 ? 1.3 * even.ranks[rr.rank].compute_s : even.ranks[rr.rank].compute_s).epsilon(1e-6));
    if (rr.rank == 5) continue;
    CHECK(rr.barrier_wait_s > own);
    // Each collective waits for rank 5's extra compute before it: at most 0.3 x its compute in all.
    CHECK(rr.barrier_wait_s - even.ranks[rr.rank].barrier_wait_s > 0);
    CHECK(rr.barrier_wait_s <= 0.3 * r.ranks[5].compute_s / 1.3 + even.ranks[rr.rank].barrier_wait_s + 1e-9);
  }
  // What they cost: the run also simulates the same step without [[stragglers]] (stragglers.hpp),
  // which is exactly the even run, and says the difference in its notes.
  REQUIRE(r.straggler_free_step_s);
  CHECK(*r.straggler_free_step_s == even.step_time_s);
  CHECK_FALSE(even.straggler_free_step_s);
  bool noted = false;
  for (const auto& n : r.notes) noted |= n.find("without [[stragglers]]") != std::string::npos;
  CHECK(noted);
  // A straggler-free run stopped by --time-limit leaves the cost unknown, not wrong.
  RunResult stopped_free = even;
  stopped_free.partial = true;
  RunResult unknown = r;
  unknown.straggler_free_step_s.reset();
  unknown.notes.clear();
  add_straggler_cost(unknown, stopped_free);
  CHECK_FALSE(unknown.straggler_free_step_s);
  REQUIRE(unknown.notes.size() == 1);
  CHECK(unknown.notes[0].find("cost is unknown") != std::string::npos);
}

TEST_CASE("stragglers: a node's NIC at half rate slows a cross-node ring", "[models]") {
  ScenarioSpec s = collective_on("p4d.24xlarge", 2, int64_t{1} << 30);
  s.nccl_env = {{"NCCL_ALGO", "Ring"}};
  const double even = run_scenario(s).step_time_s;
  StragglerSpec half;
  half.node = 1;
  half.nic_bandwidth_factor = 0.5;
  s.stragglers.push_back(half);
  const double slow = run_scenario(s).step_time_s;
  CHECK(slow > 1.5 * even);
  CHECK(slow < 2.2 * even);
}

TEST_CASE("stragglers: a rank or node the job lacks names its key", "[models]") {
  ScenarioSpec s = zero3_p4d_2node();
  StragglerSpec bad;
  bad.ranks = {16};
  bad.compute_slowdown = 2;
  s.stragglers.push_back(bad);
  try {
    run_scenario(s);
    FAIL("expected a SpecError");
  } catch (const SpecError& e) {
    CHECK(e.key() == "stragglers.0.ranks");
  }
}
