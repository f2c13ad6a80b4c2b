// PyTorch FSDP2 (fully_shard per decoder block, full sharding) as a sharded step
// (sharded_step.hpp): ZeRO-3's collectives with FSDP2's own copies and casts and no DeepSpeed
// knobs:
//   every parameter is sharded and gathered (no persistence threshold), one unit ahead, always
//     on its own stream (FSDP2's implicit prefetch: the CPU issues the next unit's all-gather on
//     the all-gather stream while this unit computes);
//   all-gather: copy-in of the shard into the all-gather input (in place), then copy-out of the
//     gathered tensor into the parameters (fsdp_all_gather_copy_*_bytes, compute.hpp);
//   the root (fully_shard of the whole model: the embedding, the final norm and the head) is one
//     parameter group: one all-gather and one copy-out before the embedding's forward (its
//     pre_forward unshards the group), not resharded after forward, so nothing of it is gathered
//     for the backward (_fsdp_param_group.py), and one reduce-scatter after the whole backward:
//     its inputs (token ids) need no gradient, so its post-backward runs only in the final
//     callback (_fsdp_state.py _register_post_backward_hook, _root_post_backward_final_callback);
//   reduce-scatter of each block's gradients as soon as its backward ends (no buckets): copy-in,
//     then after all reductions the reduced shard cast to the parameter dtype and accumulated
//     over micro-batches (fsdp_reduce_scatter_*_bytes, compute.hpp);
//   optimizer: torch AdamW (foreach unless training.optimizer_impl) on the parameter dtype
//     (optimizer_plan, compute.hpp).
// HSDP (fully_shard on a 2-D mesh (replicate, shard); FSDP1's HYBRID_SHARD): all of the above inside
// a shard group of dp_shard ranks (slot 0), then, per unit and micro-batch, the reduce-scatter's
// output (the gradient shard, ceil(params / dp_shard) elements) all-reduced over the dp / dp_shard
// replicas (slot 1) on its own stream once the reduce-scatter is done (foreach_reduce:
// all_reduce_stream.wait_stream(reduce_scatter_stream); dist.all_reduce(reduce_output,
// group=all_reduce_group)); the end of the backward waits for the all-reduces; the optimizer
// updates the 1 / dp_shard shard.
// Collectives per micro-batch (S = parameters x compute dtype bytes): all-gather of every unit
// forward and of every block backward; reduce-scatter of every unit (HSDP: in its shard group,
// then the all-reduce of each unit's shard, S / dp_shard in all). Sources:
// torch/distributed/fsdp/_fully_shard/_fsdp_collectives.py (foreach_all_gather,
// foreach_reduce), _fsdp_param_group.py (root not resharded after forward), torch/optim/adamw.py.
// Tests: tests/models/workload/steps/fsdp_step_test.cpp; validation
// tests/validation/training_steps/h200x2_steps_validation_test.cpp.
#include <algorithm>
#include <limits>

#include "models/workload/steps/sharded_step.hpp"
#include "sim/check.hpp"

namespace models::workload {

int64_t hsdp_all_reduce_bytes(int64_t unit_params, int dp_shard, int bytes_per_element) {
  const int64_t s = std::max(1, dp_shard);
  return (unit_params + s - 1) / s * bytes_per_element;
}

namespace {

class FsdpStep final : public ShardedStep {
 public:
  // FSDP2 shards and gathers every parameter (threshold 0) and never gathers a checkpointed block
  // again for its backward: the block's pre-backward hook unshards it once, its recompute's
  // pre-forward returns early in that state ("the pre-backward hook is responsible for the
  // unshard", _fsdp_state.py _pre_forward) and its post-backward reshards it. So no reuse distance
  // releases anything (DeepSpeed's stage3_max_reuse_distance is ZeRO-3's alone).
  explicit FsdpStep(const DataParallelConfig& c) : ShardedStep(c, 0, std::numeric_limits<double>::infinity()) {
    overlap_ = true;
    depth_ = 1;
    replicas_ = c.strategy == Strategy::Hsdp ? c.dp / n_ : 1;
    // The root group: the head's parameters travel with the embedding's (decoder_units: the
    // embedding first, the head last).
    if (units_.size() >= 2 && !units_.front().block && !units_.back().block) {
      root_ = true;
      units_.front().gathered += units_.back().gathered;
      units_.back().gathered = 0;
    }
    if (replicas_ > 1) {
      const int stream = p_.add_stream("allreduce");
      SIM_CHECK(stream == kAllReduceStream, "HSDP's all-reduce stream");
    }
  }

