#pragma once
// models::workload compute model: the work of a Llama-style decoder's training step on one rank,
// term by term, each term timed by the laws of models/compute/ (measured on one H200,
// scenarios/validation/h200x1/ANALYSIS.md; other GPUs by the transfer rule of gpu_rates.hpp).
//
// One block on T tokens, one rank of a tensor-parallel group of tp (Megatron's split: q/k/v, gate
// and up by columns, o and down by rows; Shoeybi et al. 2019):
//   GEMMs      each linear layer's forward (T, out, in), dgrad (T, in, out) and wgrad (out, in, T)
//              at the GEMM law t = t0 + 2mnk/R + 2mn/BWc; qkv one product (the calibration
//              decoder's fused projection, Megatron's linear_qkv), gate and up two (the decoder's
//              and Hugging Face Llama's), o, down.
//   attention  causal SDPA over heads / tp: t0f + F/Rf forward, t0b + 2.5F/Rb backward,
//              F = 2 T s h / tp; the backward of the packed q/k/v split copies the qkv gradient
//              twice (stack + layout copy: 8 B per element of T x (h + 2 kv) / tp, strided).
//   memory     RMSNorm x2 (fwd 4 B, bwd 6 B per element of T x h), residual adds (2 forward, 3
//              backward gradient sums, 6 B per element), SwiGLU (fwd 6 B, bwd 10 B per element of
//              T x ffn / tp), each at its kind's rate plus t0 per kernel. Norms and residual adds
//              are NOT split by tp (every TP rank holds the whole T x h activation), except with
//              sequence parallelism (Korthikanti et al. 2022), where they run on T / tp tokens.
// The head on T tokens: final RMSNorm, the LM head's three GEMMs (T, V / vs, h), the loss at its
// measured time per logit over T x V / vs logits (vs = vocab split: 1 when the head is replicated
// on every TP rank, as the calibration runs do; tp for Megatron's vocab-parallel output layer).
// The embedding is a lookup (its backward's scatter, ~0.3 ms on the calibration decoder, is not
// modelled).
// The optimizer: AdamW by implementation on its states (models/compute/optimizer.hpp), plus, with
// fp32 master weights beside 16-bit parameters, the gradients' cast up and the parameters' cast
// down (6 B per parameter each).
#include <cstdint>
#include <map>
#include <string>

#include "models/compute/gpu_rates.hpp"
#include "models/hw/gpu.hpp"
#include "models/model/model_shape.hpp"
#include "models/spec.hpp"
#include "models/workload/layout.hpp"
#include "models/workload/model_code.hpp"

