// Compute model of a decoder's training step, term by term (equations and sources in compute.hpp;
// the laws and their measurements in models/compute/).
#include "models/workload/compute.hpp"

#include <algorithm>
#include <cmath>
#include <string_view>

#include "models/error.hpp"
#include "models/params.hpp"

namespace models::workload {

using compute::MemKernel;

namespace {

// Kernel launches per op (the calibration decoder's eager PyTorch kernels, ANALYSIS.md section 4).
constexpr int kNormFwdKernels = 1, kNormBwdKernels = 2, kSwigluFwdKernels = 2, kSwigluBwdKernels = 3;
constexpr int kQkvCopyKernels = 2;  // stack of dq, dk, dv; copy back to the projection's layout
constexpr int kAttentionFwdKernels = 1, kAttentionBwdKernels = 3;  // cuDNN: fprop; bprop, dO.O, dQ cast
constexpr int kLossKernels = 8;
// Megatron-Core's cross_entropy.py: its forward 15 (the cast, max, shift, exp, sum, division and log,
// and the target's masks, gathers and copies; its three all-reduces apart), its backward 5.
constexpr int kMegatronLossKernels = 20;
// Unfused attention (Megatron-LM <= 2022): QK^T, scale-mask-softmax, dropout, PV forward (the two
// batched GEMMs counted with the GEMMs' gaps); their backward's dropout, softmax and the dV, dP, dQ,
// dK products (4 GEMMs).
constexpr int kUnfusedFwdKernels = 2,
              kUnfusedBwdKernels = 2;  // cast up, log-softmax, NLL, fill; their backward, cast down
// multi_tensor_apply (ATen/native/cuda/MultiTensorApply.cuh): one launch per 320 blocks of 65536
// elements (kChunkSize, depth_to_max_blocks), 2.1e7 parameters; foreach and for_loop run 8 ops.
constexpr double kMultiTensorLaunchParams = 320.0 * 65536;
constexpr int kAdamwOps = 8;
constexpr double kMasterCastBytes = 4 + 2;  // fp32 <-> 16-bit: read 4 write 2 (or read 2 write 4)
// Quantized GEMM inputs (fp8 current scaling, mxfp8, nvfp4): bytes per element and kernels per
// tensor of their casts, compute/precision.hpp quantized_cast, at the Fp8Cast rate (kernels.hpp).

WorkSeconds gemm(double s) { return {s, 0, 0}; }
// A linear layer's three GEMMs at the law's rate (x gemms), stretched under the power limit, one
// launch gap each.
compute::LinearSeconds linear(const ComputeRates& r, int64_t tokens, int64_t in, int64_t out, int gemms = 1,
                              bool sixteen_bit = false) {
  const bool keep16 = sixteen_bit && compute::quantized(r.gpu.precision);
  const compute::LinearSeconds l =
      compute::linear_seconds(keep16 ? r.gpu.gemm16 : r.gpu.gemm, tokens, in, out,
                              keep16 ? compute::gemm_alignment_elements(compute::Precision::Bf16)
                                     : compute::gemm_alignment_elements(r.gpu.precision));
  const double s = l.full_power ? r.gemm_stretch : 1.0, gap = r.gpu.launch_gap_s;
  return {gemms * (l.fwd * s + gap), gemms * (l.dgrad * s + gap), gemms * (l.wgrad * s + gap), l.full_power};
}
WorkSeconds attention(double s) { return {0, s, 0}; }
WorkSeconds memory(double s) { return {0, 0, s}; }

}  // namespace

compute::Precision training_precision(const TrainingSpec& t) {
  const std::string& text = t.precision.empty() ? t.dtype : t.precision;
  const auto p = compute::parse_precision(text);
  if (!p)
    throw SpecError(t.precision.empty() ? "training.dtype" : "training.precision",
                    "unknown precision '" + text + "' (expected bf16, fp16, fp8, mxfp8 or nvfp4)");
  return *p;
}

ComputeRates make_rates(const hw::GpuSpec& gpu, compute::Precision precision, double host_bytes_per_s,
                        double training_efficiency, const std::map<std::string, double>& params) {
  if (training_efficiency != 0 && !(training_efficiency > 0 && training_efficiency <= 1))
    throw SpecError("training.compute_efficiency", "must be a fraction in (0, 1]");
  // Defaults, units, ranges and sources: models/params.cpp.
  auto value = [&](std::string_view name) { return param_or(params, name, param_default(name)); };
  ComputeRates r;
  r.gpu = compute::make_gpu_rates(gpu, precision, params, training_efficiency);
  r.host_bytes_per_s = host_bytes_per_s;
  r.host_efficiency = value("host.adam_efficiency");
  r.core_bytes_per_s = value("host.core_bytes_per_s");
  r.overlap_slowdown = value("compute.overlap_slowdown");
  return r;
}

ComputeRates with_power_cap(const ComputeRates& r, double gemm_s, double other_s) {
  ComputeRates capped = r;
  capped.gemm_stretch = compute::power_capped_gemm_stretch(gemm_s, other_s, r.gpu);
  return capped;
}

RankStepWork rank_step_work(const ScenarioSpec& spec, const model::ModelShape& m, const ParallelLayout& layout,
                            const ComputeRates& rates) {
  const TrainingSpec& t = spec.training;
  const bool megatron = layout.strategy == Strategy::Megatron;
  const int64_t tokens = int64_t(t.micro_batch) * m.seq;
  RankStepWork w;
  w.block = block_seconds(m, tokens, megatron ? layout.tp : 1, rates);
  w.head = head_seconds(m, tokens, 1, rates, output_layer_rows(m, layout));
  w.layers = megatron ? double(pipeline_split(layout, m.layers).max_stage_layers()) : double(m.layers);
  w.micro = megatron ? layout.pipeline_micro_batches : layout.grad_accum;  // from global_batch when given
  w.recompute = layout.recompute == Recompute::Full ? 1 : 0;               // training.recompute or grad_checkpointing
  if (megatron)
    w.params = w.layers * double((m.block_matmul_params() - m.block_replicated_params()) / layout.tp +
                                 m.block_replicated_params() + m.block_norm_params() + m.block_bias_params() / layout.tp) +
               double(m.head_params() + m.final_norm_params());
  else
    w.params = double(m.total_params()) / layout.state_shards();
  return w;
}

double fsdp_copy_seconds(const ScenarioSpec& spec, const model::ModelShape& m, const ParallelLayout& layout,
                         const ComputeRates& rates, double micro, double params) {
  if (layout.strategy != Strategy::Fsdp && layout.strategy != Strategy::Hsdp) return 0;
  const TrainingSpec& t = spec.training;
  const int n = layout.state_shards();
  const int pb = t.param_dtype.empty() ? dtype_bytes(t.dtype) : dtype_bytes(t.param_dtype);
  const int rb = fsdp_reduce_bytes(t);
  const int64_t total = m.total_params(), blocks = int64_t(m.layers) * m.block_params();
  const double copies = fsdp_all_gather_bytes(total, n, pb) + fsdp_all_gather_bytes(blocks, n, pb) +
                        fsdp_reduce_scatter_bytes(total, n, rb);
  return micro * memory_seconds(rates, compute::MemKernel::Elementwise, copies) +
         memory_seconds(rates, compute::MemKernel::CastUp, params * (rb + pb));
}

// The busiest rank's step, unstretched (compute.hpp).
RankComputeSeconds rank_compute_seconds(const ScenarioSpec& spec, const model::ModelShape& m, const ParallelLayout& layout,
                                        const ComputeRates& rates) {
  const RankStepWork w = rank_step_work(spec, m, layout, rates);
  double gemm = w.sum([](const WorkSeconds& k) { return k.gemm; });
  double other = w.sum([](const WorkSeconds& k) { return k.attention + k.memory; });
  // The head's align1 GEMMs (an odd vocabulary, compute/gemm.hpp) draw like the rest, not like GEMMs.
  if (!w.head.logits.full_power) {
    const double t = w.micro * (w.head.logits.fwd + w.head.logits.bwd());
    gemm -= t;
    other += t;
  }
  other += optimizer_seconds(w.params, optimizer_plan(spec.training, layout.strategy), rates);
  other += fsdp_copy_seconds(spec, m, layout, rates, w.micro, w.params);
  return {gemm, other};
}

ComputeRates power_capped_rates(const ScenarioSpec& spec, const model::ModelShape& m, const ParallelLayout& layout,
                                const ComputeRates& rates) {
  if (offloads_to_host(spec, layout)) return rates;
  const RankComputeSeconds s = rank_compute_seconds(spec, m, layout, rates);
  return with_power_cap(rates, s.gemm, s.other);
}

ComputeRates step_rates(const ScenarioSpec& spec, const hw::GpuSpec& gpu, double host_bytes_per_s,
                        const model::ModelShape& m, const ParallelLayout& layout, bool power_cap) {
  ComputeRates r = make_rates(gpu, training_precision(spec.training), host_bytes_per_s,
                              spec.training.compute_efficiency, spec.cluster.params);
  r.code = attention_code(spec.training, layout.strategy);
  return power_cap ? power_capped_rates(spec, m, layout, r) : r;
}

double memory_seconds(const ComputeRates& r, MemKernel kind, double bytes, int launches) {
  return compute::memory_seconds(r.gpu.memory, kind, bytes, launches) + launches * r.gpu.launch_gap_s;
}

MoeKernels moe_kernels(const model::ModelShape& m, int64_t tokens, int tp, int ep, int etp, const ComputeRates& r) {
  const compute::GemmLaw& g = r.gpu.gemm;
  const double gap = r.gpu.launch_gap_s, e = compute::activation_bytes(r.gpu.precision);
  const int64_t h = m.hidden, f = m.moe.moe_ffn / etp, router_tokens = tokens / tp;
  const int64_t expert_tokens = tokens * etp / tp;  // the ETP group's router tokens, etp Tn
  auto stretch = [&](compute::LinearSeconds l, double n, int launches) {
    const double s = r.gemm_stretch;
    return compute::LinearSeconds{n * l.fwd * s + launches * gap, n * l.dgrad * s + launches * gap,
                                  n * l.wgrad * s + launches * gap};
  };
  MoeKernels k;
  k.gemms = model::expert_gemms(m.moe, expert_tokens, m.hidden, ep, etp);
  const double local = k.gemms.local_experts;
  k.router = stretch(compute::linear_seconds(g, router_tokens, h, m.moe.experts), 1, 1);
  const int experts = k.gemms.local_experts;
  k.experts_up = stretch(compute::grouped_linear_seconds(g, r.gpu.grouped, experts, k.gemms.gate_up.m, h, 2 * f), 1, 1);
  k.experts_down = stretch(compute::grouped_linear_seconds(g, r.gpu.grouped, experts, k.gemms.down.m, f, h), 1, 1);
  const double routed = model::routed_copies(m.moe) * double(router_tokens) * m.moe.top_k * double(h);
  k.permute = memory_seconds(r, MemKernel::Elementwise, 2 * e * routed, 1);
  const double act = local * double(k.gemms.gate_up.m) * double(f);
  k.act_fwd = memory_seconds(r, MemKernel::SwigluFwd, 3 * e * act, kSwigluFwdKernels);
  k.act_bwd = memory_seconds(r, MemKernel::SwigluBwd, 5 * e * act, kSwigluBwdKernels);
  if (m.moe.shared_experts > 0) {
    const int64_t fs = int64_t(m.moe.shared_experts) * m.moe.moe_ffn / tp;
    k.shared_up = stretch(compute::linear_seconds(g, tokens, h, 2 * fs), 1, 1);
    k.shared_down = stretch(compute::linear_seconds(g, tokens, fs, h), 1, 1);
    k.shared_act_fwd = memory_seconds(r, MemKernel::SwigluFwd, 3 * e * double(tokens) * fs, kSwigluFwdKernels);
    k.shared_act_bwd = memory_seconds(r, MemKernel::SwigluBwd, 5 * e * double(tokens) * fs, kSwigluBwdKernels);
  }
  return k;
}

BlockKernels block_kernels(const model::ModelShape& m, int64_t tokens, int tp, const ComputeRates& r, bool sequence_parallel,
                           bool flash_attention) {
  const compute::GemmLaw& g = r.gpu.gemm;
  const model::AttentionShape a = m.attention();
  const int64_t h = m.hidden, kv = m.kv_dim(), f = m.ffn, qkv = a.q_dim() + a.k_dim() + a.v_dim();
  const double T = double(tokens), e = compute::activation_bytes(r.gpu.precision);
  const double gap = r.gpu.launch_gap_s;
  auto lin = [&](int64_t in, int64_t out, int gemms = 1) { return linear(r, tokens, in, out, gemms); };
  auto mem = [&](MemKernel k, double bytes, int launches) { return memory_seconds(r, k, bytes, launches); };
  // Norms and residual adds: every TP rank holds the whole T x h activation, unless sequence
  // parallelism splits it over the group.
  const double act = (sequence_parallel ? T / tp : T) * double(h);
  const double ffn = T * double(f) / tp;
  BlockKernels k;
  if (a.is_mla()) {  // q_a, q_b (or q), kv_a, kv_b: the down projections whole, the up ones by heads
    for (const model::AttentionLinear& l : a.linears()) {
      if (l.name == std::string_view("o")) continue;
      const compute::LinearSeconds one = lin(l.in, l.split ? l.out / tp : l.out);
      k.qkv.fwd += one.fwd, k.qkv.dgrad += one.dgrad, k.qkv.wgrad += one.wgrad;
    }
  } else {
    k.qkv = lin(h, (a.q_dim() + 2 * kv) / tp);  // one fused projection (q_dim = h unless head_dim is given)
  }
  k.o = lin(a.o_in() / tp, h);
  k.up = lin(h, f / tp, m.gated_mlp ? 2 : 1);
  k.down = lin(f / tp, h);
  const double flops = compute::attention_fwd_flops(tokens, m.seq, a.core_width(), tp);
  if (flash_attention) {
    // Flash attention skips the key blocks a windowed layer's queries do not see: the core's FLOPs
    // follow the mean keys per query over the layers (LocalAttention; seq / 2 without windows).
    const double seen = flops * (2 * m.local.mean_keys(m.seq) / double(m.seq));
    k.attn_fwd = compute::attention_fwd_seconds(r.gpu.attention, seen) + kAttentionFwdKernels * gap;
    k.attn_bwd = compute::attention_bwd_seconds(r.gpu.attention, seen) + kAttentionBwdKernels * gap;
  } else {  // eager attention computes every score, then masks
    const double scores = T * (double(m.heads) / tp) * double(m.seq);
    const double gemm_rate = g.flops_per_s / r.gemm_stretch;
    k.attn_fwd =
        2 * flops / gemm_rate + 2 * gap + mem(MemKernel::Elementwise, scores * (6 * e + 1), kUnfusedFwdKernels);
    k.attn_bwd =
        4 * flops / gemm_rate + 4 * gap + mem(MemKernel::Elementwise, scores * (9 * e + 1), kUnfusedBwdKernels);
  }
  k.norm_fwd = mem(MemKernel::NormFwd, 2 * e * act, kNormFwdKernels);
  k.norm_bwd = mem(MemKernel::NormBwd, 3 * e * act, kNormBwdKernels);
  k.add = mem(MemKernel::Elementwise, 3 * e * act, 1);
  if (m.gated_mlp) {
    k.act_fwd = mem(MemKernel::SwigluFwd, 3 * e * ffn, kSwigluFwdKernels);
    k.act_bwd = mem(MemKernel::SwigluBwd, 5 * e * ffn, kSwigluBwdKernels);
  } else {
    k.act_fwd = mem(MemKernel::Elementwise, 2 * e * ffn, 1);
    k.act_bwd = mem(MemKernel::Elementwise, 4 * e * ffn, 1);
  }
  k.qkv_copies_bwd = mem(MemKernel::StridedCopy, 4 * e * T * double(qkv) / tp, kQkvCopyKernels);
  const RopeSeconds rope = rope_seconds(m, tokens, tp, r);
  k.rope_fwd = rope.rope_fwd, k.rope_bwd = rope.rope_bwd;
  k.kv_copy_fwd = rope.kv_copy_fwd, k.kv_copy_bwd = rope.kv_copy_bwd;
  if (a.is_mla()) {  // two RMSNorms over the latents (replicated over TP)
    const double latent = T * double(a.latent_norm_elements());
    k.latent_norm_fwd = mem(MemKernel::NormFwd, 2 * e * latent, 2 * kNormFwdKernels);
    k.latent_norm_bwd = mem(MemKernel::NormBwd, 3 * e * latent, 2 * kNormBwdKernels);
  }
  if (m.biases) {  // bias gradients: one reduction of each linear layer's output gradient
    k.bias_attn_bwd = mem(MemKernel::Elementwise, e * T * (double(qkv) / tp + double(h)), 2);
    k.bias_mlp_bwd =
        mem(MemKernel::Elementwise, e * T * (double(f) * (m.gated_mlp ? 2 : 1) / tp + double(h)), m.gated_mlp ? 3 : 2);
  }
  if (compute::quantized(r.gpu.precision)) {
    // The format's cast bytes per element at the Fp8Cast rate, plus its launches per tensor (fp8:
    // 6 B, amax, scale and cast + transpose; mxfp8, nvfp4: precision.hpp).
    const compute::QuantizedCast qc = compute::quantized_cast(r.gpu.precision);
    auto cast = [&](double elements, int tensors) {
      return mem(MemKernel::Fp8Cast, qc.bytes_per_element * elements, 0) + qc.kernels_per_tensor * tensors * gap;
    };
    const double up = double(f) * (m.gated_mlp ? 2 : 1) / tp;  // gate and up: one weight, one input
    k.fp8_attn_fwd = cast(T * double(h) + T * double(h) / tp, 2);
    k.fp8_mlp_fwd = cast(T * double(h) + T * double(f) / tp, 2);
    k.fp8_attn_bwd = cast(T * double(qkv) / tp + T * double(h), 2);
    k.fp8_mlp_bwd = cast(T * up + T * double(h), 2);
    k.fp8_attn_weights = cast(double(h) * double(a.q_dim() + 2 * kv) / tp + double(a.o_in()) * double(h) / tp, 2);
    k.fp8_mlp_weights = cast(double(h) * up + double(f) / tp * double(h), 2);
  }
  return k;
}

BlockSeconds block_seconds(const model::ModelShape& m, int64_t tokens, int tp, const ComputeRates& r,
                           bool sequence_parallel, bool weight_casts) {
  const BlockKernels k = block_kernels(m, tokens, tp, r, sequence_parallel);
  const double weights = weight_casts ? 1 : 0;
  BlockSeconds b;
  b.attn_fwd += memory(k.norm_fwd);
  b.attn_fwd += memory(k.fp8_attn_fwd + weights * k.fp8_attn_weights);  // 0 unless fp8
  b.attn_fwd += memory(k.latent_norm_fwd);                              // 0 unless MLA
  b.mlp_fwd += memory(k.fp8_mlp_fwd + weights * k.fp8_mlp_weights);
  b.attn_bwd += memory(k.fp8_attn_bwd);
  b.mlp_bwd += memory(k.fp8_mlp_bwd);
  b.attn_fwd += gemm(k.qkv.fwd + k.o.fwd);
  b.attn_fwd += memory(k.rope_fwd + k.kv_copy_fwd);
  b.attn_fwd += attention(k.attn_fwd);
  b.attn_fwd += memory(k.add);
  b.mlp_fwd += memory(k.norm_fwd);
  b.mlp_fwd += gemm(k.up.fwd + k.down.fwd);
  b.mlp_fwd += memory(k.act_fwd + k.add);
  b.fwd_unsaved_tail = gemm(k.down.fwd).total() + memory(k.add).total();
  {
    const model::AttentionShape a = m.attention();
    const double k_share = double(a.k_dim()) / double(a.q_dim() + a.k_dim() + a.v_dim());
    b.fwd_op_rerun = memory(2 * k.norm_fwd + k.rope_fwd + k.kv_copy_fwd + k.add + k.act_fwd).total() +
                     gemm(k_share * k.qkv.fwd + k.o.fwd + (m.gated_mlp ? k.up.fwd / 2 : 0)).total();
  }
  // Backward: down, SwiGLU, gate and up (their two input gradients summed), norm 2, the residual's
  // gradient sum; o, attention, the rotary embedding and key/value copies, the q/k/v gradient's
  // copies, qkv, norm 1, the residual's sum.
  b.mlp_bwd += gemm(k.down.bwd() + k.up.bwd());
  b.mlp_bwd += memory(k.act_bwd + 2 * k.add + k.norm_bwd);
  b.mlp_bwd += memory(k.bias_mlp_bwd);  // 0 without biases
  b.attn_bwd += gemm(k.o.bwd() + k.qkv.bwd());
  b.attn_bwd += attention(k.attn_bwd);
  b.attn_bwd += memory(k.rope_bwd + k.kv_copy_bwd + k.qkv_copies_bwd + k.add + k.norm_bwd);
  b.attn_bwd += memory(k.latent_norm_bwd + k.bias_attn_bwd);  // 0 unless MLA / biases
  return b;
}

HeadKernels head_kernels(const model::ModelShape& m, int64_t tokens, int64_t norm_tokens, int vocab_split,
                         const ComputeRates& r, int64_t vocab, bool megatron_loss) {
  if (vocab == 0) vocab = m.vocab;
  const double gap = r.gpu.launch_gap_s, e = compute::activation_bytes(r.gpu.precision);
  const double act = double(norm_tokens) * double(m.hidden);
  const double per_logit = r.gpu.memory.loss_s_per_logit *
                           (megatron_loss ? compute::kMegatronLossBytesPerLogit / compute::kLossBytesPerLogit : 1.0);
  const double loss = per_logit * double(tokens) * double(vocab) / vocab_split +
                      (megatron_loss ? kMegatronLossKernels : kLossKernels) * gap;
  HeadKernels k;
  k.norm_fwd = memory_seconds(r, MemKernel::NormFwd, 2 * e * act, kNormFwdKernels);
  k.norm_bwd = memory_seconds(r, MemKernel::NormBwd, 3 * e * act, kNormBwdKernels);
  // The output layer stays 16-bit under fp8 (Megatron-LM's and Transformer Engine's recipes).
  k.logits = linear(r, tokens, m.hidden, vocab / vocab_split, 1, /*sixteen_bit=*/true);
  k.loss_fwd = loss / 2;
  k.loss_bwd = loss / 2;
  return k;
}

HeadSeconds head_seconds(const model::ModelShape& m, int64_t tokens, int vocab_split, const ComputeRates& r,
                         int64_t vocab) {
  const HeadKernels k = head_kernels(m, tokens, tokens, vocab_split, r, vocab);
  HeadSeconds s;
  s.fwd += memory(k.norm_fwd + k.loss_fwd);
  s.fwd += gemm(k.logits.fwd);
  s.bwd += memory(k.loss_bwd + k.norm_bwd);
  s.bwd += gemm(k.logits.bwd());
  s.logits = k.logits;
  return s;
}

int64_t output_layer_rows(const model::ModelShape& m, const ParallelLayout& l) {
  return l.strategy == Strategy::Megatron ? megatron_padded_vocab(m.vocab, l.tp, l.vocab_multiple) : m.vocab;
}

int64_t megatron_padded_vocab(int64_t vocab, int tp, int multiple) {
  const int64_t step = int64_t(std::max(1, multiple)) * std::max(1, tp);
  return (vocab + step - 1) / step * step;
}

OptimizerPlan optimizer_plan(const TrainingSpec& t, Strategy s) {
  OptimizerPlan p;
  const bool pytorch = s == Strategy::Fsdp || s == Strategy::Hsdp || s == Strategy::Ddp;
  p.impl = pytorch ? compute::OptimizerImpl::Foreach : compute::OptimizerImpl::Fused;
  if (!t.optimizer_impl.empty()) {
    const auto impl = compute::parse_optimizer_impl(t.optimizer_impl);
    if (!impl)
      throw SpecError("training.optimizer_impl", "unknown optimizer implementation '" + t.optimizer_impl +
                                                     "' (expected foreach, fused or for_loop)");
    p.impl = *impl;
  }
  const int compute_bytes = compute::activation_bytes(training_precision(t));
  // DeepSpeed's ZeRO: the fp32 partition; its gradients are cast in the step program.
  if (s == Strategy::Zero3 || s == Strategy::Zero2 || s == Strategy::Zero1) {
    p.state_bytes = 4;
    p.cast_params_down = compute_bytes < 4;
  } else if (s == Strategy::Megatron && t.param_dtype.empty()) {  // fp32 master weights
    p.state_bytes = 4;
    p.cast_grads_up = p.cast_params_down = compute_bytes < 4;
  } else {
    p.state_bytes = t.param_dtype.empty() ? compute_bytes : dtype_bytes(t.param_dtype);
  }
  return p;
}

double optimizer_seconds(double params, const OptimizerPlan& plan, const ComputeRates& r) {
  const double launches =
      std::ceil(params / kMultiTensorLaunchParams) * (plan.impl == compute::OptimizerImpl::Fused ? 1 : kAdamwOps);
  double s = compute::adamw_seconds(r.gpu.adamw, plan.impl, params, plan.state_bytes) + launches * r.gpu.launch_gap_s;
  if (plan.cast_grads_up) s += memory_seconds(r, MemKernel::CastUp, params * kMasterCastBytes);
  if (plan.cast_params_down) s += memory_seconds(r, MemKernel::Elementwise, params * kMasterCastBytes);
  return s;
}

double block_forward_flops(const model::ModelShape& m, int64_t tokens, int tp) {
  const double matmul = 2.0 * double(tokens) * double(m.block_matmul_params());
  const double attention = 2.0 * double(tokens) * double(m.seq) * double(m.attention().core_width());
  return (matmul + attention) / tp;
}

double head_forward_flops(const model::ModelShape& m, int64_t tokens, int tp) {
  return 2.0 * double(tokens) * double(m.vocab) * double(m.hidden) / tp;
}

int dtype_bytes(const std::string& dtype) {
  if (dtype == "bf16" || dtype == "fp16") return 2;
  if (dtype == "fp32") return 4;
  throw SpecError("training.dtype", "unknown dtype '" + dtype + "' (expected bf16, fp16 or fp32)");
}

int fsdp_reduce_bytes(const TrainingSpec& t) { return dtype_bytes(t.reduce_dtype.empty() ? t.dtype : t.reduce_dtype); }

double fsdp_all_gather_copy_in_bytes(int64_t params, int n, int param_bytes) {
  // In place: FSDP2 gathers into the output buffer, so with one rank NCCL copies nothing.
  return double(params) / n * (param_bytes + 2);
}

double fsdp_all_gather_copy_out_bytes(int64_t params) { return double(params) * 4; }

double fsdp_reduce_scatter_copy_in_bytes(int64_t params, int n, int reduce_bytes) {
  const double p = double(params);
  const double local = n == 1 ? p * 2 * reduce_bytes : 0;  // NCCL with one rank, out of place: a device copy
  return p * (2 + reduce_bytes) + local;                   // copy-in (chunk_cat), NCCL's copy
}

double fsdp_grad_cast_bytes(double shard_params, int param_bytes, bool accumulate, int reduce_bytes) {
  return shard_params * (reduce_bytes + param_bytes + (accumulate ? param_bytes : 0));
}

double fsdp_all_gather_bytes(int64_t params, int n, int param_bytes) {
  return fsdp_all_gather_copy_in_bytes(params, n, param_bytes) + fsdp_all_gather_copy_out_bytes(params);
}

double fsdp_reduce_scatter_bytes(int64_t params, int n, int reduce_bytes) {
  return fsdp_reduce_scatter_copy_in_bytes(params, n, reduce_bytes);
}

SingleGpuTerms single_gpu_breakdown(const model::ModelShape& m, int micro_batch, bool grad_checkpointing, bool fsdp,
                                    int param_bytes, const OptimizerPlan& plan, const ComputeRates& r) {
  const int64_t tokens = int64_t(micro_batch) * m.seq;
  const BlockSeconds b = block_seconds(m, tokens, 1, r);
  const HeadSeconds hd = head_seconds(m, tokens, 1, r);
  WorkSeconds w;
  for (const WorkSeconds* part : {&b.attn_fwd, &b.mlp_fwd, &b.attn_bwd, &b.mlp_bwd}) w += *part;
  if (grad_checkpointing) w += b.attn_fwd, w += b.mlp_fwd;
  SingleGpuTerms s;
  s.gemm = m.layers * w.gemm + hd.fwd.gemm + hd.bwd.gemm;
  s.attention = m.layers * w.attention;
  s.memory = m.layers * w.memory + hd.fwd.memory + hd.bwd.memory;
  s.optimizer = optimizer_seconds(double(m.total_params()), plan, r);
  if (fsdp) {
    // As the step program issues them: the root group (embedding, final norm and head) and L
    // blocks; every group gathered in forward, the blocks again in backward (FSDP2 does not
    // reshard the root after forward): each gather a copy-in and a copy-out kernel; each group's
    // reduce-scatter a copy-in; the reduced shard cast to the parameter dtype once.
    const int64_t p = m.total_params();
    const int64_t blocks = int64_t(m.layers) * m.block_params();
    const int gathers = 2 * m.layers + 1, units = m.layers + 1;
    const double copies = fsdp_all_gather_bytes(p, 1, param_bytes) + fsdp_all_gather_bytes(blocks, 1, param_bytes) +
                          fsdp_reduce_scatter_bytes(p, 1, 2);
    s.fsdp_copies =
        memory_seconds(r, MemKernel::Elementwise, copies, 2 * gathers + units) +
        memory_seconds(r, param_bytes == 4 ? MemKernel::CastUp : MemKernel::Elementwise, double(p) * (2 + param_bytes));
  }
  return s;
}

}  // namespace models::workload
