// ZeRO-3 / FSDP / DDP step programs. The semantics are described in data_parallel.hpp.
#include "models/workload/data_parallel.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>

#include "models/error.hpp"
#include "sim/check.hpp"

namespace models::workload {

using nccl::CollOp;
using sim::Time;

namespace {
constexpr int kCompute = 0, kComm = 1, kOffload = 2;
constexpr int kDp = 0;                    // group slot
constexpr double kDdpBucketBytes = 25e6;  // torch DDP bucket_cap_mb default (25 MB)
constexpr int kMaxPiecesPerUnit = 8;      // reduce-scatter pieces of one unit (bounds event count)

Time secs(double s) { return Time::from_seconds(s); }

std::string mb(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f MB", bytes / 1e6);
  return buf;
}
}  // namespace

std::vector<Unit> decoder_units(const ModelShape& m, int64_t tokens, const ComputeRates& rates, bool checkpointing,
                                double persistence_threshold, int tp, double max_reuse_distance) {
  std::vector<Unit> units;
  // Embedding: a lookup (no FLOPs); its backward is a scatter-add of the same size (negligible).
  Unit emb{"embed", m.embedding_params(), m.embedding_params(), {}, {}, {}, false};
  units.push_back(emb);
  // One module's parameters persist (are never gathered) when below the threshold: the norms.
  const int64_t h = m.hidden;
  const int64_t modules[] = {h * h, h * m.kv_dim(), h * m.kv_dim(), h * h, h * m.ffn, h * m.ffn, h * m.ffn, h, h};
  int64_t gathered = 0;
  for (int64_t p : modules)
    if (double(p) >= persistence_threshold) gathered += p;
  // Checkpointed backward of a block: the recompute runs q, k, v, o, gate, up, down (forward
  // order), then the backward runs them in reverse. After module i's recompute, DeepSpeed's
  // __params_to_release (partitioned_param_coordinator.py) walks the trace ahead and keeps the
  // params of every module met before max_reuse_distance parameters have been traversed: module i
  // comes back after 2 x (params of the modules after it), so it is released (and gathered again
  // for its backward) when 2 x after >= max_reuse_distance. Llama-3-8B with 1e8: only down_proj
  // (0 after it) is kept; 1e9 (DeepSpeed's default) keeps all.
  const int64_t fwd_order[] = {h * h, h * m.kv_dim(), h * m.kv_dim(), h * h, h * m.ffn, h * m.ffn, h * m.ffn};
  int64_t regathered = 0;
  if (checkpointing) {
    constexpr int kModules = int(std::size(fwd_order));
    for (int i = 0; i < kModules; ++i) {
      if (double(fwd_order[i]) < persistence_threshold) continue;
      int64_t after = 0;
      for (int j = i + 1; j < kModules; ++j)
        if (double(fwd_order[j]) >= persistence_threshold) after += fwd_order[j];
      if (2.0 * double(after) >= max_reuse_distance) regathered += fwd_order[i];
    }
    regathered /= tp;
  }
  const BlockSeconds block = block_seconds(m, tokens, tp, rates);  // models/workload/compute.hpp
  for (int l = 0; l < m.layers; ++l) {
    Unit u{"L" + std::to_string(l),
           m.block_params(),
           gathered,
           secs(block.fwd()),
           secs(block.bwd()),
           checkpointing ? secs(block.fwd()) : Time::zero(),
           true,
           regathered};
    units.push_back(u);
  }
  // Final norm + head + loss (replicated on every TP rank).
  const HeadSeconds head = head_seconds(m, tokens, 1, rates);
  const int64_t head_params = m.head_params() + h;
  Unit hd{"head",
          head_params,
          m.head_params() + (double(h) >= persistence_threshold ? h : 0),
          secs(head.fwd.total()),
          secs(head.bwd.total()),
          Time::zero(),
          false};
  units.push_back(hd);
  return units;
}

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

namespace {

// Builds the ZeRO-3 / FSDP program (see header).
class ShardedBuilder {
 public:
  explicit ShardedBuilder(const DataParallelConfig& c)
      : c_(c), p_({"compute", "comm", "offload"}), fsdp_(c.strategy == Strategy::Fsdp), n_(c.dp) {
    const int64_t tokens = int64_t(c.training.micro_batch) * c.model.seq;
    const double threshold = fsdp_ ? 0 : c.zero.stage3_param_persistence_threshold;
    units_ = decoder_units(c.model, tokens, c.rates, c.training.grad_checkpointing, threshold, 1,
                           c.zero.stage3_max_reuse_distance);
    compute_bytes_ = dtype_bytes(c.training.dtype);
    param_bytes_ = c.training.param_dtype.empty() ? compute_bytes_ : dtype_bytes(c.training.param_dtype);
    overlap_ = fsdp_ || c.zero.overlap_comm;
    depth_ = overlap_ ? (fsdp_ ? 1 : zero3_prefetch_depth(c.zero, units_[1].gathered)) : 0;
    offload_param_ = !fsdp_ && c.zero.offload_param == "cpu";
    offload_opt_ = !fsdp_ && c.zero.offload_optimizer == "cpu";
  }

