// Picks the data-parallel strategy's program (data_parallel.hpp) after checking the config.
#include "models/workload/steps/data_parallel.hpp"

#include "models/error.hpp"
#include "sim/check.hpp"

namespace models::workload {

Program build_data_parallel_program(const DataParallelConfig& c) {
  if (c.strategy == Strategy::Ddp) return build_ddp_program(c);
  SIM_CHECK(c.strategy == Strategy::Zero3 || c.strategy == Strategy::Zero2 || c.strategy == Strategy::Zero1 ||
                c.strategy == Strategy::Fsdp || c.strategy == Strategy::Hsdp,
            "not a data-parallel strategy");
  if (c.zero.offload_param != "none" && c.zero.offload_param != "cpu")
    throw SpecError("zero.offload_param", "offload_param must be none or cpu (nvme is not modelled)");
  if (c.zero.offload_optimizer != "none" && c.zero.offload_optimizer != "cpu")
    throw SpecError("zero.offload_optimizer", "offload_optimizer must be none or cpu (nvme is not modelled)");
  if (c.strategy == Strategy::Zero1 || c.strategy == Strategy::Zero2) return build_zero12_program(c);
  return c.strategy == Strategy::Zero3 ? build_zero3_program(c) : build_fsdp_program(c);
}

DataParallelConfig data_parallel_config(const ScenarioSpec& spec, const model::ModelShape& shape,
                                        const ParallelLayout& layout, const ComputeRates& rates, int node_ranks,
                                        int launcher_procs) {
  DataParallelConfig c;
  c.model = shape;
  c.training = spec.training;
  c.training.grad_accum = layout.grad_accum;  // from global_batch when given
  c.checkpoint = checkpointing(layout);
  c.zero = spec.zero;
  c.strategy = layout.strategy;
  c.dp = layout.dp;
  c.dp_shard = layout.dp_shard;
  c.node_ranks = node_ranks;
  c.launcher_procs = launcher_procs;
  c.cpu_threads = spec.training.cpu_threads;
  c.rates = rates;
  return c;
}

}  // namespace models::workload
