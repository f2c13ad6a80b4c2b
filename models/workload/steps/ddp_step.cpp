// PyTorch DDP: every rank holds every parameter; gradients are all-reduced in buckets of
// kDdpBucketBytes as the backward produces them, on the communication stream, only on the last
// micro-batch (no_sync on the others, as HF Accelerate does); then AdamW on every parameter.
// Collectives per step: all-reduce of all gradients (parameters x the gradients' bytes: the
// parameters' dtype, training.param_dtype else dtype; under autocast with fp32 parameters .grad is
// fp32 and the Reducer's buckets take its dtype, with no compression hook by default), issued
// after a unit's backward whenever 25 MB or more wait, in whole multiples of 25 MB; the first
// unit's backward flushes the rest. Sources:
// torch/nn/parallel/distributed.py (bucket_cap_mb = 25, Reducer), torch/optim/adamw.py
// (compute.hpp: optimizer_plan, optimizer_seconds). Tests: tests/models/workload/steps/ddp_step_test.cpp.
#include <algorithm>
#include <cmath>

#include "models/workload/steps/sharded_step.hpp"

namespace models::workload {

using nccl::CollOp;
using sim::Time;

namespace {
constexpr double kDdpBucketBytes = 25e6;  // torch DDP bucket_cap_mb default (25 MB)
}  // namespace

Program build_ddp_program(const DataParallelConfig& c) {
  Program p({"compute", "comm"});
  const int64_t tokens = int64_t(c.training.micro_batch) * c.model.seq;
  auto units = decoder_units(c.model, tokens, c.rates, c.training.grad_checkpointing, 0);
  const int bytes_per = dtype_bytes(c.training.param_dtype.empty() ? c.training.dtype : c.training.param_dtype);
  const int accum = std::max(1, c.training.grad_accum);
  for (int m = 0; m < accum; ++m) {
    const std::string tag = "mb" + std::to_string(m) + " ";
    for (const auto& u : units) p.compute(kComputeStream, u.fwd, Work::Math, tag + "fwd " + u.name);
    double bucket = 0;
    for (int i = int(units.size()) - 1; i >= 0; --i) {
      if (units[i].recompute > Time::zero())
        p.compute(kComputeStream, units[i].recompute, Work::Math, tag + "recompute " + units[i].name);
      p.compute(kComputeStream, units[i].bwd, Work::Math, tag + "bwd " + units[i].name);
      if (m != accum - 1) continue;
      bucket += double(units[i].params) * bytes_per;
      // Full buckets go as they fill; the first unit's backward flushes the rest.
      while (bucket >= kDdpBucketBytes || (i == 0 && bucket > 0)) {
        const double chunk = i == 0 ? bucket : std::floor(bucket / kDdpBucketBytes) * kDdpBucketBytes;
        p.join(kComputeStream, kCommStream);
        p.collective(kCommStream, kDpSlot, CollOp::AllReduce, int64_t(chunk), "all_reduce grads " + mb(chunk));
        bucket -= chunk;
      }
    }
  }
  p.join(kCommStream, kComputeStream);
  int64_t total = 0;
  for (const auto& u : units) total += u.params;
  p.compute(kComputeStream, secs(optimizer_seconds(double(total), optimizer_plan(c.training, Strategy::Ddp), c.rates)),
            Work::Memory, "adamw");
  return p;
}

}  // namespace models::workload
