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
  double core_bytes_per_s = 0;  // one CPU thread's achieved DRAM bandwidth (kDefaultCoreBytesPerS)
  double overlap_slowdown = 0;  // compute time stretch while comm is in flight (kDefaultOverlapSlowdown)
  double flops_per_s() const { return peak_flops * efficiency; }
  double hbm_rate() const { return hbm_bytes_per_s * hbm_efficiency; }
  double host_rate() const { return host_bytes_per_s * host_efficiency; }
};

// Fitted on scenarios/validation/h200x4/measured/torch/{z3_n1,tp_n1}.json (mean step 0.16061 s and
// 0.11657 s) by fit_single_gpu(): 2 parameters from 2 measurements (exactly determined).
// Cross-check: matmul.txt measures 698-803 TF/s (0.71-0.81 of 989 TF/s) for the bare GEMMs; a
// whole step, with attention, norms, SwiGLU and launch gaps in between, achieves less.
inline constexpr double kDefaultEfficiency = 0.5661;
inline constexpr double kDefaultHbmEfficiency = 0.8394;
// DeepSpeed CPU-Adam is memory-bound (30 B per parameter: read p, g, m, v fp32, write p, m, v
// fp32 and the bf16 copy). ZeRO-Offload (Ren et al., USENIX ATC 2021, Table 3) measures CPU-Adam
// at 2.41 s for 8B parameters on a 2 x 24-core Xeon 8168 host: 8e9 x 30 B / 2.41 s = 100 GB/s of
// DRAM traffic, about 0.4 of that host's 256 GB/s peak. A prior, not fitted here.
inline constexpr double kDefaultHostEfficiency = 0.4;
inline constexpr double kCpuAdamBytesPerParam = 30;
// Host work of DeepSpeed ZeRO-3's step() per fp32 partition element with offload_optimizer=cpu
// (deepspeed/runtime/zero/stage3.py, step -> unscale_and_clip_grads -> _optimizer_step ->
// _reassign_or_swap_out_partitioned_parameters):
//   unscale_and_clip_grads: fp32 grad.mul_(1/combined_scale), applied every step: read 4 + write 4
//   CPU-Adam (csrc/adam/cpu_adam_impl.cpp): read p, g, m, v and write p, m, v, all fp32: 28 B
//   fp16 partition refresh: fp16_partitioned_groups_flat.copy_(fp32 partition): read 4 + write 2
// 42 B per element, all DRAM traffic (the partition, 2e9 elements per rank here, dwarfs caches).
inline constexpr double kZero3HostStepBytesPerParam = 8 + 28 + 6;
// One core's achieved DRAM bandwidth on a Skylake-SP/Cascade Lake Xeon: ~12 GB/s, limited by
// the outstanding L1/L2 misses one core can hold (Little's law), far below the socket's share.
// Source: J. D. McCalpin, "Memory Bandwidth and System Balance in HPC Systems" (SC16 invited
// talk) and his STREAM single-thread results on Xeon Platinum 8160 (~12-14 GB/s). CPU-Adam with
// AVX512 does ~1.5e9 elements/s of arithmetic per core (sqrt + div per element), so one thread is
// bandwidth-bound: 12 GB/s / 28 B = 0.43e9 elements/s. Override: cluster.params
// "host.core_bytes_per_s".
inline constexpr double kDefaultCoreBytesPerS = 12e9;
// Compute-communication interference, measured with the PyTorch profiler on 2 x H200 (NV18) during
// FSDP2 steps of the calibration decoder (bench/device/torch_fsdp_step.py PROFILE=..., tables in
// scenarios/validation/h200x2/profile_fsdp_n{1,2}.txt): the same GEMMs take 64.5 ms per step on
// one GPU and 77.0 ms with 2 GPUs, whose all-gather/reduce-scatter kernels (24 channels = 24 of
// 132 SMs) ran 38 ms per step beside them. Compute work W overlapped for 38 ms at rate 1/(1+s)
// with W*s = 12.5 ms gives s = 12.5 / (38 - 12.5) = 0.49: while a collective's CTAs hold SMs, the
// GEMMs (one persistent CTA per SM) lose whole waves. One measurement on one GPU type; override
// with cluster.params "compute.overlap_slowdown" (0 = perfect overlap).
inline constexpr double kDefaultOverlapSlowdown = 0.49;
inline constexpr double kLossBytesPerLogit = 16;
inline constexpr double kAdamwTensorPasses = 20;

// Rates from catalog values and the scenario's overrides: training.compute_efficiency, and
// cluster.params "compute.efficiency", "compute.hbm_efficiency", "host.adam_efficiency",
// "host.core_bytes_per_s" (bytes/s).
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
