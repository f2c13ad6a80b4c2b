// DeepSpeed ZeRO-3 (stage 3) as a sharded step (sharded_step.hpp), with its own rules:
//   prefetch: gathers issued `depth` units ahead on the communication stream, depth set by
//     stage3_prefetch_bucket_size and stage3_max_live_parameters (zero3_prefetch_depth);
//   persistence: modules below stage3_param_persistence_threshold are never gathered;
//   reuse distance: under checkpointing, a module whose backward use lies stage3_max_reuse_distance
//     parameters or more beyond its recompute is released and gathered again (zero3_regathered_params);
//   reduce buckets: gradients are copied into the contiguous (ipg) buffer and reduce-scattered
//     every micro-batch once reduce_bucket_size elements wait, split into pieces of that size;
//   overlap_comm = false: every collective runs on the compute stream (no overlap);
//   offload (ZeRO-Offload/Infinity): offload_param copies each rank's parameter shard host->GPU
//     before its all-gather; offload_optimizer copies the reduced gradient shard GPU->host and
//     runs CPU-Adam at the end of the step (memory-bound, shared by the node's ranks); without
//     offload_param the updated bf16 shard goes back host->GPU;
//   optimizer on the GPU: fused Adam on fp32 master weights and states, then the bf16 copy.
// Collectives per micro-batch (S = parameters x compute dtype bytes; dp ranks): all-gather of
// every unit's gathered parameters forward, and backward except the head (+ regathered);
// reduce-scatter of all gradients. Sources: deepspeed/runtime/zero/stage3.py,
// partition_parameters.py, partitioned_param_coordinator.py, cited per rule.
// Tests: tests/models/workload/steps/zero3_step_test.cpp, executor_test.cpp (ZeRO-3 through the executor).
#include <algorithm>
#include <cmath>
#include <iterator>

#include "models/workload/steps/sharded_step.hpp"

