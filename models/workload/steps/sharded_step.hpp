#pragma once
// The shared core of the sharded data-parallel steps: ZeRO-3 (zero3_step.cpp) and FSDP2
// (fsdp_step.cpp). Per micro-batch, on a compute stream and a communication stream:
//   forward, unit by unit: all-gather the unit's parameters (issued `depth` units ahead when
//     overlapping; depth 0: on the compute stream, in line), then its forward;
//   backward, last unit first: all-gather again (the last forward unit is still gathered, and
//     whatever the strategy keeps), recompute under checkpointing, backward; then the unit's
//     gradients are handed to the strategy, which reduce-scatters them (reduce());
//   end of backward: wait for every reduction, then the strategy's cast/accumulate.
// One NCCL stream per process group, as torch.distributed does: gathers and reductions are
// serialised in issue order. The strategy adds what differs through the hooks below, in program
// order. Internal to models/workload (data_parallel.hpp is the public entry).
#include <optional>
#include <string>
#include <vector>

#include "models/workload/steps/data_parallel.hpp"

namespace models::workload {

// Streams of a data-parallel step's program, and the slot of its data-parallel group.
inline constexpr int kComputeStream = 0, kCommStream = 1, kOffloadStream = 2;
inline constexpr int kAllReduceStream = 3;  // HSDP: the replica all-reduce's stream (FSDP2's all_reduce_stream)
inline constexpr int kDpSlot = 0;           // the data-parallel group (HSDP: the shard group)
inline constexpr int kReplicaSlot = 1;      // HSDP: the replica group (ranks at one place of every shard group)

inline sim::Time secs(double s) { return sim::Time::from_seconds(s); }
std::string mb(double bytes);  // "123 MB", for op names

class ShardedStep {
 public:
  virtual ~ShardedStep() = default;
  // Every micro-batch of the step (gradient accumulation repeats it), then the optimizer.
  Program build();

 protected:
  // Units with the strategy's persistence threshold and reuse distance (decoder_units.hpp).
  ShardedStep(const DataParallelConfig& c, double persistence_threshold, double max_reuse_distance);

  // --- What a strategy adds, in program order. ---
  // Before a unit's all-gather of `params` parameters; `after`: the event a prefetched gather
  // waits for (nullopt: issued in line).
  virtual void before_gather(const Unit& unit, int64_t params, std::optional<uint32_t> after) = 0;
  // Once the gathered parameters are ready on the compute stream, before the unit's compute.
  virtual void after_gather(const Unit&) {}
  // Whether unit u stays gathered from its forward to its backward (besides the last one).
  virtual bool kept_for_backward(int) const { return false; }
  // Whether unit u is gathered on its own (false: another unit's all-gather brought it).
  virtual bool gathers(int) const { return true; }
  // The unit's gradients are ready; `last`: the backward's last unit.
  virtual void gradients_ready(const Unit& unit, bool last) = 0;
  // Parameters per reduce-scatter piece when reducing `params` at once.
  virtual double reduce_piece_params(int64_t params) const = 0;
  // After a reduction's collectives (done at event `reduced`): the event the end of the
  // backward waits for.
  virtual uint32_t after_reduce(int64_t, const std::string&, uint32_t reduced) { return reduced; }
  // After every reduction of micro-batch m: cast/accumulate the reduced shards.
  virtual void end_of_backward(int m) = 0;
  virtual void optimizer() = 0;

  // --- The core's tools for the hooks. ---
  int comm_stream() const { return overlap_ ? kCommStream : kComputeStream; }
  // A memory-bound op of `bytes` (compute.hpp memory_seconds: the kind's bandwidth and a launch).
  double mem_time(double bytes, compute::MemKernel kind = compute::MemKernel::Elementwise) const {
    return memory_seconds(c_.rates, kind, bytes);
  }
  // Reduce-scatter of `params` gradients (in pieces of reduce_piece_params, at most
  // kMaxPiecesPerUnit), waited for at the end of the backward.
  void reduce(int64_t params, const std::string& name);
  double shard_params() const;  // all parameters / n_
  static std::string tag(int m) { return "mb" + std::to_string(m) + " "; }

  const DataParallelConfig& c_;
  Program p_;
  int n_;  // ranks sharding the parameters: dp (HSDP: dp_shard)
  std::vector<Unit> units_;
  int compute_bytes_ = 2, param_bytes_ = 2;
  int reduce_bytes_ = 2;  // the gradients' reduction (training.reduce_dtype, else compute_bytes_)
  bool overlap_ = true;  // collectives on their own stream
  int depth_ = 1;        // units gathered ahead (0: no prefetch)
  int micro_ = 0, accum_ = 1;

 private:
  uint32_t issue_gather(int u, const std::string& phase, std::optional<uint32_t> after);
  uint32_t forward_gather(int u, std::optional<uint32_t> after);  // issue_gather, or ready now
  void use_gathered(int u, uint32_t ev);
  void micro_step(int m);
  std::vector<uint32_t> reduced_;  // this micro-batch's reductions
};

}  // namespace models::workload
