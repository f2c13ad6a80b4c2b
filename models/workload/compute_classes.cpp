#include "models/workload/compute_classes.hpp"

namespace models::workload {

namespace {

// The classes at `r`, launch gaps included in each (rank_compute_seconds' terms, split).
ComputeClasses compute_classes_at(const ScenarioSpec& spec, const model::ModelShape& m, const ParallelLayout& layout,
                                  const ComputeRates& r) {
  const RankStepWork w = rank_step_work(spec, m, layout, r);
  ComputeClasses c;
  c.gemm = w.sum([](const WorkSeconds& k) { return k.gemm; });
  c.attention = w.sum([](const WorkSeconds& k) { return k.attention; });
  c.elementwise = w.sum([](const WorkSeconds& k) { return k.memory; });
  double params = w.params;
  // One stage holds the embedding too, and its optimizer updates it (megatron.cpp's step program;
  // rank_compute_seconds, which only sets the power stretch, leaves it out).
  // The word embeddings split over TP under vocab_parallel; a learned position table is whole on every rank.
  if (layout.strategy == Strategy::Megatron && layout.pp == 1)
    params += double(m.vocab) * m.hidden / (layout.vocab_parallel ? layout.tp : 1) + double(m.position_params());
  c.optimizer = optimizer_seconds(params, optimizer_plan(spec.training, layout.strategy), r);
  c.elementwise += fsdp_copy_seconds(spec, m, layout, r, w.micro, params);
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
