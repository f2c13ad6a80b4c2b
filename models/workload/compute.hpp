#pragma once
// models::workload compute model: FLOPs of a Llama-style decoder and the memory-bound kernels
// around it, turned into times with two physical rates: the GPU's achieved matrix rate
// (catalog peak x efficiency) and its achieved HBM bandwidth (catalog x hbm efficiency).
//
// FLOPs (per token, forward; a multiply-add is 2 FLOPs; Kaplan et al. 2020, Narayanan et al. 2021):
//   block   = 2 * block_matmul_params + attention
//   attention (QK^T and PV) = 2 * 2 * seq * hidden / 2   (causal: counted as HALF, because
//             FlashAttention/SDPA with is_causal skips the masked tiles, as FlashAttention-2 counts it)
//   head    = 2 * vocab * hidden ; embedding = 0 (a lookup) ; loss = memory-bound (below)
//   backward = 2 x forward ; gradient checkpointing recomputes the block forward once more.
// Memory-bound kernels (bytes at achieved HBM bandwidth):
//   AdamW (torch foreach, 8 kernels: mul, lerp, mul, addcmul, sqrt, div, add, addcdiv) touches
//   20 tensor-elements per parameter: 20 * state_bytes (40 B bf16 states, 80 B fp32 states).
//   Cross-entropy over the logits: 16 B per logit (bf16 in, fp32 softmax, bf16 grad out).
//   FSDP2 copy-in/out and casts: see fsdp_* below.
#include <cstdint>
#include <map>
#include <string>

#include "models/workload/model_shape.hpp"

namespace models::workload {

struct ComputeRates {
  double peak_flops = 0;        // dense bf16 tensor-core peak (catalog)
  double efficiency = 0;        // achieved fraction over forward/backward
  double hbm_bytes_per_s = 0;   // catalog HBM bandwidth
  double hbm_efficiency = 0;    // achieved fraction in memory-bound kernels
  double host_bytes_per_s = 0;  // host memory bandwidth of the whole node
  double host_efficiency = 0;   // achieved fraction by DeepSpeed CPU-Adam
  double core_bytes_per_s = 0;  // one CPU thread's achieved DRAM bandwidth (host.core_bytes_per_s)
  double overlap_slowdown = 0;  // compute time stretch while comm is in flight (compute.overlap_slowdown)
  double flops_per_s() const { return peak_flops * efficiency; }
  double hbm_rate() const { return hbm_bytes_per_s * hbm_efficiency; }
  double host_rate() const { return host_bytes_per_s * host_efficiency; }
};

// The rates' defaults (compute.efficiency 0.5661 and compute.hbm_efficiency 0.8394 fitted on
// 1 x H200 steps by fit_single_gpu(); host.adam_efficiency, host.core_bytes_per_s,
// compute.overlap_slowdown) are registered with their derivations in models/params.cpp.
// CPU-Adam is memory-bound: 30 B per parameter (read p, g, m, v fp32, write p, m, v fp32 and the
// bf16 copy).
inline constexpr double kCpuAdamBytesPerParam = 30;
// Host work of DeepSpeed ZeRO-3's step() per fp32 partition element with offload_optimizer=cpu
// (deepspeed/runtime/zero/stage3.py, step -> unscale_and_clip_grads -> _optimizer_step ->
// _reassign_or_swap_out_partitioned_parameters):
//   unscale_and_clip_grads: fp32 grad.mul_(1/combined_scale), applied every step: read 4 + write 4
//   CPU-Adam (csrc/adam/cpu_adam_impl.cpp): read p, g, m, v and write p, m, v, all fp32: 28 B
//   fp16 partition refresh: fp16_partitioned_groups_flat.copy_(fp32 partition): read 4 + write 2
// 42 B per element, all DRAM traffic (the partition, 2e9 elements per rank here, dwarfs caches).
inline constexpr double kZero3HostStepBytesPerParam = 8 + 28 + 6;
inline constexpr double kLossBytesPerLogit = 16;
inline constexpr double kAdamwTensorPasses = 20;

// Rates from catalog values and the scenario's overrides: training.compute_efficiency, and
// cluster.params "compute.efficiency", "compute.hbm_efficiency", "host.adam_efficiency",
// "host.core_bytes_per_s" (bytes/s), "compute.overlap_slowdown" (registered in models/params.cpp).
ComputeRates make_rates(double peak_flops, double hbm_bytes_per_s, double host_bytes_per_s, double training_efficiency,
                        const std::map<std::string, double>& params);

// Forward FLOPs of one block for `tokens` tokens (micro_batch * seq), divided over `tp` ranks.
double block_forward_flops(const ModelShape& m, int64_t tokens, int tp = 1);
// Forward FLOPs of the LM head (0 for the embedding lookup).
double head_forward_flops(const ModelShape& m, int64_t tokens, int tp = 1);
double loss_bytes(const ModelShape& m, int64_t tokens, int tp = 1);
double adamw_bytes(int64_t params, int state_bytes);

int dtype_bytes(const std::string& dtype);  // bf16/fp16: 2, fp32: 4; SpecError on others

// FSDP2 memory traffic per parameter of a unit sharded over n ranks (param_bytes: fp32 4 or
// bf16 2; compute dtype 2). All-gather: copy-in (read shard, write bf16 shard), copy-out of the
// gathered tensor (read + write 2 B each); with n == 1 NCCL's "all-gather" is a local copy too.
// Reduce-scatter: copy-in (2+2), then the reduced shard cast to the parameter dtype (2+param).
double fsdp_all_gather_bytes(int64_t params, int n, int param_bytes);
double fsdp_reduce_scatter_bytes(int64_t params, int n, int param_bytes);
// The same, in the parts fsdp_step.cpp issues around each collective:
//   all-gather:     copy-in (+ the local copy at n == 1) before it, copy-out after it;
//   reduce-scatter: copy-in (+ the local copy at n == 1) before it; the cast of the reduced
//                   shard (shard_params = params / n) after all of a micro-batch's reductions,
//                   which also reads the existing gradient when accumulating (+param_bytes).
double fsdp_all_gather_copy_in_bytes(int64_t params, int n, int param_bytes);
double fsdp_all_gather_copy_out_bytes(int64_t params);
double fsdp_reduce_scatter_copy_in_bytes(int64_t params, int n);
double fsdp_grad_cast_bytes(double shard_params, int param_bytes, bool accumulate);

// The closed form the simulator reproduces for one GPU without communication:
//   step = F / (peak * eff) + B / (hbm * hbm_eff)
struct StepWork {
  double flops = 0;
  double hbm_bytes = 0;
};
StepWork single_gpu_work(const ModelShape& m, int micro_batch, bool grad_checkpointing, bool fsdp, int param_bytes);
// Solves the two equations above for (efficiency, hbm_efficiency) from two runs that share the
// model and differ in memory traffic (z3_n1: FSDP2, fp32 params; tp_n1: plain, bf16 params).
struct Fit {
  double efficiency = 0, hbm_efficiency = 0;
};
Fit fit_single_gpu(const StepWork& a, double step_a_s, const StepWork& b, double step_b_s, double peak_flops,
                   double hbm_bytes_per_s);

}  // namespace models::workload
