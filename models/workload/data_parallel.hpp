#pragma once
// Data-parallel training steps as Programs: ZeRO-3 (DeepSpeed semantics), FSDP (FSDP2 full
// sharding per block: ZeRO-3 semantics with its own copies and casts) and DDP (bucketed gradient
// all-reduce overlapping the backward). Slot 0 of every rank is its data-parallel group.
//
// ZeRO-3, per micro-batch (gradient accumulation repeats it; DeepSpeed stage 3 reduce-scatters
// every micro-batch): forward, for each unit (embedding, blocks, head): all-gather its parameters
// (issued `depth` units ahead on the communication stream: stage3_prefetch_bucket_size and
// stage3_max_live_parameters set depth), then compute. Backward, in reverse: all-gather again
// (the last forward unit is kept: it is reused at once), recompute under checkpointing, backward,
// then reduce-scatter of its gradients (merged or split to reduce_bucket_size). One NCCL stream
// per process group, as torch.distributed does: gathers and reductions are serialised in issue
// order. overlap_comm = false: every collective runs on the compute stream (no overlap).
// Offload (ZeRO-Offload/Infinity): offload_param copies each rank's parameter shard host->GPU
// before its all-gather; offload_optimizer copies the reduced gradient shard GPU->host (fp32) and
// runs CPU-Adam at the end of the step (memory-bound, shared by the node's ranks); without
// offload_param the updated bf16 shard goes back host->GPU.
#include <string>

#include "models/spec.hpp"
#include "models/workload/compute.hpp"
#include "models/workload/layout.hpp"
#include "models/workload/model_shape.hpp"
#include "models/workload/program.hpp"

namespace models::workload {

struct DataParallelConfig {
  ModelShape model;
  TrainingSpec training;
  ZeroSpec zero;
  Strategy strategy = Strategy::Zero3;  // Zero3, Fsdp or Ddp (models/workload/layout.hpp)
  int dp = 1;
  int node_ranks = 1;  // ranks sharing one host (CPU-Adam shares its memory bandwidth)
  // Processes one launcher started (ranks per pod). torchrun sets OMP_NUM_THREADS=1 for each
  // process when it starts more than one (torch/distributed/run.py), so DeepSpeed's OpenMP
  // CPU-Adam then runs on one thread per rank; a lone process keeps every core of the host.
  int launcher_procs = 1;
  int cpu_threads = 0;  // OMP_NUM_THREADS set by the user (0: torchrun's rule above)
  ComputeRates rates;
};

// Per-unit compute of one micro-batch, shared by every strategy.
struct Unit {
  std::string name;
  int64_t params = 0;    // all parameters of the unit
  int64_t gathered = 0;  // parameters above stage3_param_persistence_threshold
  sim::Time fwd, bwd, recompute;
  bool block = false;
  // Under gradient checkpointing: parameters the recompute's post-forward hooks release and the
  // backward gathers once more (DeepSpeed keeps a module only if it is reused within
  // stage3_max_reuse_distance parameters of the trace).
  int64_t regathered = 0;
};
std::vector<Unit> decoder_units(const ModelShape& m, int64_t tokens, const ComputeRates& rates, bool checkpointing,
                                double persistence_threshold, int tp = 1, double max_reuse_distance = 1e9);

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

Program build_data_parallel_program(const DataParallelConfig& c);

}  // namespace models::workload
