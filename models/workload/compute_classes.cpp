#include "models/workload/compute_classes.hpp"

#include <algorithm>

#include "models/workload/pipeline_split.hpp"

namespace models::workload {

namespace {

// The classes at `r`, launch gaps included in each (rank_compute_seconds' terms, split).
ComputeClasses compute_classes_at(const ScenarioSpec& spec, const model::ModelShape& m, const ParallelLayout& layout,
                          const ComputeRates& r) {
  const TrainingSpec& t = spec.training;
  const bool megatron = layout.strategy == Strategy::Megatron;
  const int64_t tokens = int64_t(t.micro_batch) * m.seq;
  const BlockSeconds b = block_seconds(m, tokens, megatron ? layout.tp : 1, r);
  const HeadSeconds h = head_seconds(m, tokens, 1, r);
  const double layers = megatron ? double(pipeline_split(layout, m.layers).max_stage_layers()) : double(m.layers);
  const double micro = megatron ? layout.pipeline_micro_batches : std::max(1, t.grad_accum);
  const double recompute = t.grad_checkpointing ? 1 : 0;
  auto all = [&](auto part) {
    const double fwd = part(b.attn_fwd) + part(b.mlp_fwd);
    return micro * (layers * (fwd * (1 + recompute) + part(b.attn_bwd) + part(b.mlp_bwd)) + part(h.fwd) + part(h.bwd));
  };
  ComputeClasses c;
  c.gemm = all([](const WorkSeconds& w) { return w.gemm; });
  c.attention = all([](const WorkSeconds& w) { return w.attention; });
  c.elementwise = all([](const WorkSeconds& w) { return w.memory; });
  const int64_t total = m.total_params();
  double params = double(total);
  if (megatron) {
    params = layers * double((m.block_matmul_params() - m.block_replicated_params()) / layout.tp +
                             m.block_replicated_params() + m.block_norm_params() + m.block_bias_params() / layout.tp) +
             double(m.head_params() + m.final_norm_params());
    // One stage holds the embedding too, and its optimizer updates it (megatron.cpp's step program;
    // rank_compute_seconds, which only sets the power stretch, leaves it out).
    if (layout.pp == 1) params += double(m.embedding_params()) / (layout.vocab_parallel ? layout.tp : 1);
  } else
    params = double(total) / layout.state_shards();
  c.optimizer = optimizer_seconds(params, optimizer_plan(t, layout.strategy), r);
  if (layout.strategy == Strategy::Fsdp || layout.strategy == Strategy::Hsdp) {
    const int n = layout.state_shards();
    const int pb = t.param_dtype.empty() ? dtype_bytes(t.dtype) : dtype_bytes(t.param_dtype);
    const int64_t blocks = int64_t(m.layers) * m.block_params();
    const double copies = fsdp_all_gather_bytes(total, n, pb) + fsdp_all_gather_bytes(blocks, n, pb) +
                          fsdp_reduce_scatter_bytes(total, n);
    c.elementwise += micro * memory_seconds(r, compute::MemKernel::Elementwise, copies) +
                     memory_seconds(r, compute::MemKernel::CastUp, params * (2 + pb));
  }
  return c;
}

}  // namespace

ComputeClasses rank_compute_classes(const ScenarioSpec& spec, const model::ModelShape& m, const ParallelLayout& layout,
                                    const ComputeRates& rates) {
  ComputeRates bare = rates;
  bare.gpu.launch_gap_s = 0;
  ComputeClasses k = compute_classes_at(spec, m, layout, bare);
  const ComputeClasses with = compute_classes_at(spec, m, layout, rates);
  k.gaps = with.total() - k.kernels();
  return k;
}

}  // namespace models::workload
