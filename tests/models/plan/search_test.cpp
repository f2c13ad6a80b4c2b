// The planner's search: best first with lower bounds gives the same winner as simulating every
// candidate (exactness), the bounds never exceed a simulated step, the audit finds nothing, the
// shards' union ranks like one run, and constraints without an answer say so.
#include <catch2/catch.hpp>

#include "models/run/cost.hpp"

#include <algorithm>
#include <cmath>

#include "models/error.hpp"
#include "models/plan/search.hpp"
#include "tests/models/plan/plan_fixture.hpp"

using namespace models::plan;

namespace {
double best_time(const PlanResult& r) { return r.ranked.empty() ? -1 : r.ranked.front().train_s; }
}  // namespace

TEST_CASE("plan: the best-first winner equals the best of every candidate simulated", "[models][plan]") {
  const auto base = plan_test::small_base();
  PlanOptions o = plan_test::small_options();
  const PlanResult fast = plan_layouts(base, o);
  o.exhaustive = true;
  const PlanResult all = plan_layouts(base, o);
  // Exhaustive: every candidate inside the memory bound is simulated, nothing skipped.
  CHECK(all.skipped_by_bound == 0);
  CHECK(all.simulated == all.in_shard);
  REQUIRE(!fast.ranked.empty());
  REQUIRE(!all.ranked.empty());
  // The same best time to train (the same layout, or one that ties it exactly).
  CHECK(best_time(fast) == best_time(all));
  CHECK(layout_text(fast.ranked.front().candidate) == layout_text(all.ranked.front().candidate));
  // The search saved work: it simulated at most what the exhaustive run did.
  CHECK(fast.simulated <= all.simulated);
  // Bounds: no simulated step below its lower bound (bounds.hpp's argument).
  CHECK(all.audit_bound_violations.empty());
  for (const auto& e : all.ranked) CHECK(e.step_bound_s <= e.step_s * (1 + 1e-6));
}

TEST_CASE("plan: the audit simulates every skipped layout and none beats the winner", "[models][plan]") {
  PlanOptions o = plan_test::small_options();
  o.audit = true;
  const PlanResult r = plan_layouts(plan_test::small_base(), o);
  CHECK(r.audited == r.skipped_by_bound + r.infeasible_by_bound);
  CHECK(r.audit_beats_winner.empty());
  CHECK(r.audit_bound_violations.empty());
}

TEST_CASE("plan: shards rank every candidate once and their best is the whole search's", "[models][plan]") {
  const auto base = plan_test::small_base();
  PlanOptions o = plan_test::small_options();
  const PlanResult whole = plan_layouts(base, o);
  double best = 1e300;
  int64_t owned = 0;
  for (size_t i = 0; i < 3; ++i) {
    o.shard_index = i;
    o.shard_count = 3;
    const PlanResult part = plan_layouts(base, o);
    owned += part.in_shard;
    if (!part.ranked.empty()) best = std::min(best, part.ranked.front().train_s);
  }
  CHECK(owned == whole.in_shard);
  CHECK(best == best_time(whole));
}

TEST_CASE("plan: the work is steps x step, the steps come from training.tokens, the time to train adds failures",
          "[models][plan]") {
  auto base = plan_test::small_base();
  base.training.tokens = 1e9;
  PlanOptions o = plan_test::small_options();
  o.space.strategies = {"megatron"};
  const PlanResult r = plan_layouts(base, o);
  // tokens per step = global batch x seq = 32 x 2048 = 65,536; steps = ceil(1e9 / 65,536) = 15,259.
  CHECK(r.tokens_per_step == 65536);
  CHECK(r.steps == 15259);
  REQUIRE(!r.ranked.empty());
  for (const auto& e : r.ranked) {
    CHECK(e.work_s == Approx(e.step_s * 15259).epsilon(1e-12));
    // Daly's expected wall time over the catalog's failure rates: above the work, by its goodput.
    CHECK(e.train_s > e.work_s);
    CHECK(e.goodput == Approx(e.work_s / e.train_s).epsilon(1e-12));
  }
  // p5.48xlarge has a catalog price: cost = time x nodes x $/h / 3600, of either time.
  const auto& w = r.ranked.front();
  REQUIRE(w.cost_usd);
  REQUIRE(w.work_cost_usd);
  CHECK(*w.cost_usd == Approx(w.train_s * 55.04 * w.candidate.nodes / 3600).epsilon(1e-12));
  CHECK(*w.work_cost_usd == Approx(w.work_s * 55.04 * w.candidate.nodes / 3600).epsilon(1e-12));
  CHECK(w.pricing == "on-demand");
}

