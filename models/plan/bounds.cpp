// The planner's lower bounds (bounds.hpp).
#include "models/plan/bounds.hpp"

#include <algorithm>

#include "models/compute/gemm.hpp"
#include "models/hw/instance.hpp"
#include "models/memory/memory_fill.hpp"
#include "models/plan/comm_bound.hpp"
#include "models/plan/dp_comm_bound.hpp"
#include "models/workload/compute.hpp"
#include "models/workload/layout.hpp"
#include "models/workload/pipeline_split.hpp"

namespace models::plan {

double memory_lower_bound(const ScenarioSpec& spec, const model::ModelShape& model, int gpus_per_node) {
  const int world = spec.cluster.nodes * gpus_per_node;
  const workload::ParallelLayout layout = workload::make_layout(spec, model, world, gpus_per_node);
  ScenarioSpec s = spec;
  s.training.grad_accum = layout.grad_accum;  // as plan_step's copy carries it (strategy.cpp)
  memory::MemoryInputs in = step_memory_inputs(s, model, layout);
  in.nccl_bytes = 0;
  const int stages = layout.strategy == workload::Strategy::Megatron ? layout.pp : 1;
  double peak = 0;
  for (int stage = 0; stage < stages; ++stage) {
    in.stage = stage;
    peak = std::max(peak, memory::estimate_rank(in).peak_bytes());
  }
  return peak;
}

namespace {
// The smaller of the two GEMM laws a step may use (fp8 keeps some GEMMs in 16 bits: gemm16).
// Both laws carry the step's power-limit stretch s (compute.cpp linear_kernels).
compute::LinearSeconds fastest(const compute::GpuRates& g, double s, int64_t tokens, int64_t in, int64_t out) {
  const compute::LinearSeconds a = compute::linear_seconds(g.gemm, tokens, in, out);
  if (!(g.gemm16.flops_per_s > 0)) return {s * a.fwd, s * a.dgrad, s * a.wgrad};  // gemm16: fp8 steps only
  const compute::LinearSeconds b = compute::linear_seconds(g.gemm16, tokens, in, out);
  return {s * std::min(a.fwd, b.fwd), s * std::min(a.dgrad, b.dgrad), s * std::min(a.wgrad, b.wgrad)};
}
}  // namespace

namespace {
// The compute stream's bound (bounds.hpp: blocks, collectives it waits for, head, pipeline chain).
StepBound compute_stream_bound(const ScenarioSpec& spec, const model::ModelShape& m, int gpus_per_node, bool tight,
                               bool moe_comm) {
  const int world = spec.cluster.nodes * gpus_per_node;
  const workload::ParallelLayout l = workload::make_layout(spec, m, world, gpus_per_node);
  const hw::NodeSpec& node = hw::find_instance(spec.cluster.instance);
  // The rates the step's programs are priced at (workload/steps/strategy.cpp plan_step): the GPU's
  // laws with the power limit's stretch of this step's GEMMs (one stretch for every rank).
  const workload::ComputeRates rates = workload::step_rates(
      spec, node.gpu, node.host_mem_bytes_per_s > 0 ? node.host_mem_bytes_per_s : 200e9, m, l, /*power_cap=*/tight);
  const double stretch = rates.gemm_stretch;
  const bool megatron = l.strategy == workload::Strategy::Megatron;
  const int tp = megatron ? l.tp : 1, cp = megatron ? l.cp : 1;
  const int64_t tokens = int64_t(l.micro_batch) * m.seq / cp;
  const int64_t h = m.hidden, kv = m.kv_dim(), f = m.ffn;
  StepBound b;
  // One block's work by halves: attention (norm, qkv, attention, o, residual) and MLP.
  double attn_f = 0, attn_b = 0, mlp_f = 0, mlp_b = 0;
  double cast_attn = 0, cast_mlp = 0;  // Megatron's fp8 weight casts of one layer, once per step (0 else)
  double mlp_tail = 0;                 // what a non-reentrant checkpoint's recompute skips (compute.hpp)
  // At cp > 1 the block's kernels are priced on its T = mb seq / cp tokens too, attention on T
  // queries against the whole sequence (the ring's cp steps of 1/cp of it add up to the same sum).
  // An MoE model's blocks are whole only under Megatron, whose layer prices them with these laws
  // (workload/steps/megatron_layer.cpp); the data-parallel steps' MoE pricing is not bounded here.
  const bool whole =
      (tight || cp == 1) && (!m.is_moe() || (megatron && tight)) && spec.training.attention_backend != "unfused";
  if (whole) {  // every kernel as the compute model prices it (compute.hpp block_seconds)
    // Megatron's layer casts its fp8 weights once per step (the first micro-batch's forward), so
    // they are added once per layer below, not with every micro-batch and recompute.
    const workload::BlockSeconds s =
        workload::block_seconds(m, tokens, tp, rates, megatron && l.sequence_parallel, /*weight_casts=*/!megatron);
    attn_f = s.attn_fwd.total(), attn_b = s.attn_bwd.total(), mlp_f = s.mlp_fwd.total(), mlp_b = s.mlp_bwd.total();
    mlp_tail = s.fwd_unsaved_tail;
    if (megatron) {
      const workload::BlockKernels k = workload::block_kernels(m, tokens, tp, rates, l.sequence_parallel);
      cast_attn = k.fp8_attn_weights, cast_mlp = k.fp8_mlp_weights;
    }
  } else {  // the linear layers' GEMMs only
    for (const auto& g : {fastest(rates.gpu, stretch, tokens, h, (h + 2 * kv) / tp), fastest(rates.gpu, stretch, tokens, h / tp, h)}) {
      attn_f += g.fwd;
      attn_b += g.dgrad + g.wgrad;
    }
    const compute::LinearSeconds up = fastest(rates.gpu, stretch, tokens, h, f / tp);
    const compute::LinearSeconds down = fastest(rates.gpu, stretch, tokens, f / tp, h);
    const int ups = m.gated_mlp ? 2 : 1;
    mlp_f = ups * up.fwd + down.fwd;
    mlp_tail = down.fwd;
    mlp_b = ups * (up.dgrad + up.wgrad) + down.dgrad + down.wgrad;
  }
  // An MoE layer's MLP under Megatron: the compute-stream kernels of MegatronLayer::moe_forward
  // and moe_backward (router, permute and unpermute, grouped experts, SwiGLU, shared experts), as
  // moe_kernels prices them, and its blocking all-to-alls (and ETP all-gather and reduce-scatter)
  // at their lower bound (comm_bound.hpp); its norms are left out (0 under the data-parallel
  // strategies: their MoE layers' MLPs are not counted).
  double moe_f = 0, moe_b = 0;
  if (m.is_moe() && megatron && tight) {
    const workload::MoeKernels k = workload::moe_kernels(m, tokens, l.tp, l.ep, l.etp, rates);
    moe_f = k.router.fwd + 2 * k.permute + k.experts_up.fwd + k.act_fwd + k.experts_down.fwd;
    moe_b = k.router.dgrad + k.router.wgrad + 2 * k.permute + k.experts_up.dgrad + k.experts_up.wgrad + k.act_bwd +
            k.experts_down.dgrad + k.experts_down.wgrad;
    if (m.moe.shared_experts > 0) {
      moe_f += k.shared_up.fwd + k.shared_act_fwd + k.shared_down.fwd;
      moe_b += k.shared_up.dgrad + k.shared_up.wgrad + k.shared_act_bwd + k.shared_down.dgrad + k.shared_down.wgrad;
    }
    if (moe_comm) {  // the same four collectives each way (the backward's in the other order)
      b.moe_comm_fwd_s = moe_comm_bound(spec, m, l);
      moe_f += b.moe_comm_fwd_s;
      moe_b += b.moe_comm_fwd_s;
    }
  }
  b.block_fwd_s = attn_f + mlp_f;
  b.block_bwd_s = attn_b + mlp_b;
  // The tensor-parallel collectives the compute stream waits for (comm_bound.hpp), with their half.
  const TpCommBound tc = tight ? tp_comm_bound(spec, m, l) : TpCommBound{};
  attn_f += tc.attn_fwd * tc.collective_s, mlp_f += tc.mlp_fwd * tc.collective_s;
  attn_b += tc.attn_bwd * tc.collective_s, mlp_b += tc.mlp_bwd * tc.collective_s;
  b.block_comm_fwd_s = (tc.attn_fwd + tc.mlp_fwd) * tc.collective_s;
  b.block_comm_bwd_s = (tc.attn_bwd + tc.mlp_bwd) * tc.collective_s;
  // Full recompute: every block, or layers / N of them (checkpoint_every), averaged over the layers.
  const double r = l.recompute != workload::Recompute::Full ? 0
                   : m.layers > 0 ? double(m.layers / std::max(1, l.checkpoint_every)) / m.layers
                                  : 1;
  const double attn_w = attn_f * (1 + r) + attn_b;
  const double mlp_w = mlp_f * (1 + r) + mlp_b - (l.recompute_stops_early ? r * mlp_tail : 0);
  const double moe_w = moe_f * (1 + r) + moe_b;
  const double m_micro = megatron ? l.pipeline_micro_batches : l.grad_accum;
  // Blocks' work on `layers` consecutive layers of a stage starting at `first`: an MoE layer's MLP
  // is `moe` (dense and MoE layers from the model's own layer pattern).
  auto layers_work = [&](int first, int layers, double attn, double mlp, double moe) {
    double w = 0;
    for (int i = first; i < first + layers; ++i) w += attn + (m.is_moe() && m.moe_layer(i) ? moe : mlp);
    return w;
  };
  // Once per step on those layers: the weight casts (an MoE layer's experts are not cast).
  auto layers_once = [&](int first, int layers) {
    double w = 0;
    for (int i = first; i < first + layers; ++i) w += cast_attn + (m.is_moe() && m.moe_layer(i) ? 0 : cast_mlp);
    return w;
  };
  // The output layer on Megatron's last stage: every kernel as the layer prices it (the final
  // norm on T / tp tokens with sequence parallelism, logits on V / tp columns when vocab-parallel,
  // the loss), and its blocking all-gather with sequence parallelism; untight: its GEMMs alone.
  double megatron_head = 0;
  if (megatron) {
    const int split = l.vocab_parallel ? l.tp : 1;
    if (tight) {
      const int64_t norm_tokens = l.sequence_parallel ? tokens / l.tp : tokens;
      const workload::HeadKernels k = workload::head_kernels(m, tokens, norm_tokens, split, rates,
                                                             workload::output_layer_rows(m, l), l.megatron_loss);
      megatron_head = k.norm_fwd + k.logits.fwd + k.loss_fwd + k.loss_bwd + k.logits.dgrad + k.logits.wgrad +
                      k.norm_bwd + tc.head_fwd * tc.collective_s;
    } else {
      const compute::LinearSeconds head =
          fastest(rates.gpu, stretch, tokens, h, workload::output_layer_rows(m, l) / split);
      megatron_head = head.fwd + head.dgrad + head.wgrad;
    }
  }
  b.head_s = megatron_head;
  if (!megatron || l.pp == 1) {
    double w = layers_work(0, m.layers, attn_w, mlp_w, moe_w);
    if (megatron) {
      w += megatron_head;
    } else {  // final norm, head and loss as the data-parallel step prices them (decoder_units.cpp)
      const workload::HeadSeconds head = workload::head_seconds(m, tokens, 1, rates);
      w += head.fwd.total() + head.bwd.total();
    }
    b.step_s = m_micro * w + layers_once(0, m.layers);
    return b;
  }
  // Stage s starts after the forwards of chunk 0 on stages 0 .. s-1 (micro-batch 1), runs its m
  // micro-batches' work (the last stage with the output layer), and under 1F1B its last op is
  // chunk 0's backward of micro-batch m, which then goes back through chunk 0 of stages s-1 .. 0;
  // zb_h1 may end a stage with deferred weight gradients, so only the forwards count there.
  const workload::PipelineSplit split = workload::pipeline_split(l, m.layers);
  if (!tight) {  // the first version's: the lightest stage after (pp - 1) of the lightest chunk
    double w_min = -1, c_min = -1, f_min = -1;
    auto keep_min = [](double& v, double x) { v = v < 0 ? x : std::min(v, x); };
    for (int s = 0; s < l.pp; ++s) {
      double w = 0;
      for (int c = 0; c < l.vp; ++c) {
        const int first = split.chunk_first_layer(s, c), layers = split.chunk_layers(s, c);
        const double cw = layers_work(first, layers, attn_w, mlp_w, moe_w);
        w += cw;
        keep_min(c_min, cw);
        keep_min(f_min, layers_work(first, layers, attn_f, mlp_f, moe_f));
      }
      keep_min(w_min, w);
    }
    b.step_s = m_micro * w_min + (l.pp - 1) * (l.zero_bubble ? f_min : c_min);
    return b;
  }
  double before = 0;  // sum over stages s' < s of chunk 0's forward (and backward, 1F1B)
  for (int s = 0; s < l.pp; ++s) {
    double w = s == l.pp - 1 ? megatron_head : 0, once = 0;
    for (int c = 0; c < l.vp; ++c) {
      w += layers_work(split.chunk_first_layer(s, c), split.chunk_layers(s, c), attn_w, mlp_w, moe_w);
      once += layers_once(split.chunk_first_layer(s, c), split.chunk_layers(s, c));
    }
    b.step_s = std::max(b.step_s, m_micro * w + once + before);
    const int first = split.chunk_first_layer(s, 0), layers = split.chunk_layers(s, 0);
    before += l.zero_bubble ? layers_work(first, layers, attn_f, mlp_f, moe_f)
                            : layers_work(first, layers, attn_w, mlp_w, moe_w);
  }
  return b;
}
}  // namespace

StepBound step_lower_bound(const ScenarioSpec& spec, const model::ModelShape& m, int gpus_per_node, bool tight,
                           bool moe_comm, bool dp_comm) {
  StepBound b = compute_stream_bound(spec, m, gpus_per_node, tight, moe_comm);
  b.compute_stream_s = b.step_s;
  if (!tight || !dp_comm) return b;
  // The data-parallel communication's links (dp_comm_bound.hpp): its bytes do not depend on the
  // rates, so the unstretched ones build its program.
  const workload::ParallelLayout l = workload::make_layout(spec, m, spec.cluster.nodes * gpus_per_node, gpus_per_node);
  const hw::NodeSpec& node = hw::find_instance(spec.cluster.instance);
  const workload::ComputeRates rates =
      workload::make_rates(node.gpu, workload::training_precision(spec.training),
                           node.host_mem_bytes_per_s > 0 ? node.host_mem_bytes_per_s : 200e9,
                           spec.training.compute_efficiency, spec.cluster.params);
  const DpCommBound d = dp_comm_bound(spec, m, l, rates);
  b.dp_port_s = d.port_s;
  b.dp_network_s = d.network_s;
  b.step_s = std::max({b.step_s, d.port_s, d.network_s});
  return b;
}

}  // namespace models::plan