  Program build() {
    const int accum = std::max(1, c_.training.grad_accum);
    accum_ = accum;
    for (int m = 0; m < accum; ++m) {
      micro_ = m;
      micro_step(m);
    }
    optimizer();
    return std::move(p_);
  }

 private:
  double mem_time(double bytes, compute::MemKernel kind = compute::MemKernel::Elementwise) const {
    return memory_seconds(c_.rates, kind, bytes);
  }
  int comm_stream() const { return overlap_ ? kComm : kCompute; }

  // Issues unit u's all-gather after event `after` (on the compute stream, FSDP copy-in first).
  uint32_t issue_gather(int u, const std::string& phase, std::optional<uint32_t> after) {
    const Unit& unit = units_[u];
    const int s = comm_stream();
    if (fsdp_) {  // copy-in on the compute stream, then the gather may start
      // in place: with one rank NCCL copies nothing (compute.hpp fsdp_all_gather_bytes)
      double bytes = double(unit.gathered) / n_ * (param_bytes_ + 2);
      p_.compute(kCompute, secs(mem_time(bytes)), Work::Memory, "copy-in " + unit.name);
      if (overlap_) p_.join(kCompute, s);
    } else if (after && s != kCompute) {
      p_.wait(s, *after);
    }
    // Backward of a checkpointed block: the recompute's gather plus the modules released after it.
    const int64_t params = unit.gathered + (phase == "bwd" ? unit.regathered : 0);
    if (offload_param_) {
      // all_gather_coalesced (partition_parameters.py): torch.cat([p.ds_tensor.to(device) ...]) with
      // no non_blocking: cudaMemcpyAsync on the allgather stream, then the host waits for that stream
      // (every gather queued before it, then the copy). The hook's thread issues no compute
      // kernel meanwhile: the compute stream waits for the copy from this point of the program.
      p_.copy(s, CopyDir::HostToGpu, int64_t(double(params) / n_ * compute_bytes_), "h2d params " + unit.name);
      if (s != kCompute) p_.join(s, kCompute);
    }
    const int64_t bytes = params * compute_bytes_;
    // In place, in both frameworks: DeepSpeed copies the shard into its slice of the flat output
    // and gathers from that slice (partition_parameters.py _all_gather_dtype); FSDP2 does the same
    // with its all-gather input (_fsdp_collectives.py foreach_all_gather).
    p_.collective(s, kDp, CollOp::AllGather, bytes, "all_gather " + phase + " " + unit.name + " " + mb(double(bytes)),
                  /*in_place=*/true);
    const uint32_t e = p_.new_event();
    p_.record(s, e);
    return e;
  }

  void use_gathered(int u, uint32_t ev) {
    p_.wait(kCompute, ev);
    if (fsdp_)
      p_.compute(kCompute, secs(mem_time(double(units_[u].gathered) * 4)), Work::Memory, "copy-out " + units_[u].name);
  }