TEST_CASE("plan: the cost objective ranks by dollars and a budget filters", "[models][plan]") {
  const auto base = plan_test::small_base();
  PlanOptions o = plan_test::small_options();
  o.objective = Objective::Cost;
  const PlanResult r = plan_layouts(base, o);
  REQUIRE(r.ranked.size() >= 2);
  for (size_t i = 1; i < r.ranked.size(); ++i) CHECK(*r.ranked[i - 1].cost_usd <= *r.ranked[i].cost_usd);
  // A budget just under the cheapest leaves nothing ranked (the command says so and exits 2).
  o.budget_usd = *r.ranked.front().cost_usd * 0.999;
  const PlanResult none = plan_layouts(base, o);
  CHECK(none.ranked.empty());
}

TEST_CASE("plan: the Pareto front keeps exactly the layouts no other beats in both time and cost", "[models][plan]") {
  std::vector<Evaluated> rows(4);
  auto set = [&](size_t i, double t, double c) {
    rows[i].train_s = t;
    rows[i].cost_usd = c;
  };
  set(0, 10, 100);  // fastest: on the front
  set(1, 20, 50);   // slower, cheaper: on the front
  set(2, 25, 60);   // beaten by row 1 in both
  set(3, 30, 40);   // cheapest: on the front
  CHECK(pareto_front(rows) == std::vector<size_t>{0, 1, 3});
}

TEST_CASE("plan: a missing price with a budget is a user error naming the instance", "[models][plan]") {
  auto base = plan_test::small_base();
  PlanOptions o = plan_test::small_options();
  o.space.instances = {"dgx-h100"};  // bought, not rented: no catalog price
  o.budget_usd = 1e6;
  try {
    plan_layouts(base, o);
    FAIL("expected a SpecError");
  } catch (const models::SpecError& e) {
    CHECK(std::string(e.what()).find("no price for dgx-h100") != std::string::npos);
  }
  // Without a budget or the cost objective, the plan runs and lists the instance as unpriced.
  o.budget_usd.reset();
  o.space.strategies = {"megatron"};
  const PlanResult r = plan_layouts(base, o);
  CHECK(r.missing_prices == std::vector<std::string>{"dgx-h100"});
  REQUIRE(!r.ranked.empty());
  CHECK(!r.ranked.front().cost_usd);
}

TEST_CASE("plan: on two priced instances the cost objective ranks by $ of the closed form", "[models][plan]") {
  // $ per run = time paid x nodes x one node's $/h / 3600, each row at its own instance's
  // catalog price: p5.48xlarge $55.04 on demand, p5e.48xlarge $39.80 a Capacity Block's rate
  // (models/hw/prices.cpp). Both are 8 x H100/H200 nodes: the ranking mixes them by $ alone.
  auto base = plan_test::small_base();
  PlanOptions o = plan_test::small_options();
  o.space.instances = {"p5.48xlarge", "p5e.48xlarge"};
  o.space.strategies = {"megatron", "zero3"};
  o.space.micro_batches = {1};
  o.objective = Objective::Cost;
  o.exhaustive = true;  // every layout that fits is simulated, so both instances have rows
  const PlanResult r = plan_layouts(base, o);
  REQUIRE(r.missing_prices.empty());
  REQUIRE(r.node_prices.at("p5e.48xlarge").pricing == "capacity block");
  bool seen[2] = {false, false};
  for (size_t i = 0; i < r.ranked.size(); ++i) {
    const Evaluated& e = r.ranked[i];
    INFO(layout_text(e.candidate) << " on " << e.candidate.instance);
    const bool p5e = e.candidate.instance == "p5e.48xlarge";
    seen[p5e] = true;
    const double node_usd = p5e ? 39.80 : 55.04;
    REQUIRE(e.cost_usd);
    // A Capacity Block is paid for its whole window (whole days), on-demand by the second; both
    // over the expected time to train (the steps, failures and restarts).
    const double paid_s = models::billed_seconds(e.pricing, e.train_s);
    CHECK(paid_s == (p5e ? 86400 : e.train_s));
    CHECK(*e.cost_usd == Approx(paid_s * e.candidate.nodes * node_usd / 3600).epsilon(1e-12));
    CHECK(e.pricing == (p5e ? "capacity block" : "on-demand"));
    if (i > 0) CHECK(*r.ranked[i - 1].cost_usd <= *e.cost_usd);
  }
  CHECK(seen[0]);
  CHECK(seen[1]);
}

