// DeepSpeed ZeRO stages 1 and 2 (zero12_step.cpp, deepspeed/runtime/zero/stage_1_and_2.py): the
// collectives of a step and their bytes, when the reductions run, the optimizer on 1/N.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "models/hw/gpu.hpp"
#include "models/workload/steps/data_parallel.hpp"
#include "models/workload/steps/sharded_step.hpp"

using namespace models::workload;
using models::nccl::CollOp;

namespace {
DataParallelConfig zero12(Strategy s, int accum) {
  models::ModelSpec spec;
  spec.preset = "h200x4-decoder";
  DataParallelConfig c;
  c.model = models::model::resolve_model(spec);
  c.training.grad_accum = accum;
  c.strategy = s;
  c.dp = 8;
  c.zero.overlap_comm = false;      // DeepSpeed's default at stages 1-2
  c.zero.reduce_bucket_size = 5e7;  // elements
  c.rates = make_rates(models::hw::find_gpu("H200"), models::compute::Precision::Bf16, 300e9, 0, {});
  return c;
}

struct Zero12StepSeen {
  std::vector<int64_t> all_reduce, all_gather;
  int other = 0;
};
Zero12StepSeen collectives(const Program& p) {
  Zero12StepSeen s;
  for (const auto& stream : p.ops)
    for (const Op& o : stream) {
      if (o.kind != OpKind::Collective) continue;
      CHECK(o.slot == 0);  // the data-parallel group
      if (o.coll == CollOp::AllReduce)
        s.all_reduce.push_back(o.bytes);
      else if (o.coll == CollOp::AllGather) {
        s.all_gather.push_back(o.bytes);
        CHECK(o.in_place);
      } else
        ++s.other;
    }
  return s;
}
int64_t sum(const std::vector<int64_t>& v) {
  int64_t t = 0;
  for (int64_t b : v) t += b;
  return t;
}
}  // namespace

TEST_CASE(
    "zero2: every micro-batch all-reduces 2P in reduce_bucket_size pieces, then one all-gather of 2P after the step",
    "[workload]") {
  const DataParallelConfig c = zero12(Strategy::Zero2, 3);
  const Zero12StepSeen s = collectives(build_zero12_program(c));
  const int64_t p = c.model.total_params();
  // stage_1_and_2.py average_tensor: the bucket's slices all-reduced together
  // (use_multi_rank_bucket_allreduce), no reduce-scatter and no per-unit gather.
  CHECK(s.other == 0);
  CHECK(sum(s.all_reduce) == 3 * 2 * p);
  // Buckets of at most B = 5e7 elements (1e8 B), filled tensor by tensor in backward order; a tensor
  // above B goes alone (extra_large_param_to_reduce). h200x4-decoder (h 4096, ffn 14336, no GQA):
  // per block down, up, gate (58.7 M each) alone, then o + v (33.6 M), k + q + the norms carried
  // into the next block's first flush: 3 + 2 per block; the embedding, the head (131 M) and the
  // final norm (flushed by the first down) alone.
  const models::model::ModelShape& m = c.model;
  const int64_t mlp = 2 * int64_t(m.hidden) * m.ffn;
  int alone = 0;
  for (int64_t b : s.all_reduce) {
    CHECK((b <= 100'000'000 || b == mlp || b == 2 * m.embedding_params() || b == 2 * m.head_params()));
    alone += b == mlp;
  }
  CHECK(alone == 3 * 3 * m.layers);
  CHECK(s.all_reduce.size() == size_t(3 * (5 * m.layers + 2 + 1)));
  // step(): all_gather_dp_groups, one all_gather_into_tensor of the bf16 flat buffer.
  REQUIRE(s.all_gather.size() == 1);
  CHECK(s.all_gather[0] == 2 * p);
}

