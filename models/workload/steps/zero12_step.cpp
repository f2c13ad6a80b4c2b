// DeepSpeed ZeRO stages 1 and 2: one engine, DeepSpeedZeroOptimizer of
// deepspeed/runtime/zero/stage_1_and_2.py (deepspeedai/DeepSpeed, 2025), cited per rule.
//   parameters: every rank holds all bf16 parameters (one flat buffer per parameter group); the
//     forward and backward gather nothing;
//   stage 2 (partition_gradients): every micro-batch's backward hands each gradient to the
//     contiguous (ipg) bucket as it is produced (process_gradients); stage 1 only on the
//     accumulation boundary (reduce_ready_partitions_and_remove_grads), during the last backward
//     when overlap_comm, else after it (reduce_gradients walks the parameters in group order);
//   a bucket goes when the next gradient would overflow reduce_bucket_size elements
//     (reduce_independent_p_g_buckets_and_remove_grads), gradient tensor by tensor in backward order
//     (block: down, up, gate, post-attention norm, o, v, k, q, input norm; head: lm_head, final
//     norm; embedding); a tensor larger than the bucket is reduced alone, not copied into it
//     (extra_large_param_to_reduce); the rest goes at the end (overlapping_partition_gradients_reduce_epilogue);
//   a bucket is ALL-REDUCED, not reduce-scattered: average_tensor collects each partition's slices
//     and, with use_multi_rank_bucket_allreduce (default true), allreduce_and_scatter all-reduces
//     them together, each rank keeping its own slice (reduce_scatter = false all-reduces the bucket
//     too; only use_multi_rank_bucket_allreduce = false reduces per owner, not modelled). The
//     communication dtype is the model's (engine.py communication_data_type);
//   overlap_comm (default off at stages 1-2, deepspeed_config.cpp): buckets on the reduction
//     stream; before each, the compute stream waits for the reduction stream's earlier buckets
//     (average_tensor: current_stream().wait_stream(reduction_stream)), so one bucket is in flight;
//     off: in line on the compute stream;
//   contiguous_gradients: each gradient copied into the bucket (2 + 2 B), the rank's slice copied
//     out of it (copy_grads_in_partition, 2 + 2 B per shard element);
//   step(): the shard's gradients flattened and cast to fp32 (2 + 4 B per shard element), fused
//     Adam on the fp32 partition and its bf16 copy (compute.hpp optimizer_plan), then the updated
//     bf16 parameters ALL-GATHERED (all_gather_dp_groups -> all_gather_into_tensor_dp_groups, one
//     all_gather_into_tensor per parameter group: allgather_bucket_size is used only without
//     all_gather_into_tensor), on the compute stream;
//   offload_optimizer = cpu (ZeRO-Offload): the rank's slice of each reduced bucket goes to the
//     host in fp32 (async_inplace_copy_grad_to_fp32_buffer_from_gpu; stage 2 on later micro-batches
//     first brings the accumulated slice back and adds it, async_accumulate_grad_in_cpu_via_gpu),
//     CPU-Adam runs on the host (zero3_host_step_seconds: the same DeepSpeedCPUAdam), and the
//     updated bf16 partition is copied back before the all-gather. offload_param needs stage 3.
// Collectives per step (P parameters, b the compute dtype's bytes, N = dp, m micro-batches):
//   stage 2: m x all-reduces of b P in total (pieces of reduce_bucket_size elements);
//   stage 1: 1 x the same, in the last micro-batch; both: one all-gather of b P after the step.
// Tests: tests/models/workload/steps/zero12_step_test.cpp.
#include <algorithm>

#include "models/workload/steps/sharded_step.hpp"

namespace models::workload {

using nccl::CollOp;
using sim::Time;

namespace {
// Gradient copied into the contiguous (ipg) bucket: read 2 B, write 2 B per element.
constexpr double kIpgCopyBytesPerParam = 2 + 2;
// The rank's reduced slice copied out of the bucket (copy_grads_in_partition): read 2, write 2.
constexpr double kPartitionCopyBytesPerParam = 2 + 2;
// step(): the flat bf16 gradient partition cast to fp32: read 2 B, write 4 B.
constexpr double kGradCastBytesPerParam = 2 + 4;
constexpr int kFp32Bytes = 4;

class Zero12Step {
 public:
  explicit Zero12Step(const DataParallelConfig& c)
      : c_(c),
        p_({"compute", "comm", "offload"}),
        n_(std::max(1, c.dp)),
        stage_(c.strategy == Strategy::Zero1 ? 1 : 2),
        overlap_(c.zero.overlap_comm),
        offload_(c.zero.offload_optimizer == "cpu"),
        bucket_(std::max(1.0, c.zero.reduce_bucket_size)) {
    const int64_t tokens = int64_t(c.training.micro_batch) * c.model.seq;
    units_ = decoder_units(c.model, tokens, c.rates, c.checkpoint, 0);
    compute_bytes_ = dtype_bytes(c.training.dtype);
    for (const Unit& u : units_) params_ += u.params;
  }

  Program build() {
    for (int m = 0; m < accum(); ++m) micro_step(m, accum());
    optimizer();
    return std::move(p_);
  }

 private:
  int comm_stream() const { return overlap_ ? kCommStream : kComputeStream; }
  int accum() const { return std::max(1, c_.training.grad_accum); }  // micro-batches per step
  double shard() const { return double(params_) / n_; }
  double mem(double bytes, compute::MemKernel kind = compute::MemKernel::Elementwise) const {
    return memory_seconds(c_.rates, kind, bytes);
  }

