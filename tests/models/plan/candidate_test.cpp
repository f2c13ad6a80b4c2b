// A candidate written into a scenario (candidate.hpp).
#include <catch2/catch.hpp>

#include <algorithm>

#include "models/plan/candidate.hpp"
#include "tests/models/plan/plan_fixture.hpp"

using namespace models::plan;

TEST_CASE("plan: a candidate sets the layout, the batch split and the hardware", "[models][plan]") {
  auto base = plan_test::small_base();
  base.parallel.overlap_grad_reduce = true;  // a Megatron option a data-parallel candidate must drop
  Candidate c;
  c.instance = "p4d.24xlarge";
  c.nodes = 2;
  c.strategy = "zero3";
  c.offload = true;
  c.micro_batch = 2;
  c.recompute = "full";
  const auto s = apply_candidate(base, c);
  CHECK(s.cluster.instance == "p4d.24xlarge");
  CHECK(s.cluster.nodes == 2);
  CHECK(s.parallel.strategy == "zero3");
  CHECK(!s.parallel.overlap_grad_reduce);
  CHECK(s.zero.stage == 3);
  CHECK(s.zero.offload_optimizer == "cpu");
  // grad_accum = global batch / (dp x mb) = 32 / (16 x 2) = 1.
  CHECK(s.training.grad_accum == 1);
  CHECK(s.training.recompute == "full");
  CHECK(s.training.grad_checkpointing);
  CHECK(layout_text(c) == "zero3+offload dp16 mb2 recompute=full");
}

TEST_CASE("plan: a Megatron candidate's line names its degrees", "[models][plan]") {
  Candidate c;
  c.nodes = 4;
  c.tp = 8, c.pp = 4, c.vp = 2;
  c.sequence_parallel = c.distributed_optimizer = true;
  c.pods_per_node = 2;
  // dp = 32 / (8 x 4) = 1.
  CHECK(layout_text(c) == "megatron tp8 pp4 vp2 dp1 sp dist-opt mb1, 2 pods of 4 GPUs per node");
  const auto o = candidate_overrides(plan_test::small_base(), c);
  CHECK(std::find(o.set.begin(), o.set.end(), "parallel.vp=2") != o.set.end());
  CHECK(std::find(o.set.begin(), o.set.end(), "placement.gpus_per_pod=4") != o.set.end());
}

TEST_CASE("plan: the scenario's own price, per node or per GPU, is its instance's only", "[models][plan]") {
  auto base = plan_test::small_base();  // p5.48xlarge
  base.cluster.params["price.gpu_hour"] = 4;
  Candidate own, other;
  own.instance = "p5.48xlarge";
  other.instance = "p4d.24xlarge";
  CHECK(apply_candidate(base, own).cluster.params.count("price.gpu_hour") == 1);
  CHECK(apply_candidate(base, other).cluster.params.count("price.gpu_hour") == 0);
  base.cluster.price = models::PriceSpec{40, "scenario", "given"};
  CHECK(apply_candidate(base, own).cluster.price.has_value());
  CHECK_FALSE(apply_candidate(base, other).cluster.price.has_value());
  // The emitted scenario for another instance removes both (the per-GPU one in either spelling).
  const auto o = candidate_overrides(base, other);
  for (const char* k : kOwnPriceKeys) CHECK(std::find(o.remove.begin(), o.remove.end(), k) != o.remove.end());
  const auto mine = candidate_overrides(base, own);
  CHECK(std::find(mine.remove.begin(), mine.remove.end(), "cluster.price_per_hour") == mine.remove.end());
}
