// HSDP (fsdp_step.cpp; FSDP2 fully_shard on a (replicate, shard) mesh): FSDP2's collectives inside
// the shard group, then each unit's gradient shard all-reduced over the replicas.
#include <catch2/catch.hpp>

#include "models/hw/gpu.hpp"
#include "models/workload/steps/data_parallel.hpp"
#include "models/workload/steps/sharded_step.hpp"

using namespace models::workload;
using models::nccl::CollOp;

namespace {
DataParallelConfig hsdp(int dp, int dp_shard) {
  models::ModelSpec s;
  s.preset = "h200x4-decoder";
  DataParallelConfig c;
  c.model = models::model::resolve_model(s);
  c.training.grad_accum = 2;
  c.strategy = Strategy::Hsdp;
  c.dp = dp;
  c.dp_shard = dp_shard;
  c.rates = make_rates(models::hw::find_gpu("H200"), models::compute::Precision::Bf16, 300e9, 0, {});
  return c;
}
}  // namespace

TEST_CASE("hsdp: gathers and reduce-scatters in the shard group, the shard all-reduced over the replicas",
          "[workload]") {
  const DataParallelConfig c = hsdp(16, 4);
  const Program p = build_fsdp_program(c);
  const models::model::ModelShape& m = c.model;
  const int units = m.layers + 1, micro = 2;  // the root group and the blocks
  REQUIRE(p.streams() == 4);  // compute, comm, offload, allreduce
  int ag = 0, rs = 0, ar = 0;
  int64_t ag_bytes = 0, rs_bytes = 0, ar_bytes = 0;
  for (int s = 0; s < p.streams(); ++s)
    for (const Op& o : p.ops[s]) {
      if (o.kind != OpKind::Collective) continue;
      if (o.coll == CollOp::AllReduce) {
        CHECK(o.slot == kReplicaSlot);
        CHECK(s == kAllReduceStream);
        ++ar, ar_bytes += o.bytes;
        continue;
      }
      CHECK(o.slot == kDpSlot);
      if (o.coll == CollOp::AllGather) ++ag, ag_bytes += o.bytes;
      if (o.coll == CollOp::ReduceScatter) ++rs, rs_bytes += o.bytes;
    }
  // FSDP2's per micro-batch: every group gathered forward, every block backward, every group
  // reduce-scattered (bf16, nccl-tests' convention: the gathered / reduced total).
  const int64_t blocks = int64_t(m.layers) * m.block_params();
  CHECK(ag == micro * (units + m.layers));
  CHECK(ag_bytes == micro * 2 * (m.total_params() + blocks));
  CHECK(rs == micro * units);
  CHECK(rs_bytes == micro * 2 * m.total_params());
  // HSDP: one all-reduce per group and micro-batch of its shard, ceil(params / 4) x 2 B (the root
  // group: the embedding, the head and the final norm together).
  const int64_t root = m.embedding_params() + m.head_params() + m.hidden;
  const int64_t expected =
      micro * (hsdp_all_reduce_bytes(root, 4, 2) + m.layers * hsdp_all_reduce_bytes(m.block_params(), 4, 2));
  CHECK(ar == micro * units);
  CHECK(ar_bytes == expected);
  CHECK(double(ar_bytes) == Approx(micro * 2.0 * m.total_params() / 4).epsilon(1e-6));
}

TEST_CASE("hsdp: one shard group is FSDP, and the optimizer updates 1 / dp_shard", "[workload]") {
  DataParallelConfig one = hsdp(8, 8);
  DataParallelConfig full = one;
  full.strategy = Strategy::Fsdp;
  full.dp_shard = 0;
  const Program a = build_fsdp_program(one), b = build_fsdp_program(full);
  REQUIRE(a.streams() == b.streams());
  for (int s = 0; s < a.streams(); ++s) {
    REQUIRE(a.ops[s].size() == b.ops[s].size());
    for (size_t i = 0; i < a.ops[s].size(); ++i) {
      CHECK(a.ops[s][i].bytes == b.ops[s][i].bytes);
      CHECK(a.ops[s][i].duration == b.ops[s][i].duration);
    }
  }
  // 32 ranks in shard groups of 8: AdamW on P / 8, as FSDP over 8 ranks.
  const DataParallelConfig c = hsdp(32, 8);
  const Program p = build_fsdp_program(c);
  const OptimizerPlan plan = optimizer_plan(c.training, Strategy::Hsdp);
  bool adam = false;
  for (const Op& o : p.ops[kComputeStream])
    if (o.kind == OpKind::Compute && p.names[o.arg].rfind("adamw", 0) == 0) {
      adam = true;
      CHECK(o.duration.seconds() ==
            Approx(optimizer_seconds(double(c.model.total_params()) / 8, plan, c.rates)).margin(1e-12));
    }
  CHECK(adam);
  CHECK(hsdp_all_reduce_bytes(10, 4, 2) == 6);  // ceil(10 / 4) = 3 elements
}