  void micro_step(int m, int accum) {
    const std::string tg = "mb" + std::to_string(m) + " ";
    for (const Unit& u : units_) p_.compute(kComputeStream, u.fwd, Work::Math, tg + "fwd " + u.name);
    const bool reduces = stage_ == 2 || m == accum - 1;
    const bool in_hooks = stage_ == 2 || overlap_;  // process_gradients: partition_gradients or overlap_comm
    pending_ = 0;
    reduced_.clear();
    for (int i = int(units_.size()) - 1; i >= 0; --i) {
      const Unit& u = units_[i];
      if (u.recompute > Time::zero()) p_.compute(kComputeStream, u.recompute, Work::Math, tg + "recompute " + u.name);
      p_.compute(kComputeStream, u.bwd, Work::Math, tg + "bwd " + u.name);
      if (reduces && in_hooks) add_to_bucket(u, m);
    }
    if (!reduces) return;
    if (!in_hooks)  // stage 1 without overlap_comm: reduce_gradients() after the backward, in group order
      for (const Unit& u : units_) add_to_bucket(u, m);
    if (pending_ > 0) all_reduce(pending_, m);
    pending_ = 0;
    // The epilogue synchronises: the step waits for every reduction (and its offload copies).
    for (uint32_t e : reduced_) p_.wait(kComputeStream, e);
    if (!offload_)
      p_.compute(kComputeStream, secs(mem(shard() * kPartitionCopyBytesPerParam)), Work::Memory,
                 tg + "grad partition copy");
  }

  void add_to_bucket(const Unit& u, int m) {
    const std::vector<int64_t> ts = unit_gradient_tensors(c_.model, u);
    if (c_.zero.contiguous_gradients) {  // copies into the bucket; larger tensors are reduced in place
      double copied = 0;
      for (int64_t t : ts) copied += double(t) <= bucket_ ? double(t) : 0.0;
      p_.compute(kComputeStream, secs(mem(copied * kIpgCopyBytesPerParam)), Work::Memory, "ipg copy " + u.name);
    }
    for (int64_t t : ts) {
      if (t <= 0) continue;
      if (double(pending_ + t) > bucket_ && pending_ > 0) {
        all_reduce(pending_, m);
        pending_ = 0;
      }
      pending_ += t;
    }
  }

  void all_reduce(int64_t elements, int m) {
    const int s = comm_stream();
    if (s != kComputeStream) {
      p_.join(kComputeStream, s);  // the bucket's copies are done
      p_.join(s, kComputeStream);  // the compute stream waits for the earlier buckets
    }
    const int64_t bytes = elements * compute_bytes_;
    p_.collective(s, kDpSlot, CollOp::AllReduce, bytes, "all_reduce grads " + mb(double(bytes)));
    const uint32_t done = p_.new_event();
    p_.record(s, done);
    if (!offload_) {
      reduced_.push_back(done);
      return;
    }
    // The rank's slice through the host (DeepSpeed stage_1_and_2.py copy_grads_in_partition): with
    // several micro-batches stage 2 keeps a 16-bit sum on the host, brought back to add on the GPU
    // after the first micro-batch and sent out again before the last
    // (async_accumulate_grad_in_cpu_via_gpu); the last sends the slice in fp32
    // (async_inplace_copy_grad_to_fp32_buffer_from_gpu). Stage 1 reduces once: the fp32 slice.
    const double slice = double(elements) / n_;
    const bool last = m == accum() - 1;
    p_.wait(kOffloadStream, done);
    if (stage_ == 2 && m > 0)
      p_.copy(kOffloadStream, CopyDir::HostToGpu, int64_t(slice * compute_bytes_), "h2d accumulated grads");
    if (last)
      p_.copy(kOffloadStream, CopyDir::GpuToHost, int64_t(slice * kFp32Bytes), "d2h fp32 grads");
    else
      p_.copy(kOffloadStream, CopyDir::GpuToHost, int64_t(slice * compute_bytes_), "d2h accumulated grads");
    const uint32_t copied = p_.new_event();
    p_.record(kOffloadStream, copied);
    reduced_.push_back(copied);
  }

  void optimizer() {
    if (offload_) {
      const double t = zero3_host_step_seconds(shard(), c_.launcher_procs, c_.node_ranks, c_.rates, c_.cpu_threads);
      p_.compute(kComputeStream, secs(t), Work::Host, "cpu step " + mb(shard() * kFp32Bytes) + " fp32 shard");
      p_.copy(kComputeStream, CopyDir::HostToGpu, int64_t(shard() * compute_bytes_), "h2d updated params");
    } else {
      p_.compute(kComputeStream, secs(mem(shard() * kGradCastBytesPerParam, compute::MemKernel::CastUp)), Work::Memory,
                 "grad cast");
      const OptimizerPlan plan = optimizer_plan(c_.training, c_.strategy);
      p_.compute(kComputeStream, secs(optimizer_seconds(shard(), plan, c_.rates)), Work::Memory,
                 "adamw " + mb(shard() * plan.state_bytes) + " shard");
    }
    const int64_t bytes = params_ * compute_bytes_;
    p_.collective(kComputeStream, kDpSlot, CollOp::AllGather, bytes, "all_gather params " + mb(double(bytes)),
                  /*in_place=*/true);
  }

  const DataParallelConfig& c_;
  Program p_;
  int n_, stage_;
  bool overlap_, offload_;
  double bucket_;  // reduce_bucket_size, elements
  std::vector<Unit> units_;
  int compute_bytes_ = 2;
  int64_t params_ = 0;
  int64_t pending_ = 0;  // gradient elements waiting in the bucket
  std::vector<uint32_t> reduced_;
};

}  // namespace

Program build_zero12_program(const DataParallelConfig& c) { return Zero12Step(c).build(); }

}  // namespace models::workload
