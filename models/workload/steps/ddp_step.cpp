// PyTorch DDP: every rank holds every parameter; gradients are all-reduced in buckets as the
// backward produces them, on the communication stream, only on the last micro-batch (no_sync on
// the others, as HF Accelerate does); then AdamW on every parameter.
// Collectives per step: all-reduce of all gradients (parameters x the gradients' bytes: the
// parameters' dtype, training.param_dtype else dtype; under autocast with fp32 parameters .grad is
// fp32 and the Reducer's buckets take its dtype, with no compression hook by default).
// Buckets are the Reducer's after its first iteration rebuilds them (torch/csrc/distributed/c10d/
// reducer.cpp rebuild_buckets, compute_bucket_assignment_by_size): whole gradient tensors in the
// order the backward produced them, a bucket closed once it holds at least its limit, the first
// bucket's limit first_bucket_bytes_cap (dist._DEFAULT_FIRST_BUCKET_BYTES, 1 MiB) and every later
// one's bucket_cap_mb (25, read as MiB: int(bucket_cap_mb * 1024 * 1024) in
// torch/nn/parallel/distributed.py). A bucket is all-reduced once its last gradient is ready (here:
// after the backward of the unit holding it); the first unit's backward flushes the rest.
// Without gradient_as_bucket_view (its default) the Reducer writes each gradient into its bucket
// scaled by 1 / world size (mark_variable_ready_dense: one mul_out, read and write) as the hook
// fires, and copies the reduced buckets back into .grad once all are done (finalize_bucket_dense:
// copy_bucket_to_grad), each pass 2 x the gradients' bytes of memory traffic on the compute stream,
// one kernel per gradient tensor (ddp_reducer_pass_seconds).
// One rank is the plain step of a script without DDP (the single-GPU validations): no Reducer.
// Sources: those files and torch/optim/adamw.py (compute.hpp: optimizer_plan, optimizer_seconds).
// Tests: tests/models/workload/steps/ddp_step_test.cpp.
#include <algorithm>
#include <vector>

#include "models/workload/steps/sharded_step.hpp"

namespace models::workload {

using nccl::CollOp;
using sim::Time;

namespace {
constexpr int64_t kDdpFirstBucketBytes = int64_t{1} << 20;  // dist._DEFAULT_FIRST_BUCKET_BYTES
constexpr int64_t kDdpBucketBytes = int64_t{25} << 20;      // bucket_cap_mb = 25, in MiB
}  // namespace

double ddp_reducer_pass_seconds(int64_t params, int tensors, int bytes_per, const ComputeRates& rates) {
  // The bytes at the Elementwise rate with one kernel's fixed cost, and every further tensor's
  // kernel at an eager step's launch gap: most are a norm's or a bias's few kilobytes, which take
  // about that, where the law's t0 is the intercept of kernels of 32 MB and more.
  return memory_seconds(rates, compute::MemKernel::Elementwise, 2.0 * double(params) * bytes_per) +
         std::max(0, tensors - 1) * rates.gpu.launch_gap_s;
}

Program build_ddp_program(const DataParallelConfig& c) {
  Program p({"compute", "comm"});
  const int64_t tokens = int64_t(c.training.micro_batch) * c.model.seq;
  auto units = decoder_units(c.model, tokens, c.rates, c.checkpoint, 0);
  const int bytes_per = dtype_bytes(c.training.param_dtype.empty() ? c.training.dtype : c.training.param_dtype);
  const int accum = std::max(1, c.training.grad_accum);
  const bool reducer = c.dp > 1;
  int all_tensors = 0;  // the gradient tensors, counted in the last micro-batch
  for (int m = 0; m < accum; ++m) {
    const std::string tag = "mb" + std::to_string(m) + " ";
    for (const auto& u : units) p.compute(kComputeStream, u.fwd, Work::Math, tag + "fwd " + u.name);
    int64_t bucket = 0;  // bytes of the open bucket
    int64_t limit = kDdpFirstBucketBytes;
    for (int i = int(units.size()) - 1; i >= 0; --i) {
      if (units[i].recompute > Time::zero())
        p.compute(kComputeStream, units[i].recompute, Work::Math, tag + "recompute " + units[i].name);
      p.compute(kComputeStream, units[i].bwd, Work::Math, tag + "bwd " + units[i].name);
      if (!reducer || m != accum - 1) continue;
      const std::vector<int64_t> tensors = unit_gradient_tensors(c.model, units[i]);
      all_tensors += int(tensors.size());
      p.compute(kComputeStream,
                secs(ddp_reducer_pass_seconds(units[i].params, int(tensors.size()), bytes_per, c.rates)), Work::Memory,
                tag + "bucket copy " + units[i].name);
      std::vector<int64_t> closed;  // the buckets this unit's gradients complete, in order
      for (int64_t t : tensors) {
        bucket += t * bytes_per;
        if (bucket >= limit) {
          closed.push_back(bucket);
          bucket = 0;
          limit = kDdpBucketBytes;
        }
      }
      if (i == 0 && bucket > 0) closed.push_back(bucket);
      for (int64_t bytes : closed) {
        p.join(kComputeStream, kCommStream);
        p.collective(kCommStream, kDpSlot, CollOp::AllReduce, bytes, "all_reduce grads " + mb(double(bytes)));
      }
    }
  }
  int64_t total = 0;
  for (const auto& u : units) total += u.params;
  if (reducer) {
    p.join(kCommStream, kComputeStream);
    p.compute(kComputeStream, secs(ddp_reducer_pass_seconds(total, all_tensors, bytes_per, c.rates)), Work::Memory,
              "buckets copied to grads");
  }
  p.compute(kComputeStream, secs(optimizer_seconds(double(total), optimizer_plan(c.training, Strategy::Ddp), c.rates)),
            Work::Memory, "adamw");
  return p;
}

}  // namespace models::workload