TEST_CASE("zero1: gradients reduced once, after the last micro-batch's backward without overlap_comm", "[workload]") {
  DataParallelConfig c = zero12(Strategy::Zero1, 3);
  const Program p = build_zero12_program(c);
  const Zero12StepSeen s = collectives(p);
  CHECK(sum(s.all_reduce) == 2 * c.model.total_params());
  REQUIRE(s.all_gather.size() == 1);
  // No overlap: every collective on the compute stream, after the last backward op (reduce_gradients
  // runs at the accumulation boundary, after the backward).
  size_t last_bwd = 0, first_coll = p.ops[0].size();
  for (size_t i = 0; i < p.ops[0].size(); ++i) {
    const Op& o = p.ops[0][i];
    if (o.kind == OpKind::Compute && p.names[o.arg].rfind("mb2 bwd", 0) == 0) last_bwd = i;
    if (o.kind == OpKind::Collective && first_coll == p.ops[0].size()) first_coll = i;
  }
  CHECK(last_bwd < first_coll);
  for (size_t k = 1; k < p.ops.size(); ++k)
    for (const Op& o : p.ops[k]) CHECK(o.kind != OpKind::Collective);

  // overlap_comm: the hooks reduce during the last backward, on the reduction stream.
  c.zero.overlap_comm = true;
  const Program q = build_zero12_program(c);
  int on_comm = 0;
  for (const Op& o : q.ops[kCommStream]) on_comm += o.kind == OpKind::Collective && o.coll == CollOp::AllReduce;
  CHECK(on_comm == int(s.all_reduce.size()));
  CHECK(sum(collectives(q).all_reduce) == 2 * c.model.total_params());
}

TEST_CASE("zero1/zero2: the optimizer updates P / N on the GPU, or CPU-Adam with the fp32 slices offloaded",
          "[workload]") {
  for (Strategy st : {Strategy::Zero1, Strategy::Zero2}) {
    DataParallelConfig c = zero12(st, 2);
    const double shard = double(c.model.total_params()) / c.dp;
    Program p = build_zero12_program(c);
    const OptimizerPlan plan = optimizer_plan(c.training, st);
    CHECK(plan.state_bytes == 4);  // DeepSpeed's fp32 partition
    bool adam = false;
    for (const Op& o : p.ops[0])
      if (o.kind == OpKind::Compute && p.names[o.arg].rfind("adamw", 0) == 0) {
        adam = true;
        CHECK(o.duration.seconds() == Approx(optimizer_seconds(shard, plan, c.rates)).margin(1e-12));
      }
    CHECK(adam);

    c.zero.offload_optimizer = "cpu";
    c.node_ranks = 8;
    p = build_zero12_program(c);
    int64_t d2h = 0, h2d = 0;
    double host = 0;
    for (const auto& stream : p.ops)
      for (const Op& o : stream) {
        if (o.kind == OpKind::Copy) (o.slot == uint8_t(CopyDir::GpuToHost) ? d2h : h2d) += o.bytes;
        if (o.kind == OpKind::Compute && o.slot == uint8_t(Work::Host)) host += o.duration.seconds();
      }
    // DeepSpeed's copy_grads_in_partition at 2 micro-batches: stage 1 reduces once and sends the
    // rank's fp32 slice (4 B x elements / N, rounded down per bucket); stage 2 sends the 16-bit sum
    // after the first micro-batch (2 B), brings it back to add after the second (2 B) and sends the
    // slice in fp32 (4 B).
    const double out = st == Strategy::Zero1 ? 4 * shard : (2 + 4) * shard;
    CHECK(double(d2h) == Approx(out).epsilon(1e-6));
    const double back = st == Strategy::Zero2 ? 2 * shard : 0;
    CHECK(double(h2d) == Approx(back + 2 * shard).epsilon(1e-6));  // + the updated bf16 partition
    CHECK(host == Approx(zero3_host_step_seconds(shard, 1, 8, c.rates)).epsilon(1e-9));
  }
}
