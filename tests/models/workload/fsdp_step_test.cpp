// FSDP2 (fsdp_step.cpp): its collectives per micro-batch, and on one GPU the closed form the
// compute fit rests on (compute.hpp: step = F / (peak eff) + B / (hbm hbm_eff)).
#include <catch2/catch.hpp>

#include "models/workload/data_parallel.hpp"

using namespace models::workload;
using models::nccl::CollOp;

namespace {
DataParallelConfig fsdp(int dp) {
  models::ModelSpec s;
  s.preset = "h200x4-decoder";
  DataParallelConfig c;
  c.model = resolve_model(s);
  c.training.micro_batch = 2;
  c.training.param_dtype = "fp32";  // FSDP2 mixed precision: fp32 parameters, bf16 compute
  c.dp = dp;
  c.rates = ComputeRates{989e12, 0.5, 4.8e12, 0.8, 300e9, 0.4, 12e9, 0.49};
  return c;
}
}  // namespace

TEST_CASE("fsdp: every unit gathered forward, every block backward, every unit reduce-scattered", "[workload]") {
  const DataParallelConfig c = fsdp(4);
  const Program p = build_fsdp_program(c);
  const ModelShape& m = c.model;
  const int units = m.layers + 2;  // embedding, blocks, head
  int ag = 0, rs = 0;
  int64_t ag_bytes = 0, rs_bytes = 0;
  for (const auto& stream : p.ops)
    for (const Op& o : stream) {
      if (o.kind != OpKind::Collective) continue;
      if (o.coll == CollOp::AllGather) ++ag, ag_bytes += o.bytes;
      if (o.coll == CollOp::ReduceScatter) ++rs, rs_bytes += o.bytes;
    }
  // The root unit (embedding, head) is not resharded after forward: only blocks are gathered
  // again. Bytes in the compute dtype (bf16), nccl-tests' convention (the gathered total).
  CHECK(ag == units + m.layers);
  CHECK(rs == units);
  const int64_t blocks = int64_t(m.layers) * m.block_params();
  CHECK(ag_bytes == 2 * (m.total_params() + blocks));
  CHECK(rs_bytes == 2 * m.total_params());
}

TEST_CASE("fsdp: on one GPU the step's compute is single_gpu_work's closed form", "[workload]") {
  for (bool ckpt : {false, true}) {
    DataParallelConfig c = fsdp(1);
    c.training.grad_checkpointing = ckpt;
    const Program p = build_fsdp_program(c);
    double compute = 0;
    int ops = 0;
    for (const Op& o : p.ops[0])
      if (o.kind == OpKind::Compute) compute += o.duration.seconds(), ++ops;
    const StepWork w = single_gpu_work(c.model, 2, ckpt, /*fsdp=*/true, 4);
    const double closed = w.flops / c.rates.flops_per_s() + w.hbm_bytes / c.rates.hbm_rate();
    // Each op's duration is rounded to a picosecond.
    CHECK(compute == Approx(closed).epsilon(1e-12).margin(ops * 1e-12));
  }
}
