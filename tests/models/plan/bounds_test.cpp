// The planner's bounds (bounds.hpp): the closed forms of the step bound, and both bounds below
// what the run reports.
#include <catch2/catch.hpp>

#include "models/compute/gemm.hpp"
#include "models/hw/instance.hpp"
#include "models/plan/bounds.hpp"
#include "models/plan/candidate.hpp"
#include "models/run/run.hpp"
#include "models/workload/compute.hpp"
#include "models/model/model_shape.hpp"
#include "tests/models/plan/plan_fixture.hpp"

using namespace models::plan;

namespace {
Candidate megatron(int nodes, int tp, int pp, int vp, const std::string& schedule = "1f1b") {
  Candidate c;
  c.instance = "p5.48xlarge";
  c.nodes = nodes;
  c.tp = tp, c.pp = pp, c.vp = vp;
  c.schedule = schedule;
  c.sequence_parallel = tp > 1;
  c.distributed_optimizer = true;
  return c;
}
}  // namespace

TEST_CASE("plan: the step bound of data parallelism is m (L w + head) (closed form)", "[models][plan]") {
  const auto base = plan_test::small_base();
  const auto m = models::model::resolve_model(*base.model);
  Candidate c;
  c.instance = "p5.48xlarge";
  c.strategy = "fsdp";
  const auto spec = apply_candidate(base, c);
  const StepBound b = step_lower_bound(spec, m, 8);
  // A dense block at cp 1 with flash attention: every kernel as the compute model prices it on
  // T = 2048 tokens with the power limit's stretch left out (1).
  const auto rates = models::workload::make_rates(models::hw::find_instance("p5.48xlarge").gpu,
                                                  models::workload::training_precision(spec.training), 1e9, 0, {});
  const auto block = models::workload::block_seconds(m, 2048, 1, rates);
  CHECK(b.block_fwd_s == Approx(block.fwd()).epsilon(1e-12));
  CHECK(b.block_bwd_s == Approx(block.bwd()).epsilon(1e-12));
  // m = global batch / dp / mb = 32 / 8 = 4 micro-batches of 32 blocks and the head.
  const auto head = models::workload::head_seconds(m, 2048, 1, rates);
  CHECK(b.step_s == Approx(4 * (32 * (block.fwd() + block.bwd()) + head.fwd.total() + head.bwd.total())).epsilon(1e-12));
  // The GEMMs alone are a part of it (the law's forward products of one block).
  auto lin = [&](int64_t in, int64_t out) { return models::compute::linear_seconds(rates.gpu.gemm, 2048, in, out); };
  CHECK(b.block_fwd_s > lin(4096, 6144).fwd + lin(4096, 4096).fwd + 2 * lin(4096, 14336).fwd + lin(14336, 4096).fwd);
}

TEST_CASE("plan: the pipeline bound adds (pp - 1) chunks to m stages' work", "[models][plan]") {
  const auto base = plan_test::small_base();
  const auto m = models::model::resolve_model(*base.model);
  // tp 2, pp 4 on 8 GPUs: dp 1, m = 32 micro-batches; 8 layers per stage.
  const StepBound plain = step_lower_bound(apply_candidate(base, megatron(1, 2, 4, 1)), m, 8);
  const double w = 8 * (plain.block_fwd_s + plain.block_bwd_s);
  CHECK(plain.step_s == Approx((32 + 3) * w).epsilon(1e-12));
  // Interleaved, vp 2: chunks of 4 layers, so the warm-up is (pp - 1) half-stages.
  const StepBound inter = step_lower_bound(apply_candidate(base, megatron(1, 2, 4, 2)), m, 8);
  CHECK(inter.step_s == Approx(32 * w + 3 * w / 2).epsilon(1e-12));
  // zb_h1: the forward warm-up only.
  const StepBound zb = step_lower_bound(apply_candidate(base, megatron(1, 2, 4, 1, "zb_h1")), m, 8);
  CHECK(zb.step_s == Approx(32 * w + 3 * 8 * plain.block_fwd_s).epsilon(1e-12));
}

TEST_CASE("plan: both bounds stay below what the run reports", "[models][plan]") {
  const auto base = plan_test::small_base();
  const auto m = models::model::resolve_model(*base.model);
  models::RunOptions opt;
  opt.timeline = false;
  for (const Candidate& c : {megatron(1, 2, 4, 1), megatron(1, 8, 1, 1), megatron(2, 4, 2, 2), megatron(1, 1, 4, 1, "zb_h1")}) {
    const auto spec = apply_candidate(base, c);
    const auto r = models::run_scenario(spec, opt);
    INFO(layout_text(c));
    CHECK(step_lower_bound(spec, m, 8).step_s <= r.step_time_s * (1 + 1e-6));  // ps rounding of the ops
    CHECK(memory_lower_bound(spec, m, 8) <= r.memory.peak_bytes);
    // The memory bound is the run's estimate without NCCL's buffers: within them of the peak.
    CHECK(memory_lower_bound(spec, m, 8) >= r.memory.peak_bytes - 2e9);
  }
}
