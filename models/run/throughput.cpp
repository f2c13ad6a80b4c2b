// Throughput and MFU of a simulated step (equations in throughput.hpp).
#include "models/run/throughput.hpp"

#include <algorithm>

namespace models {

StepFlops megatron_step_flops(const model::ModelShape& m, double samples) {
  const double s = m.seq, L = m.layers, h = m.hidden, a = m.heads, g = m.kv_heads, f = m.ffn, V = m.vocab;
  const double q_ratio = double(m.head_dim()) * a / h;  // query projection size / hidden
  const double base = 12 * samples * s * L * h * h;
  // Megatron's gated_linear_multiplier: 3/2 for SwiGLU's three MLP matrices, 1 for GELU's two.
  const double gated = m.gated_mlp ? 1.5 : 1.0;
  StepFlops out;
  out.layers = base * ((1 + g / a + s / h) * q_ratio + f / h * gated);
  out.scores = base * s / h * q_ratio;
  if (m.is_moe()) {
    // Megatron's MoE count: an MoE layer's MLP is top_k routed plus the shared experts of moe_ffn
    // (experts a token does not visit do no work), the dense layers' ffn as above; the router's
    // 2 h E per token is left out, as Megatron does.
    const double moe_n = m.moe_layers(), fe = m.moe.moe_ffn * double(m.moe.top_k + m.moe.shared_experts);
    out.layers =
        base * ((1 + g / a + s / h) * q_ratio) + 12 * samples * s * h * h * gated / h * ((L - moe_n) * f + moe_n * fe);
  }
  if (m.attention().is_mla()) {
    // Multi-head latent attention (model/attention.hpp): 6 x its matrices' parameters per token, and
    // the core's QK^T and PV at their own head dimensions, counted whole as above: 6 s a (d_qk + d_v).
    const model::AttentionShape at = m.attention();
    const double attention = 6 * samples * s * L *
                             (double(at.matmul_params()) + s * double(at.heads) * double(at.qk_head_dim() + at.v_head_dim()));
    const double dense_mlp = 12 * samples * s * h * h * gated / h * (L - m.moe_layers()) * f;
    const double moe_mlp = 12 * samples * s * h * h * gated / h * m.moe_layers() *
                           (m.moe.moe_ffn * double(m.moe.top_k + m.moe.shared_experts));
    out.layers = attention + dense_mlp + moe_mlp;
    out.scores = 6 * samples * s * L * s * double(at.heads) * double(at.qk_head_dim() + at.v_head_dim());
  }
  out.logits = base * (V / (2 * L * h));
  out.mlp_down = 6 * samples * s * h * f * (L - m.moe_layers());
  return out;
}

double windowed_step_flops(const model::ModelShape& m, double samples) {
  const StepFlops f = megatron_step_flops(m, samples);
  return f.total() - f.scores + f.scores * m.local.mean_keys(m.seq) / (m.seq / 2.0);
}

double samples_per_step(const ScenarioSpec& spec, int dp, int micro_batches) {
  return double(dp) * spec.training.micro_batch * micro_batches;
}

ThroughputResult make_throughput(const model::ModelShape& m, double samples, double step_time_s, int world_size,
                                 double peak_flops, const workload::Checkpointing& recompute) {
  ThroughputResult t;
  t.estimated = true;
  const StepFlops f = megatron_step_flops(m, samples);
  t.samples_per_step = samples;
  t.tokens_per_step = samples * m.seq;
  t.model_flops_per_step = f.total();
  using Rerun = workload::Checkpointing::Rerun;
  const bool whole = recompute.rerun == Rerun::WholeForward || recompute.rerun == Rerun::UntilLastSaved;
  const double checkpointed = m.layers > 0 ? double(m.layers / std::max(1, recompute.every)) / m.layers : 0;
  const double recomputed =
      whole ? checkpointed * (f.layers - (recompute.rerun == Rerun::UntilLastSaved ? f.mlp_down : 0)) / 3 : 0;
  const model::AttentionShape a = m.attention();
  const double per_op = recompute.rerun == Rerun::PerOp
                            ? 2 * samples * m.seq * m.layers *
                                  (double(m.hidden) * double(a.k_dim() + m.ffn) + double(a.o_in()) * m.hidden)
                            : 0;
  t.hardware_flops_per_step = f.total() + recomputed + per_op;
  t.peak_tflops_per_gpu = peak_flops / 1e12;
  if (step_time_s > 0 && world_size > 0) {
    t.samples_per_s = samples / step_time_s;
    t.tokens_per_s = t.tokens_per_step / step_time_s;
    t.model_tflops_per_gpu = t.model_flops_per_step / step_time_s / world_size / 1e12;
    t.hardware_tflops_per_gpu = t.hardware_flops_per_step / step_time_s / world_size / 1e12;
    if (peak_flops > 0) {
      t.mfu = t.model_tflops_per_gpu * 1e12 / peak_flops;
      t.hfu = t.hardware_tflops_per_gpu * 1e12 / peak_flops;
    }
  }
  return t;
}

}  // namespace models
