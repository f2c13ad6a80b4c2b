// FSDP2 (fsdp_step.cpp): its collectives per micro-batch, and on one GPU the closed form of the
// compute model (compute.hpp single_gpu_breakdown).
#include <catch2/catch.hpp>

#include "models/hw/gpu.hpp"
#include "models/workload/steps/data_parallel.hpp"

using namespace models::workload;
using models::nccl::CollOp;

namespace {
DataParallelConfig fsdp(int dp) {
  models::ModelSpec s;
  s.preset = "h200x4-decoder";
  DataParallelConfig c;
  c.model = models::model::resolve_model(s);
  c.training.micro_batch = 2;
  c.training.param_dtype = "fp32";  // FSDP2 mixed precision: fp32 parameters, bf16 compute
  c.dp = dp;
  c.rates = make_rates(models::hw::find_gpu("H200"), models::compute::Precision::Bf16, 300e9, 0, {});
  return c;
}
}  // namespace

TEST_CASE("fsdp: every unit gathered forward, every block backward, every unit reduce-scattered", "[workload]") {
  const DataParallelConfig c = fsdp(4);
  const Program p = build_fsdp_program(c);
  const models::model::ModelShape& m = c.model;
  const int units = m.layers + 1;  // the root group (embedding, final norm, head) and the blocks
  int ag = 0, rs = 0;
  int64_t ag_bytes = 0, rs_bytes = 0;
  for (const auto& stream : p.ops)
    for (const Op& o : stream) {
      if (o.kind != OpKind::Collective) continue;
      if (o.coll == CollOp::AllGather) ++ag, ag_bytes += o.bytes;
      if (o.coll == CollOp::ReduceScatter) ++rs, rs_bytes += o.bytes;
    }
  // The root group is gathered once before the embedding, is not resharded after forward (only
  // blocks are gathered again) and is reduce-scattered once, after the embedding's backward. Bytes in the compute dtype
  // (bf16), nccl-tests' convention (the gathered total).
  CHECK(ag == units + m.layers);
  CHECK(rs == units);
  const int64_t blocks = int64_t(m.layers) * m.block_params();
  CHECK(ag_bytes == 2 * (m.total_params() + blocks));
  CHECK(rs_bytes == 2 * m.total_params());
  // The root group's all-gather comes first and its reduce-scatter last, each of all its parameters.
  std::vector<const Op*> colls;
  for (const Op& o : p.ops[1])
    if (o.kind == OpKind::Collective) colls.push_back(&o);
  REQUIRE(colls.size() >= 2);
  const int64_t root = m.total_params() - blocks;
  CHECK(colls.front()->coll == CollOp::AllGather);
  CHECK(colls.front()->bytes == 2 * root);
  CHECK(colls.back()->coll == CollOp::ReduceScatter);
  CHECK(colls.back()->bytes == 2 * root);
}

TEST_CASE("fsdp: on one GPU the step's compute is single_gpu_breakdown's closed form", "[workload]") {
  for (bool ckpt : {false, true}) {
    DataParallelConfig c = fsdp(1);
    c.checkpoint = {ckpt ? Checkpointing::Rerun::WholeForward : Checkpointing::Rerun::Nothing};
    const Program p = build_fsdp_program(c);
    double compute = 0;
    int ops = 0;
    for (const Op& o : p.ops[0])
      if (o.kind == OpKind::Compute) compute += o.duration.seconds(), ++ops;
    const SingleGpuTerms w =
        single_gpu_breakdown(c.model, 2, ckpt, /*fsdp=*/true, 4, optimizer_plan(c.training, Strategy::Fsdp), c.rates);
    const double closed = w.total();
    // Each op's duration is rounded to a picosecond.
    CHECK(compute == Approx(closed).epsilon(1e-12).margin(ops * 1e-12));
  }
}

TEST_CASE("fsdp: a checkpointed block is gathered once for its backward, however large (no reuse-distance release)",
          "[workload]") {
  models::ModelSpec s;
  s.preset = "llama-3-70b";  // q_proj's successors hold over 5e8 parameters: ZeRO-3 would gather again
  DataParallelConfig c = fsdp(8);
  c.model = models::model::resolve_model(s);
  c.checkpoint = {Checkpointing::Rerun::WholeForward};
  REQUIRE(zero3_regathered_params(c.model, 0, c.zero.stage3_max_reuse_distance) > 0);
  const Program p = build_fsdp_program(c);
  int64_t ag_bytes = 0;
  for (const auto& stream : p.ops)
    for (const Op& o : stream)
      if (o.kind == OpKind::Collective && o.coll == CollOp::AllGather) ag_bytes += o.bytes;
  const int64_t blocks = int64_t(c.model.layers) * c.model.block_params();
  CHECK(ag_bytes == 2 * (c.model.total_params() + blocks));
}

TEST_CASE(
    "fsdp: reduce_dtype fp32 (torchtitan's) reduce-scatters 4 B per gradient, gathers unchanged, copies as FSDP2's",
    "[workload]") {
  // FSDP2's foreach_reduce casts the bf16 gradients into a reduce_dtype buffer (chunk_cat: read 2 B,
  // write 4 B), reduce-scatters it, then casts the reduced shard to the parameters' dtype (read 4 B,
  // write param_bytes).
  const auto totals = [](const DataParallelConfig& c) {
    const Program p = build_fsdp_program(c);
    int64_t ag = 0, rs = 0;
    double copies = 0;
    for (const auto& stream : p.ops)
      for (const Op& o : stream) {
        if (o.kind == OpKind::Collective && o.coll == CollOp::AllGather) ag += o.bytes;
        if (o.kind == OpKind::Collective && o.coll == CollOp::ReduceScatter) rs += o.bytes;
        if (o.kind == OpKind::Compute && o.slot == uint8_t(Work::Memory)) copies += o.duration.seconds();
      }
    return std::make_tuple(ag, rs, copies);
  };
  DataParallelConfig bf16 = fsdp(4), fp32 = fsdp(4);
  fp32.training.reduce_dtype = "fp32";
  const auto [ag16, rs16, copies16] = totals(bf16);
  const auto [ag32, rs32, copies32] = totals(fp32);
  CHECK(ag32 == ag16);
  CHECK(rs16 == 2 * bf16.model.total_params());
  CHECK(rs32 == 2 * rs16);
  // The copy-in writes 2 B more per gradient, the cast after it reads 2 B more per shard element:
  // more memory traffic, none of it on the all-gather side.
  CHECK(copies32 > copies16);
  CHECK(fsdp_reduce_scatter_copy_in_bytes(1000, 4, 4) == 6000);
  CHECK(fsdp_reduce_scatter_copy_in_bytes(1000, 4, 2) == 4000);
  CHECK(fsdp_reduce_scatter_copy_in_bytes(1000, 1, 4) == 6000 + 8000);  // one rank: NCCL's local copy of 4 B
  CHECK(fsdp_grad_cast_bytes(1000, 4, false, 4) == 8000);
  CHECK(fsdp_grad_cast_bytes(1000, 4, true, 2) == 10000);
}
