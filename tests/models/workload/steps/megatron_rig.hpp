#pragma once
// The Megatron step tests' rig: a small GPT (1,024 wide, 8-row head) at flat compute rates, so that
// every stage computes the same and the closed forms stay simple.
#include "models/model/model_shape.hpp"
#include "models/workload/steps/megatron.hpp"

namespace megatron_test {

// The compute model's laws made flat, so the tests' closed forms stay simple: GEMMs and attention at
// peak x efficiency with no fixed cost, every memory-bound kernel, the loss (16 B per logit) and
// AdamW at HBM x efficiency, no launch gaps; host rates as given.
inline models::workload::ComputeRates layer_rates(double peak_flops, double efficiency, double hbm_bytes_per_s,
                                                  double hbm_efficiency, double host_bytes_per_s,
                                                  double host_efficiency) {
  models::workload::ComputeRates r;
  const double flops = peak_flops * efficiency, bytes = hbm_bytes_per_s * hbm_efficiency;
  r.gpu.gemm = {0, flops, 1e30};
  r.gpu.attention = {0, flops, 0, flops};
  r.gpu.memory.fixed_s = 0;
  r.gpu.memory.bytes_per_s.fill(bytes);
  r.gpu.memory.loss_s_per_logit = 16 / bytes;
  for (auto& impl : r.gpu.adamw.bytes_per_s) impl.fill(bytes);
  r.gpu.launch_gap_s = 0;
  r.host_bytes_per_s = host_bytes_per_s;
  r.host_efficiency = host_efficiency;
  return r;
}

inline models::workload::MegatronConfig config_megatron(int layers, int tp, int pp, int vp, int m) {
  models::workload::MegatronConfig c;
  models::ModelSpec ms;
  ms.layers = layers, ms.hidden = 1024, ms.heads = 8, ms.ffn = 4096, ms.vocab = 8, ms.seq = 512, ms.mlp = "gelu";
  ms.tied_embeddings = true;  // GPT, as Megatron-LM builds it
  c.model = ::models::model::resolve_model(ms);
  c.training.micro_batch = 1;
  c.training.dtype = "bf16";
  c.layout.strategy = models::workload::Strategy::Megatron;
  c.layout.tp = tp;
  c.layout.pp = pp;
  c.layout.vp = vp;
  c.layout.pipeline_micro_batches = m;
  c.layout.grad_accum = m;
  c.layout.vocab_multiple = 1;  // the 8-row head stays negligible: the stages are equal, as the closed forms assume
  c.rates = layer_rates(1e15, 0.5, 1e20, 1.0, 1e11, 1.0);
  return c;
}

}  // namespace megatron_test