TEST_CASE("plan: 64 of an NVL72 rack's 72 GPUs run as planned, the rack paid whole, the bounds still below",
          "[models][plan]") {
  // u-p6e-gb200x72 at $761.904 per UltraServer-hour (models/hw/prices.cpp): a layout on 16 of its
  // 18 trays pays all 18. Global batch 32 divides no dp on 72 GPUs with tp a power of two.
  auto base = plan_test::small_base();
  PlanOptions o = plan_test::small_options();
  o.space.instances = {"u-p6e-gb200x72"};
  o.space.min_gpus = 64;
  o.space.max_gpus = 144;
  o.space.strategies = {"megatron", "fsdp"};
  o.space.micro_batches = {1};
  o.audit = true;
  const PlanResult r = plan_layouts(base, o);
  REQUIRE(!r.ranked.empty());
  CHECK(r.audit_beats_winner.empty());
  CHECK(r.audit_bound_violations.empty());
  CHECK(r.by_instance.at("u-p6e-gb200x72").ranked == int64_t(r.ranked.size()));
  for (const Evaluated& e : r.ranked) {
    INFO(layout_text(e.candidate));
    CHECK(e.candidate.gpus_per_node == 64);
    CHECK(e.candidate.gpus() == 64 * e.candidate.nodes);
    REQUIRE(e.cost_usd);
    CHECK(*e.cost_usd ==
          Approx(models::billed_seconds(e.pricing, e.step_s * r.steps) * e.candidate.nodes * 761.904 / 3600)
              .epsilon(1e-12));
  }
}

TEST_CASE("plan: on a mixture of experts the bound counts the experts and stays exact", "[models][plan]") {
  // Llama 4 Scout (16 experts top 1 and a shared expert in every layer) on 2 x p6-b300: an MoE
  // layer's MLP is bounded by its router, permutes, grouped experts and shared expert as
  // Megatron's layer prices them. Without them every layout here was simulated (0 skipped).
  auto base = plan_test::small_base();
  base.cluster.instance = "p6-b300.48xlarge";
  base.model->preset = "llama-4-scout";
  base.model->seq = 4096;
  base.training.global_batch = 64;
  PlanOptions o = plan_test::small_options();
  o.space.min_gpus = o.space.max_gpus = 16;
  o.space.strategies = {"megatron"};
  o.space.micro_batches = {1};
  o.space.max_pp = 2;
  o.space.max_vp = 1;
  o.audit = true;
  const PlanResult r = plan_layouts(base, o);
  REQUIRE(!r.ranked.empty());
  CHECK(r.audit_beats_winner.empty());
  CHECK(r.audit_bound_violations.empty());
  CHECK(r.skipped_by_bound > r.simulated);
  bool expert_parallel = false;
  for (const Evaluated& e : r.ranked) expert_parallel |= e.candidate.ep > 1;
  CHECK(expert_parallel);
}

TEST_CASE("plan: on a mixture of experts the all-to-alls' bound never exceeds the run (audit)", "[models][plan]") {
  // Qwen3-30B-A3B (128 experts, top 8, every layer MoE) at seq 1024 on one and two p5.48xlarge
  // nodes: expert parallelism inside a node (NVLink) and across two (EFA), with and without an ETP
  // group. The step bound counts each MoE layer's all-to-alls at the GPU ports' bandwidth
  // (comm_bound.hpp); the audit simulates every skipped layout: none beats the winner and no
  // simulated step, skipped or not, is below its bound.
  auto base = plan_test::small_base();
  base.model->preset = "qwen3-30b-a3b";
  base.model->seq = 1024;
  base.training.global_batch = 32;
  PlanOptions o = plan_test::small_options();
  o.space.strategies = {"megatron"};
  o.space.micro_batches = {1};
  o.space.recompute = {"none"};
  o.space.max_pp = 2;
  o.space.max_vp = 1;
  o.space.zero_bubble = false;
  o.audit = true;
  const PlanResult r = plan_layouts(base, o);
  REQUIRE(!r.ranked.empty());
  CHECK(r.audit_beats_winner.empty());
  CHECK(r.audit_bound_violations.empty());
  CHECK(r.audited == r.skipped_by_bound + r.infeasible_by_bound);
  CHECK(r.skipped_by_bound > 0);
}