namespace models::workload {

namespace {
// Copy of a bf16 gradient into the contiguous reduce (ipg) buffer: read 2 B, write 2 B per
// element (stage3.py __add_grad_to_ipg_bucket copies param.grad into the bucket's buffer).
constexpr double kStage3IpgCopyBytesPerParam = 2 + 2;
// The reduced bf16 gradient shard cast into the fp32 gradient partition: read 2 B, write 4 B; on
// later micro-batches accumulated into it: read 4 B more (stage3.py partition_grads).
constexpr int kStage3GradCastBytesPerParam = 2 + 4;
constexpr int kGradAccumulateBytesPerParam = 4;
// Gradient bytes per element of the fp32 partition copied to the host at the boundary.
constexpr int kStage3Fp32Bytes = 4;
}  // namespace

double zero3_host_step_seconds(double shard_params, int launcher_procs, int node_ranks, const ComputeRates& rates,
                               int cpu_threads) {
  const double share = rates.host_rate() / std::max(1, node_ranks);
  const int threads = cpu_threads > 0 ? cpu_threads : launcher_procs > 1 ? 1 : 0;  // 0: every core
  const double rate = threads > 0 ? std::min(threads * rates.core_bytes_per_s, share) : share;
  return shard_params * kZero3HostStepBytesPerParam / rate;
}

int zero3_prefetch_depth(const ZeroSpec& z, int64_t unit_params) {
  if (unit_params <= 0) return 1;
  const int by_bucket = 1 + int(std::floor(z.stage3_prefetch_bucket_size / double(unit_params)));
  const int by_live = std::max(1, int(std::floor(z.stage3_max_live_parameters / double(unit_params))));
  return std::max(1, std::min(by_bucket, by_live));
}

int64_t zero3_persistent_params(const model::ModelShape& m, double persistence_threshold) {
  auto persistent = [&](int64_t numel) {
    return numel > 0 && zero3_persists(numel, persistence_threshold) ? numel : 0;
  };
  int64_t block = 0;
  for (int64_t t : m.block_tensors()) block += persistent(t);
  const int64_t norm = m.final_norm_params() / m.norm_params_per_hidden();  // weight (and LayerNorm's bias)
  return int64_t(m.layers) * block + persistent(int64_t(m.vocab) * m.hidden) + persistent(m.position_params()) +
         m.norm_params_per_hidden() * persistent(norm) + persistent(m.head_params());
}

int64_t zero3_regathered_params(const model::ModelShape& m, double persistence_threshold, double max_reuse_distance) {
  // Checkpointed backward of a block: the recompute runs q, k, v, o, gate, up, down (forward
  // order), then the backward runs them in reverse. After module i's recompute, DeepSpeed's
  // __params_to_release (partitioned_param_coordinator.py) walks the trace ahead and keeps the
  // params of every module met before max_reuse_distance parameters have been traversed: module i
  // comes back after 2 x (params of the modules after it), so it is released (and gathered again
  // for its backward) when 2 x after >= max_reuse_distance. Llama-3-8B with 1e8: only down_proj
  // (0 after it) is kept; 1e9 (DeepSpeed's default) keeps all.
  const std::vector<int64_t> fwd_order = m.block_matrices();
  const int kModules = int(fwd_order.size());
  int64_t regathered = 0;
  for (int i = 0; i < kModules; ++i) {
    if (zero3_persists(fwd_order[i], persistence_threshold)) continue;
    int64_t after = 0;
    for (int j = i + 1; j < kModules; ++j)
      if (!zero3_persists(fwd_order[j], persistence_threshold)) after += fwd_order[j];
    if (2.0 * double(after) >= max_reuse_distance) regathered += fwd_order[i];
  }
  return regathered;
}

namespace {

class Zero3Step final : public ShardedStep {
 public:
  explicit Zero3Step(const DataParallelConfig& c)
      : ShardedStep(c, c.zero.stage3_param_persistence_threshold, c.zero.stage3_max_reuse_distance) {
    overlap_ = c.zero.overlap_comm;
    depth_ = overlap_ ? zero3_prefetch_depth(c.zero, units_[1].gathered) : 0;
    offload_param_ = c.zero.offload_param == "cpu";
    offload_opt_ = c.zero.offload_optimizer == "cpu";
  }

 private:
  void before_gather(const Unit& unit, int64_t params, std::optional<uint32_t> after) override {
    const int s = comm_stream();
    if (after && s != kComputeStream) p_.wait(s, *after);
    if (offload_param_) {
      // all_gather_coalesced (partition_parameters.py): torch.cat([p.ds_tensor.to(device) ...]) with
      // no non_blocking: cudaMemcpyAsync on the allgather stream, then the host waits for that stream
      // (every gather queued before it, then the copy). The hook's thread issues no compute
      // kernel meanwhile: the compute stream waits for the copy from this point of the program.
      p_.copy(s, CopyDir::HostToGpu, int64_t(double(params) / n_ * compute_bytes_), "h2d params " + unit.name);
      if (s != kComputeStream) p_.join(s, kComputeStream);
    }
  }

  void gradients_ready(const Unit& unit, bool last) override {
    const std::vector<int64_t> tensors = unit_gradient_tensors(c_.model, unit);
    if (c_.zero.contiguous_gradients) {  // copied into the contiguous reduce (ipg) buffer if they fit in it
      double copied = 0;
      for (int64_t t : tensors) copied += double(t) <= c_.zero.reduce_bucket_size ? double(t) : 0.0;
      if (copied > 0)
        p_.compute(kComputeStream, secs(mem_time(copied * kStage3IpgCopyBytesPerParam)), Work::Memory,
                   "ipg copy " + unit.name);
    }
    // stage3.py __add_grad_to_ipg_bucket, tensor by tensor: the bucket is reduced before a
    // gradient that would overflow reduce_bucket_size joins it (a tensor larger than the bucket
    // goes alone), and what is left after the last unit's.
    auto flush = [&] {
      reduce(bucket_, bucket_names_);
      bucket_ = 0;
      bucket_names_.clear();
    };
    bool named = false;  // this unit's name is in the bucket's
    for (int64_t t : tensors) {
      if (t <= 0) continue;
      if (bucket_ > 0 && double(bucket_ + t) > c_.zero.reduce_bucket_size) flush(), named = false;
      bucket_ += t;
      if (!named) bucket_names_ += (bucket_names_.empty() ? "" : "+") + unit.name, named = true;
    }
    if (last && bucket_ > 0) flush();
  }