namespace models::workload {

struct ComputeRates {
  compute::GpuRates gpu;        // the GPU's compute laws in the step's precision
  double host_bytes_per_s = 0;  // host memory bandwidth of the whole node
  double host_efficiency = 0;   // achieved fraction by DeepSpeed CPU-Adam
  double core_bytes_per_s = 0;  // one CPU thread's achieved DRAM bandwidth (host.core_bytes_per_s)
  double overlap_slowdown = 0;  // compute time stretch while comm is in flight (compute.overlap_slowdown)
  double gemm_stretch = 1;      // the step's GEMMs slowed under the power limit (with_power_cap)
  AttentionCode code;           // the rotary embedding's kernels and repeat_kv (model_code.hpp)
  double host_rate() const { return host_bytes_per_s * host_efficiency; }
};

// The rates' defaults (host.adam_efficiency, host.core_bytes_per_s, compute.overlap_slowdown, and
// every compute.* of models/compute/) are registered with their derivations in models/params.cpp.
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

// The step's precision: training.precision, else training.dtype (the loader checks they agree).
compute::Precision training_precision(const TrainingSpec& t);

// Rates of `gpu` in `precision` with the scenario's cluster.params (models/params.cpp) and
// training.compute_efficiency (> 0: the GEMM rate as that fraction of the precision's peak).
ComputeRates make_rates(const hw::GpuSpec& gpu, compute::Precision precision, double host_bytes_per_s,
                        double training_efficiency, const std::map<std::string, double>& params);

// Seconds by kind of work, for a step's decomposition (GEMMs, attention, the rest). GEMM seconds
// are the law's times x ComputeRates::gemm_stretch, plus their launch gaps.
struct WorkSeconds {
  double gemm = 0, attention = 0, memory = 0;
  double total() const { return gemm + attention + memory; }
  WorkSeconds& operator+=(const WorkSeconds& o) {
    gemm += o.gemm, attention += o.attention, memory += o.memory;
    return *this;
  }
};

// One block's kernels on one rank and micro-batch of `tokens` tokens, each priced by the laws
// above: GEMMs (fwd, dgrad, wgrad) with the power-limit stretch and one launch gap each, the rest
// with their launches' gaps. block_seconds sums them in the order a PyTorch block runs them;
// Megatron's layer model (megatron_layer.hpp) places the same pieces between its tensor-, sequence-
// and context-parallel communication. Element bytes e = compute::activation_bytes(precision).
//   norm       read + write per element of the T x h activation (T / tp with sequence parallelism):
//              forward 2 e, backward 3 e (read x and dy, write dx)
//   add        residual add, read 2 + write 1: 3 e (the backward's gradient sums alike)
//   act        SwiGLU: forward 3 e per T x ffn / tp element (read gate and up, write), backward 5 e;
//              GELU (gated_mlp false): 2 e forward, 4 e backward
//   rope       the rotary embedding of q and k, and repeat_kv's copies: model_code.hpp
//   qkv copies the backward's stack of dq, dk, dv and copy back: 4 e per T x (q + k + v) / tp element
//              (h + 2 kv for Llama's attention; model/attention.hpp gives q, k, v for head_dim and MLA)
//   MLA        the attention's GEMMs are its down projections q_a [h x r_q], kv_a [h x (r_kv + d_r)]
//              (whole on every TP rank), up projections q_b, kv_b and o (split by heads), each by the
//              GEMM law at its shape; the core at width W = a (d_qk + d_v) / 2 (F = 2 T s W / tp)
//   attention  flash (causal SDPA law, attention_fwd_flops); unfused (Megatron-LM <= 2022: explicit
//              scores, softmax, dropout) = its GEMM FLOPs (4 T s h / tp, the masked half included) at
//              the GEMM law's rate plus its score tensor's bytes (megatron_layer.hpp: 6 e + 1 per
//              score forward, 9 e + 1 backward) at the elementwise rate
struct BlockKernels {
  compute::LinearSeconds qkv, o, up, down;  // up: the MLP's input GEMMs (SwiGLU's gate and up together)
  double attn_fwd = 0, attn_bwd = 0;
  double norm_fwd = 0, norm_bwd = 0;
  double add = 0;
  double act_fwd = 0, act_bwd = 0;
  double qkv_copies_bwd = 0;
  // The rotary embedding of q and k and, with repeat_kv, the key/value heads' copies (model_code.hpp).
  double rope_fwd = 0, rope_bwd = 0, kv_copy_fwd = 0, kv_copy_bwd = 0;
  // Multi-head latent attention only (model/attention.hpp), else 0: the RMSNorms of its latents
  // (q_a_layernorm over r_q, kv_a_layernorm over r_kv per token), forward and backward, on every
  // TP rank (the down projections are replicated).
  double latent_norm_fwd = 0, latent_norm_bwd = 0;
  // Biases (model.biases), else 0: the forward adds them in the GEMMs' epilogue (no kernel); the
  // backward reduces each output gradient over the tokens for its bias gradient: read e per element
  // of T x (q + k + v) / tp and T x h (o, replicated over TP), one kernel each (attention), and of
  // the MLP's T x ffn (x2 gated) / tp and T x h (MLP).
  double bias_attn_bwd = 0, bias_mlp_bwd = 0;
  // fp8 (precision.hpp) only, else 0: the quantizations (compute/kernels.hpp Fp8Cast) of the linear
  // layers' inputs (forward: qkv's and fc1's inputs, the attention output, the SwiGLU output), of
  // their output gradients (backward) and of their weights (once per step where the framework keeps
  // the fp8 weights across micro-batches, as Megatron does; every forward otherwise). Attention's
  // half (qkv, o) and the MLP's (fc1, fc2) apart, so an MoE layer keeps only the former.
  double fp8_attn_fwd = 0, fp8_mlp_fwd = 0, fp8_attn_bwd = 0, fp8_mlp_bwd = 0;
  double fp8_attn_weights = 0, fp8_mlp_weights = 0;
};
BlockKernels block_kernels(const model::ModelShape& m, int64_t tokens, int tp, const ComputeRates& r,
                           bool sequence_parallel = false, bool flash_attention = true);

// An MoE layer's MLP on one rank and micro-batch (moe.hpp; Megatron-Core's alltoall token
// dispatcher with GroupedGEMM experts, expert tensor parallelism etp: tp by default), `tokens` = T
// the rank's tokens before sequence parallelism's split, Tn = T / tp (sp) the router's; the
// experts see the tokens of their ETP group, etp Tn (T with etp = tp):
//   router     GEMM [Tn x h] x [h x E] (fwd, dgrad, wgrad by the GEMM law)
//   permute    gather of the k c Tn routed token copies, read + write 2 e per element of h; the
//              unpermute (combine) alike; their backwards the same bytes
//   experts    E / ep local experts of n_e = s c ep etp Tn k / E tokens (moe.hpp expert_gemms):
//              each expert's gate+up [n_e x h] x [h x 2 f_e / etp] and down [n_e x f_e / etp] x
//              [f_e / etp x h], one grouped GEMM per product and kind (compute::grouped_gemm_seconds:
//              one launch, each expert at the larger of its tensor and its HBM time)
//   act        SwiGLU on E/ep x n_e x f_e / etp elements (as the dense MLP's)
//   shared     shared_experts dense SwiGLU experts of f_e each on T tokens, split over tp as the
//              dense MLP is (gate+up, act, down)
struct MoeKernels {
  compute::LinearSeconds router, experts_up, experts_down, shared_up, shared_down;
  double permute = 0;  // one of permute / unpermute, forward (backward the same)
  double act_fwd = 0, act_bwd = 0, shared_act_fwd = 0, shared_act_bwd = 0;
  model::ExpertGemms gemms;
};
MoeKernels moe_kernels(const model::ModelShape& m, int64_t tokens, int tp, int ep, int etp, const ComputeRates& r);

// One block on one rank (see above): its attention half (norm 1, qkv, attention, o, residual) and
// its MLP half (norm 2, gate, up, SwiGLU, down, residual), forward and backward.
// `fwd_unsaved_tail`: the forward's last kernels, whose outputs no backward kernel of the block
// saved: the MLP's down projection (it saves its input, the activation's output, before its GEMM
// runs) and the residual add after it (saves nothing). PyTorch's non-reentrant checkpoint stops
// its recompute when the last saved tensor is back (torch/utils/checkpoint.py, early stop on by
// default), so it never reruns them: recompute(true).
// `fwd_op_rerun`: what torchtitan's per-op selective checkpointing reruns (recompute =
// "selective_op"): it keeps the outputs of the block's 1st, 3rd, 5th and 7th matmul (q, v, w1,
// w2: torchtitan counts aten.mm and recomputes every second), attention's and reductions', so the
// backward reruns the two norms, k's projection (k_dim of the fused qkv GEMM's q + k + v columns),
// the rotary embedding (and key/value copies), o's projection and the residual add, w3's half of
// the gate/up GEMM and the activation; as above it stops before the down projection.
struct BlockSeconds {
  WorkSeconds attn_fwd, mlp_fwd, attn_bwd, mlp_bwd;
  double fwd_unsaved_tail = 0;
  double fwd_op_rerun = 0;
  double fwd() const { return attn_fwd.total() + mlp_fwd.total(); }
  double recompute(bool stops_early) const { return stops_early ? fwd() - fwd_unsaved_tail : fwd(); }
  double bwd() const { return attn_bwd.total() + mlp_bwd.total(); }
};
// `weight_casts`: the fp8 weights' quantization in the forward, as the data-parallel units pay it
// in every forward; false leaves it out, for Megatron's layer, which casts its weights once per step
// (steps/megatron_layer.cpp: the first micro-batch's forward, not a recompute).
BlockSeconds block_seconds(const model::ModelShape& m, int64_t tokens, int tp, const ComputeRates& r,
                           bool sequence_parallel = false, bool weight_casts = true);

// Final norm, LM head (logits) and loss on one rank; `vocab_split` 1 (replicated) or tp
// (vocab-parallel); the norm over `norm_tokens` (tokens / tp with sequence parallelism). The loss
// as loss_s_per_logit per logit, half forward, half backward.
struct HeadKernels {
  double norm_fwd = 0, norm_bwd = 0;
  compute::LinearSeconds logits;
  double loss_fwd = 0, loss_bwd = 0;
};
// `vocab`: the output layer's rows when the framework pads them (0: the model's vocab; Megatron:
// megatron_padded_vocab). `megatron_loss`: Megatron-Core's vocab-parallel cross entropy (layout.hpp),
// compute::kMegatronLossBytesPerLogit where PyTorch's moves kLossBytesPerLogit.
HeadKernels head_kernels(const model::ModelShape& m, int64_t tokens, int64_t norm_tokens, int vocab_split,
                         const ComputeRates& r, int64_t vocab = 0, bool megatron_loss = false);
struct HeadSeconds {
  WorkSeconds fwd, bwd;
  compute::LinearSeconds logits;  // the output layer's GEMMs alone (also in fwd and bwd)
};
HeadSeconds head_seconds(const model::ModelShape& m, int64_t tokens, int vocab_split, const ComputeRates& r,
                         int64_t vocab = 0);
// Megatron-LM pads the vocabulary to a multiple of make_vocab_size_divisible_by (128 by default) x tp
// (megatron/training/tokenizer/tokenizer.py _vocab_size_with_padding), so each rank's share of the
// output layer is a multiple of 128 rows and its GEMMs run aligned (compute/gemm.hpp); PyTorch's
// nn.Linear and Hugging Face models do not pad (GPT-2's 50257). Parameters and memory keep the
// model's vocab (the padding is under 0.1 % of GPT-3's parameters).
int64_t megatron_padded_vocab(int64_t vocab, int tp, int multiple = 128);
// The output layer's rows as `l`'s framework computes them: Megatron's padded vocabulary, else the
// model's.
int64_t output_layer_rows(const model::ModelShape& m, const ParallelLayout& l);

// `r` with gemm_stretch set for one rank's step of `gemm_s` GEMM seconds and `other_s` seconds of
// everything else it computes (compute::power_capped_gemm_stretch), from unstretched rates.
ComputeRates with_power_cap(const ComputeRates& r, double gemm_s, double other_s);
// The busiest rank's work in one step at `rates`, before it is summed by class:
// rank_compute_seconds sums it as GEMMs and the rest, rank_compute_classes per kernel class.
struct RankStepWork {
  BlockSeconds block;
  HeadSeconds head;
  double layers = 0;     // blocks on the rank (Megatron: the largest stage)
  double micro = 0;      // micro-batches of the step
  double recompute = 0;  // 1: the forward runs again in the backward
  double params = 0;     // parameters its optimizer updates (Megatron: one stage's blocks and the head)
  // `part` of every kernel of the step: micro x (layers x block + head), recomputed forwards included.
  template <class Part>
  double sum(Part part) const {
    const double fwd = part(block.attn_fwd) + part(block.mlp_fwd);
    return micro * (layers * (fwd * (1 + recompute) + part(block.attn_bwd) + part(block.mlp_bwd)) + part(head.fwd) +
                    part(head.bwd));
  }
};
RankStepWork rank_step_work(const ScenarioSpec& spec, const model::ModelShape& m, const ParallelLayout& layout,
                            const ComputeRates& rates);
// FSDP2's copies of one step (all-gather and reduce-scatter buffers, the cast of the parameters)
// for a rank updating `params` parameters; 0 for other strategies.
double fsdp_copy_seconds(const ScenarioSpec& spec, const model::ModelShape& m, const ParallelLayout& layout,
                         const ComputeRates& rates, double micro, double params);
// One rank's compute seconds in a step at `rates` (the busiest rank, as power_capped_rates says):
// its GEMMs (with their launch gaps) and everything else it computes.
struct RankComputeSeconds {
  double gemm = 0, other = 0;
};
RankComputeSeconds rank_compute_seconds(const ScenarioSpec& spec, const model::ModelShape& m, const ParallelLayout& layout,
                                        const ComputeRates& rates);
// The rates of one rank of `spec`'s step with its power-capped stretch: the busiest rank's GEMM and
// other compute seconds (Megatron's last stage: its blocks and the head over the pipeline's
// micro-batches plus its optimizer; data parallel: every block and the head over the accumulated
// micro-batches, the optimizer on the rank's shard, FSDP2's copies). Communication and waits are
// left out (they lower the mean power: a communication-bound step is throttled less than this
// says, where its compute matters less). Offloaded ZeRO-3 steps, which wait on the host for most
// of the step, are not capped.
ComputeRates power_capped_rates(const ScenarioSpec& spec, const model::ModelShape& m, const ParallelLayout& layout,
                                const ComputeRates& rates);

// The rates a step's programs are priced at: the GPU's laws in the step's precision (make_rates,
// with training.compute_efficiency and cluster.params), the model code of the layout's strategy
// (model_code.hpp), and, with `power_cap`, the power limit's stretch of this step's GEMMs.
ComputeRates step_rates(const ScenarioSpec& spec, const hw::GpuSpec& gpu, double host_bytes_per_s,
                        const model::ModelShape& m, const ParallelLayout& layout, bool power_cap = true);

// A memory-bound op of `bytes` in `launches` kernels of one kind.
double memory_seconds(const ComputeRates& r, compute::MemKernel kind, double bytes, int launches = 1);

// The optimizer step on the GPU.
struct OptimizerPlan {
  compute::OptimizerImpl impl = compute::OptimizerImpl::Foreach;
  int state_bytes = 4;            // bytes of the parameters and states AdamW updates (4: fp32)
  bool cast_grads_up = false;     // 16-bit gradients cast to the fp32 master's (Megatron)
  bool cast_params_down = false;  // the updated fp32 master cast to the 16-bit parameters
};
// What the framework runs (training.optimizer_impl overrides the implementation):
//   fsdp, ddp  torch.optim.AdamW, foreach by default (torch/optim/adamw.py), on the parameters'
//              dtype (param_dtype, else dtype); no master copy.
//   megatron   FusedAdam (Transformer Engine's, else Apex's: megatron/core/optimizer/__init__.py)
//              on fp32 master weights and states beside 16-bit parameters (Float16Optimizer):
//              gradients cast up, master cast down; param_dtype given = no master (those are the
//              parameters the optimizer updates, as the calibration runs' plain bf16 AdamW).
//   zero3      DeepSpeed FusedAdam on the fp32 partition, then the fp32 -> 16-bit partition copy
//              (its gradients are cast to fp32 at the end of backward, in the step program).
OptimizerPlan optimizer_plan(const TrainingSpec& t, Strategy s);
double optimizer_seconds(double params, const OptimizerPlan& plan, const ComputeRates& r);

// Forward FLOPs of one block for `tokens` tokens, divided over `tp` ranks (GEMMs 2 x params x
// tokens, causal attention counted as half: 2 T s W, W = h for Llama's attention, a (d_qk + d_v) / 2
// in general: model/attention.hpp); of the LM head (embedding: a lookup).
double block_forward_flops(const model::ModelShape& m, int64_t tokens, int tp = 1);
double head_forward_flops(const model::ModelShape& m, int64_t tokens, int tp = 1);

int dtype_bytes(const std::string& dtype);  // bf16/fp16: 2, fp32: 4; SpecError on others
// The bytes per element FSDP2 reduces gradients in: training.reduce_dtype, else dtype's.
int fsdp_reduce_bytes(const TrainingSpec& t);

// FSDP2 memory traffic per parameter of a unit sharded over n ranks (param_bytes: fp32 4 or bf16
// 2; compute dtype 2), as the one-rank profile shows it (ANALYSIS.md section 4):
//   all-gather: copy-in (read the shard, write its 16-bit copy: one cast kernel per tensor), then
//   NCCL in place (FSDP2 gathers into the output buffer; with one rank NCCL copies nothing), then
//   copy-out of the gathered tensor into the parameters (read + write 2 B each).
//   reduce-scatter: copy-in of the 16-bit gradients (2+2, chunk_cat), NCCL out of place (one
//   rank: a device copy, 2+2); then (not counted here) the reduced shard's cast to the parameter
//   dtype, 2 + param_bytes per shard element (a 16-bit -> fp32 cast for fp32 parameters).
//   reduce_bytes: the dtype the gradients are reduced in (training.reduce_dtype, FSDP2's
//   reduce_dtype; 2 by default): the copy-in casts the 16-bit gradients into it (2 + reduce_bytes),
//   NCCL's local copy moves it (2 x reduce_bytes), the cast after reads it.
double fsdp_all_gather_bytes(int64_t params, int n, int param_bytes);
double fsdp_reduce_scatter_bytes(int64_t params, int n, int reduce_bytes);
// The same, in the parts fsdp_step.cpp issues around each collective:
//   all-gather:     copy-in before it, copy-out after it;
//   reduce-scatter: copy-in (+ NCCL's local copy at n == 1) before it; the cast of the reduced
//                   shard (shard_params = params / n) after all of a micro-batch's reductions,
//                   which also reads the existing gradient when accumulating (+param_bytes).
double fsdp_all_gather_copy_in_bytes(int64_t params, int n, int param_bytes);
double fsdp_all_gather_copy_out_bytes(int64_t params);
double fsdp_reduce_scatter_copy_in_bytes(int64_t params, int n, int reduce_bytes);
double fsdp_grad_cast_bytes(double shard_params, int param_bytes, bool accumulate, int reduce_bytes);

// The closed form the simulator reproduces for one GPU without communication (a plain step:
// forward, backward and AdamW; `fsdp`: FSDP2 on one rank with its copies and casts), by term:
// GEMMs, attention, memory-bound kernels (norms, residuals, SwiGLU, qkv copies, loss), FSDP2's
// copies and casts, the optimizer.
struct SingleGpuTerms {
  double gemm = 0, attention = 0, memory = 0, fsdp_copies = 0, optimizer = 0;
  double total() const { return gemm + attention + memory + fsdp_copies + optimizer; }
};
SingleGpuTerms single_gpu_breakdown(const model::ModelShape& m, int micro_batch, bool grad_checkpointing, bool fsdp,
                                    int param_bytes, const OptimizerPlan& plan, const ComputeRates& r);

}  // namespace models::workload