  void micro_step(int m) {
    const int U = int(units_.size());
    const std::string tag = "mb" + std::to_string(m) + " ";
    std::vector<uint32_t> ready(U);
    // Forward.
    const uint32_t begin = p_.new_event();
    p_.record(kCompute, begin);
    for (int k = 0; k < std::max(depth_, 1) && k < U; ++k)
      if (depth_ > 0 || k == 0) ready[k] = issue_gather(k, "fwd", begin);
    for (int u = 0; u < U; ++u) {
      if (depth_ == 0 && u > 0) ready[u] = issue_gather(u, "fwd", std::nullopt);
      use_gathered(u, ready[u]);
      const uint32_t started = p_.new_event();
      p_.record(kCompute, started);
      if (depth_ > 0 && u + depth_ < U) ready[u + depth_] = issue_gather(u + depth_, "fwd", started);
      p_.compute(kCompute, units_[u].fwd, Work::Math, tag + "fwd " + units_[u].name);
    }
    // Backward, last unit first; the last forward unit is still gathered.
    std::vector<int> order;
    for (int u = U - 1; u >= 0; --u) order.push_back(u);
    std::vector<uint32_t> bready(U);
    const uint32_t bbegin = p_.new_event();
    p_.record(kCompute, bbegin);
    // order[0] (the head) is kept from the forward; FSDP2 keeps its whole root unit (embedding too).
    auto needs = [&](int idx) { return idx > 0 && !(fsdp_ && order[idx] == 0); };
    for (int k = 1; k <= depth_ && k < U; ++k)
      if (needs(k)) bready[order[k]] = issue_gather(order[k], "bwd", bbegin);
    std::vector<uint32_t> reduced;
    int64_t bucket = 0;  // gradient elements waiting in the reduce bucket (ZeRO-3)
    std::string bucket_names;
    for (int idx = 0; idx < U; ++idx) {
      const int u = order[idx];
      if (needs(idx)) {
        if (depth_ == 0) bready[u] = issue_gather(u, "bwd", std::nullopt);
        use_gathered(u, bready[u]);
      }
      const uint32_t started = p_.new_event();
      p_.record(kCompute, started);
      if (depth_ > 0 && idx >= 1 && idx + depth_ < U && needs(idx + depth_))
        bready[order[idx + depth_]] = issue_gather(order[idx + depth_], "bwd", started);
      if (units_[u].recompute > Time::zero())
        p_.compute(kCompute, units_[u].recompute, Work::Math, tag + "recompute " + units_[u].name);
      p_.compute(kCompute, units_[u].bwd, Work::Math, tag + "bwd " + units_[u].name);
      // Gradients of this unit are ready: reduce-scatter.
      const int64_t params = units_[u].params;
      if (fsdp_) {
        const double bytes = double(params) * 4 + (n_ == 1 ? double(params) * 4 : 0);
        p_.compute(kCompute, secs(mem_time(bytes)), Work::Memory, "rs copy-in " + units_[u].name);
        reduce(params, units_[u].name, reduced);
      } else {
        if (c_.zero.contiguous_gradients)  // copy into the contiguous reduce (ipg) buffer
          p_.compute(kCompute, secs(mem_time(double(params) * 4)), Work::Memory, "ipg copy " + units_[u].name);
        bucket += params;
        bucket_names += (bucket_names.empty() ? "" : "+") + units_[u].name;
        if (double(bucket) >= c_.zero.reduce_bucket_size || idx == U - 1) {
          reduce(bucket, bucket_names, reduced);
          bucket = 0;
          bucket_names.clear();
        }
      }
    }
    // End of backward: wait for every reduction (DeepSpeed's and FSDP2's final callbacks do),
    // then cast/accumulate the reduced shards.
    for (uint32_t e : reduced) p_.wait(kCompute, e);
    int64_t total = 0;
    for (const auto& u : units_) total += u.params;
    const double shard = double(total) / n_;
    if (!offload_opt_) {
      const double acc = m > 0 ? param_bytes_ : 0;  // accumulate into the existing gradient
      const double bytes = fsdp_ ? shard * (2 + param_bytes_ + acc) : shard * (2 + 4 + (m > 0 ? 4 : 0));
      const bool up = !fsdp_ || param_bytes_ == 4;  // 16-bit -> fp32
      p_.compute(kCompute, secs(mem_time(bytes, up ? compute::MemKernel::CastUp : compute::MemKernel::Elementwise)),
                 Work::Memory, tag + "grad cast");
    }
  }

  void reduce(int64_t params, const std::string& name, std::vector<uint32_t>& reduced) {
    const int s = comm_stream();
    if (s != kCompute) p_.join(kCompute, s);
    const double bucket = fsdp_ ? double(params) : std::max(1.0, c_.zero.reduce_bucket_size);
    const int pieces = std::clamp(int(std::ceil(double(params) / bucket)), 1, kMaxPiecesPerUnit);
    const int64_t bytes = params * compute_bytes_;
    for (int i = 0; i < pieces; ++i) {
      const int64_t b = bytes / pieces + (i == pieces - 1 ? bytes % pieces : 0);
      p_.collective(s, kDp, CollOp::ReduceScatter, b, "reduce_scatter " + name + " " + mb(double(b)));
    }
    uint32_t e = p_.new_event();
    p_.record(s, e);
    if (offload_opt_) {
      // stage3.py partition_grads, grad buffer in pinned host memory (gradient accumulation dtype
      // = the bf16 model dtype, assumed): micro-batch 0 copies the reduced shard D2H and back H2D
      // (grad_buffer.to(device)); later micro-batches copy the host buffer H2D, add on the GPU and
      // copy it back D2H. At the accumulation boundary the fp32 cast goes D2H into the fp32 grad.
      const int64_t shard16 = int64_t(double(params) / n_ * compute_bytes_);
      p_.wait(kOffload, e);
      if (micro_ == 0) {
        p_.copy(kOffload, CopyDir::GpuToHost, shard16, "d2h grad buffer " + name);
        p_.copy(kOffload, CopyDir::HostToGpu, shard16, "h2d grad buffer " + name);
      } else {
        p_.copy(kOffload, CopyDir::HostToGpu, shard16, "h2d grad buffer " + name);
        p_.copy(kOffload, CopyDir::GpuToHost, shard16, "d2h grad buffer " + name);
      }
      if (micro_ == accum_ - 1)
        p_.copy(kOffload, CopyDir::GpuToHost, int64_t(double(params) / n_ * 4), "d2h fp32 grads " + name);
      e = p_.new_event();
      p_.record(kOffload, e);
    }
    reduced.push_back(e);
  }