  double reduce_piece_params(int64_t) const override { return std::max(1.0, c_.zero.reduce_bucket_size); }

  uint32_t after_reduce(int64_t params, const std::string& name, uint32_t reduced) override {
    if (!offload_opt_) return reduced;
    // stage3.py partition_grads, grad buffer in pinned host memory (gradient accumulation dtype
    // = the bf16 model dtype, assumed): micro-batch 0 copies the reduced shard D2H and back H2D
    // (grad_buffer.to(device)); later micro-batches copy the host buffer H2D, add on the GPU and
    // copy it back D2H. At the accumulation boundary the fp32 cast goes D2H into the fp32 grad.
    const int64_t shard16 = int64_t(double(params) / n_ * compute_bytes_);
    p_.wait(kOffloadStream, reduced);
    if (micro_ == 0) {
      p_.copy(kOffloadStream, CopyDir::GpuToHost, shard16, "d2h grad buffer " + name);
      p_.copy(kOffloadStream, CopyDir::HostToGpu, shard16, "h2d grad buffer " + name);
    } else {
      p_.copy(kOffloadStream, CopyDir::HostToGpu, shard16, "h2d grad buffer " + name);
      p_.copy(kOffloadStream, CopyDir::GpuToHost, shard16, "d2h grad buffer " + name);
    }
    if (micro_ == accum_ - 1)
      p_.copy(kOffloadStream, CopyDir::GpuToHost, int64_t(double(params) / n_ * kStage3Fp32Bytes), "d2h fp32 grads " + name);
    const uint32_t e = p_.new_event();
    p_.record(kOffloadStream, e);
    return e;
  }

  void end_of_backward(int m) override {
    if (offload_opt_) return;  // the fp32 gradients are on the host (after_reduce)
    const double shard = shard_params();
    const double bytes = shard * (kStage3GradCastBytesPerParam + (m > 0 ? kGradAccumulateBytesPerParam : 0));
    p_.compute(kComputeStream, secs(mem_time(bytes, compute::MemKernel::CastUp)), Work::Memory, tag(m) + "grad cast");
  }

  void optimizer() override {
    const double shard = shard_params();
    if (offload_opt_) {
      // Unscale/clip, CPU-Adam and the bf16 partition refresh on the host (see compute.hpp).
      const double t = zero3_host_step_seconds(shard, c_.launcher_procs, c_.node_ranks, c_.rates, c_.cpu_threads);
      p_.compute(kComputeStream, secs(t), Work::Host, "cpu step " + mb(shard * kStage3Fp32Bytes) + " fp32 shard");
      if (!offload_param_) {
        p_.copy(kComputeStream, CopyDir::HostToGpu, int64_t(shard * compute_bytes_), "h2d updated params");
      }
      return;
    }
    // DeepSpeed's FusedAdam on the fp32 partition plus its 16-bit copy (compute.hpp optimizer_plan).
    const OptimizerPlan plan = optimizer_plan(c_.training, Strategy::Zero3);
    p_.compute(kComputeStream, secs(optimizer_seconds(shard, plan, c_.rates)), Work::Memory,
               "adamw " + mb(shard * plan.state_bytes) + " shard");
  }

  bool offload_param_ = false, offload_opt_ = false;
  int64_t bucket_ = 0;  // gradient elements waiting in the reduce bucket
  std::string bucket_names_;
};

}  // namespace

Program build_zero3_program(const DataParallelConfig& c) { return Zero3Step(c).build(); }

}  // namespace models::workload