 private:
  void before_gather(const Unit& unit, int64_t, std::optional<uint32_t>) override {
    // Copy-in on the compute stream, then the gather may start.
    p_.compute(kComputeStream, secs(mem_time(fsdp_all_gather_copy_in_bytes(unit.gathered, n_, param_bytes_))),
               Work::Memory, "copy-in " + unit.name);
    if (overlap_) p_.join(kComputeStream, comm_stream());
  }

  void after_gather(const Unit& unit) override {
    if (unit.gathered == 0) return;  // the head: copied out with the root group
    p_.compute(kComputeStream, secs(mem_time(fsdp_all_gather_copy_out_bytes(unit.gathered))), Work::Memory,
               "copy-out " + unit.name);
  }

  // The root unit holds the embedding; it stays gathered from forward to backward.
  bool kept_for_backward(int u) const override { return u == 0; }
  // The head is the root group's: gathered with the embedding.
  bool gathers(int u) const override { return !(root_ && u == int(units_.size()) - 1); }

  void gradients_ready(const Unit& unit, bool last) override {
    if (root_ && &unit == &units_.back()) return;  // the root group reduces after the whole backward
    const int64_t params = unit.params + (root_ && last ? units_.back().params : 0);
    const std::string name = root_ && last ? std::string("root") : unit.name;
    p_.compute(kComputeStream, secs(mem_time(fsdp_reduce_scatter_copy_in_bytes(params, n_, reduce_bytes_))),
               Work::Memory, "rs copy-in " + name);
    reduce(params, name);
  }

  double reduce_piece_params(int64_t params) const override { return double(params); }

  // HSDP: the reduced shard all-reduced over the replicas, after the reduce-scatter.
  uint32_t after_reduce(int64_t params, const std::string& name, uint32_t reduced) override {
    if (replicas_ < 2) return reduced;
    p_.wait(kAllReduceStream, reduced);
    const int64_t bytes = hsdp_all_reduce_bytes(params, n_, reduce_bytes_);
    p_.collective(kAllReduceStream, kReplicaSlot, nccl::CollOp::AllReduce, bytes,
                  "all_reduce " + name + " " + mb(double(bytes)));
    const uint32_t e = p_.new_event();
    p_.record(kAllReduceStream, e);
    return e;
  }

  void end_of_backward(int m) override {
    const double bytes = fsdp_grad_cast_bytes(shard_params(), param_bytes_, /*accumulate=*/m > 0, reduce_bytes_);
    const auto kind = param_bytes_ == 4 ? compute::MemKernel::CastUp : compute::MemKernel::Elementwise;  // 16 -> 32 bit
    p_.compute(kComputeStream, secs(mem_time(bytes, kind)), Work::Memory, tag(m) + "grad cast");
  }

  void optimizer() override {
    const double shard = shard_params();
    // torch AdamW (foreach by default) on the parameter dtype (compute.hpp optimizer_plan).
    const OptimizerPlan plan = optimizer_plan(c_.training, Strategy::Fsdp);
    p_.compute(kComputeStream, secs(optimizer_seconds(shard, plan, c_.rates)), Work::Memory,
               "adamw " + mb(shard * plan.state_bytes) + " shard");
  }

  int replicas_ = 1;   // HSDP: dp / dp_shard
  bool root_ = false;  // units_ front and back are the root group (embedding; final norm and head)
};

}  // namespace

Program build_fsdp_program(const DataParallelConfig& c) { return FsdpStep(c).build(); }

}  // namespace models::workload
