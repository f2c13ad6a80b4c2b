#pragma once
// One rank's compute in a Megatron stage program (the compute ops of stage `stage`, power-limit
// stretch included) for the one-GPU device scripts (bench/device/compute/tp_rank_compute.py,
// stage_compute.py): plain PyTorch TP, embedding/head/loss replicated, backward all-reduce after
// the GEMMs. Shared by the H200 and H100 compute validation tests.
#include <vector>

#include "models/spec.hpp"
#include "models/workload/compute.hpp"
#include "models/workload/steps/megatron.hpp"

namespace validation {

inline double megatron_rank_compute(const models::ScenarioSpec& spec, const models::model::ModelShape& model, int tp,
                                    int pp, int stage, int micro_batches, const models::workload::ComputeRates& rates) {
  using namespace models::workload;
  ParallelLayout layout;
  layout.strategy = Strategy::Megatron;
  layout.tp = tp;
  layout.pp = pp;
  layout.pipeline_micro_batches = micro_batches;
  layout.grad_accum = micro_batches;
  layout.micro_batch = spec.training.micro_batch;
  layout.recompute = spec.training.grad_checkpointing ? Recompute::Full : Recompute::None;
  layout.vocab_parallel = false;  // the scripts replicate the embedding, head and loss
  layout.async_tp_allreduce = false;
  MegatronConfig c;
  c.model = model;
  c.training = spec.training;
  c.layout = layout;
  c.rates = power_capped_rates(spec, c.model, layout, rates);
  const std::vector<Program> programs = build_megatron_programs(c);
  double s = 0;
  for (const auto& op : programs[stage].ops[0])
    if (op.kind == OpKind::Compute) s += op.duration.seconds();
  return s;
}

}  // namespace validation