  void optimizer() {
    int64_t total = 0;
    for (const auto& u : units_) total += u.params;
    const double shard = double(total) / n_;
    if (offload_opt_) {
      // Unscale/clip, CPU-Adam and the bf16 partition refresh on the host (see compute.hpp).
      const double t = zero3_host_step_seconds(shard, c_.launcher_procs, c_.node_ranks, c_.rates, c_.cpu_threads);
      p_.compute(kCompute, secs(t), Work::Host, "cpu step " + mb(shard * 4) + " fp32 shard");
      if (!offload_param_) {
        p_.copy(kCompute, CopyDir::HostToGpu, int64_t(shard * compute_bytes_), "h2d updated params");
      }
      return;
    }
    // GPU AdamW (compute.hpp optimizer_plan): DeepSpeed's FusedAdam on the fp32 partition plus its
    // 16-bit copy; FSDP2: torch AdamW (foreach by default) on the parameter dtype.
    const OptimizerPlan plan = optimizer_plan(c_.training, c_.strategy);
    p_.compute(kCompute, secs(optimizer_seconds(shard, plan, c_.rates)), Work::Memory,
               "adamw " + mb(shard * plan.state_bytes) + " shard");
  }

  const DataParallelConfig& c_;
  Program p_;
  bool fsdp_;
  int n_;
  std::vector<Unit> units_;
  int compute_bytes_ = 2, param_bytes_ = 2;
  bool overlap_ = true;
  int depth_ = 1;
  bool offload_param_ = false, offload_opt_ = false;
  int micro_ = 0, accum_ = 1;
};

// DDP: every rank holds every parameter; gradients all-reduced in 25 MB buckets as the backward
// produces them, only on the last micro-batch (no_sync on the others, as HF/accelerate do).
Program build_ddp(const DataParallelConfig& c) {
  Program p({"compute", "comm"});
  const int64_t tokens = int64_t(c.training.micro_batch) * c.model.seq;
  auto units = decoder_units(c.model, tokens, c.rates, c.training.grad_checkpointing, 0);
  const int bytes_per = dtype_bytes(c.training.dtype);
  const int accum = std::max(1, c.training.grad_accum);
  std::vector<uint32_t> reduced;
  for (int m = 0; m < accum; ++m) {
    const std::string tag = "mb" + std::to_string(m) + " ";
    for (const auto& u : units) p.compute(kCompute, u.fwd, Work::Math, tag + "fwd " + u.name);
    double bucket = 0;
    for (int i = int(units.size()) - 1; i >= 0; --i) {
      if (units[i].recompute > Time::zero())
        p.compute(kCompute, units[i].recompute, Work::Math, tag + "recompute " + units[i].name);
      p.compute(kCompute, units[i].bwd, Work::Math, tag + "bwd " + units[i].name);
      if (m != accum - 1) continue;
      bucket += double(units[i].params) * bytes_per;
      while (bucket >= kDdpBucketBytes || (i == 0 && bucket > 0)) {
        const double b = std::min(bucket, std::max(kDdpBucketBytes, i == 0 ? bucket : 0.0));
        const double chunk = i == 0 ? bucket : std::floor(bucket / kDdpBucketBytes) * kDdpBucketBytes;
        (void)b;
        p.join(kCompute, kComm);
        p.collective(kComm, kDp, CollOp::AllReduce, int64_t(chunk), "all_reduce grads " + mb(chunk));
        bucket -= chunk;
      }
    }
  }
  p.join(kComm, kCompute);
  int64_t total = 0;
  for (const auto& u : units) total += u.params;
  p.compute(kCompute, secs(optimizer_seconds(double(total), optimizer_plan(c.training, Strategy::Ddp), c.rates)),
            Work::Memory, "adamw");
  return p;
}

}  // namespace

Program build_data_parallel_program(const DataParallelConfig& c) {
  if (c.strategy == Strategy::Ddp) return build_ddp(c);
  SIM_CHECK(c.strategy == Strategy::Zero3 || c.strategy == Strategy::Fsdp, "not a data-parallel strategy");
  if (c.zero.offload_param != "none" && c.zero.offload_param != "cpu")
    throw SpecError("zero.offload_param", "offload_param must be none or cpu (nvme is not modelled)");
  if (c.zero.offload_optimizer != "none" && c.zero.offload_optimizer != "cpu")
    throw SpecError("zero.offload_optimizer", "offload_optimizer must be none or cpu (nvme is not modelled)");
  return ShardedBuilder(c).build();
}

}  // namespace models::workload
