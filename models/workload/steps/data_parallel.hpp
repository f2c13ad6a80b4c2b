#pragma once
// Data-parallel training steps as Programs, one file per strategy:
//   ZeRO-3 (DeepSpeed semantics)                          zero3_step.cpp
//   ZeRO-1 and ZeRO-2 (DeepSpeed's stage_1_and_2.py)      zero12_step.cpp
//   FSDP (FSDP2 full sharding per block), and HSDP        fsdp_step.cpp
//     (FSDP2 sharding in a group, replicas all-reduce)
//   DDP (bucketed gradient all-reduce during backward)    ddp_step.cpp
// ZeRO-3 and FSDP share the sharded step's skeleton (sharded_step.hpp): per micro-batch, each
// unit's parameters are all-gathered before its forward and again before its backward, and its
// gradients reduce-scattered after its backward; the strategy adds its copies, casts, buckets,
// prefetch depth, offload and optimizer. Slot 0 of every rank is its data-parallel group.
// Collectives per step and their bytes: models/workload/README.md.
#include <string>

#include "models/spec.hpp"
#include "models/workload/compute.hpp"
#include "models/workload/steps/decoder_units.hpp"
#include "models/workload/layout.hpp"
#include "models/model/model_shape.hpp"
#include "models/workload/program.hpp"

namespace models::workload {

struct DataParallelConfig {
  model::ModelShape model;
  TrainingSpec training;
  Checkpointing checkpoint;  // the layout's (decoder_units.hpp checkpointing); training.grad_checkpointing is not read
  ZeroSpec zero;
  Strategy strategy = Strategy::Zero3;  // Zero3, Zero2, Zero1, Fsdp, Hsdp or Ddp (models/workload/layout.hpp)
  int dp = 1;
  int dp_shard = 0;    // hsdp: ranks of one shard group (slot 0), dp / dp_shard replicas (slot 1); 0: dp
  int node_ranks = 1;  // ranks sharing one host (CPU-Adam shares its memory bandwidth)
  // Processes one launcher started (ranks per pod). torchrun sets OMP_NUM_THREADS=1 for each
  // process when it starts more than one (torch/distributed/run.py), so DeepSpeed's OpenMP
  // CPU-Adam then runs on one thread per rank; a lone process keeps every core of the host.
  int launcher_procs = 1;
  int cpu_threads = 0;  // OMP_NUM_THREADS set by the user (0: torchrun's rule above)
  ComputeRates rates;
};

// What a run with ZeRO's optimizer or parameters offloaded to the host says of itself: the one
// measured case, the seeds' Llama-3-8B ZeRO-3 offload on p4d.24xlarge, ran 29 % (1 pod x 4 GPUs)
// and 37 % (4 pods x 1 GPU) slower than predicted (docs/accuracy.md, the seeds' study).
inline constexpr const char* kOffloadCaveat =
    "ZeRO offload to the host: the one measured case (Llama-3-8B ZeRO-3 with CPU offload on p4d.24xlarge, "
    "1 pod x 4 GPUs and 4 pods x 1 GPU) ran 28-37 % slower than predicted; the host's side (CPU-Adam's threads, "
    "the copies through host memory) is where the model is least checked, so read this step as optimistic";

// The larger of the two: the error the caveat states of whole steps (run/caveat_error.hpp).
inline constexpr double kOffloadMeasuredError = 0.37;

// DeepSpeed ZeRO-3's rules (zero3_step.cpp).
// Host seconds of DeepSpeed ZeRO-3's offloaded step() for one rank's fp32 partition of
// `shard_params` elements: kZero3HostStepBytesPerParam of DRAM traffic at
//   rate = min(threads x core_bytes_per_s, host_rate / node_ranks)
// threads = cpu_threads when set, else 1 under torchrun with several processes
// (OMP_NUM_THREADS=1), else all cores.
double zero3_host_step_seconds(double shard_params, int launcher_procs, int node_ranks, const ComputeRates& rates,
                               int cpu_threads = 0);
// Prefetch depth in units: 1 + whole units that fit in stage3_prefetch_bucket_size, capped by
// stage3_max_live_parameters (never below 1: the next unit is always fetched during this one).
int zero3_prefetch_depth(const ZeroSpec& z, int64_t unit_params);
// stage3_param_persistence_threshold: DeepSpeed marks every parameter tensor of numel <= threshold
// ds_persist (parameter_offload.py mark_persistent_parameters; stage3_model_persistence_threshold,
// its cap on their sum, is left at its default, unlimited). A persistent tensor is gathered once and
// never released: every rank holds it whole, beside its partition, and no step gathers it.
inline bool zero3_persists(int64_t numel, double persistence_threshold) {
  return double(numel) <= persistence_threshold;
}
// The model's persistent parameters (every tensor of zero3_persists: the blocks' (block_tensors),
// the word embedding, the learned position table, the final norm's, the untied head).
int64_t zero3_persistent_params(const model::ModelShape& m, double persistence_threshold);
// Parameters of one checkpointed block that the recompute releases and the backward gathers
// again: modules whose next use lies max_reuse_distance parameters or more ahead in the trace
// (persistent modules are never gathered).
int64_t zero3_regathered_params(const model::ModelShape& m, double persistence_threshold, double max_reuse_distance);

// HSDP's all-reduce of one unit's gradient shard over the replicas, bytes: FSDP2 pads a unit's
// parameters to dp_shard equal parts (_fsdp_param.py), so ceil(unit_params / dp_shard) elements.
int64_t hsdp_all_reduce_bytes(int64_t unit_params, int dp_shard, int bytes_per_element);

// One pass of PyTorch DDP's Reducer over `tensors` gradient tensors of `params` elements of
// `bytes_per` bytes: one memory-bound kernel per tensor reading and writing each (ddp_step.cpp:
// the scaled copy into the bucket as a hook fires, or the copy back to .grad): the bytes at the
// Elementwise rate, one kernel's fixed cost, and an eager step's launch gap per further tensor.
double ddp_reducer_pass_seconds(int64_t params, int tensors, int bytes_per, const ComputeRates& rates);

// The config of a scenario's data-parallel step (strategy.cpp; the planner's bounds build the same):
// `node_ranks` ranks share a host, `launcher_procs` per launcher (torchrun: one per pod).
DataParallelConfig data_parallel_config(const ScenarioSpec& spec, const model::ModelShape& shape,
                                        const ParallelLayout& layout, const ComputeRates& rates, int node_ranks,
                                        int launcher_procs);

// One program per strategy; build_data_parallel_program checks the config and picks one.
Program build_zero3_program(const DataParallelConfig& c);
Program build_zero12_program(const DataParallelConfig& c);  // Zero1 or Zero2
Program build_fsdp_program(const DataParallelConfig& c);    // Fsdp or Hsdp
Program build_ddp_program(const DataParallelConfig& c);
Program build_data_parallel_program(const DataParallelConfig& c);

}  // namespace models::workload
