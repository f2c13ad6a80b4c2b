#pragma once
// Megatron-LM / Megatron-Core training steps as Programs: tensor, sequence, context, pipeline
// (1F1B, interleaved) and data parallelism with the options large runs use.
//   Rank grid (layout.hpp, Megatron-Core's order tp-cp-dp-pp): rank = t + tp (c + cp (d + dp s)).
//   One program per pipeline stage; every rank of a stage runs it with its own groups and peers.
//   Layers: stage s holds model chunks j = 0..vp-1, chunk j being virtual stage j pp + s with
//     consecutive layers, layers / (pp vp) unless the stages are unequal (pipeline_split.hpp:
//     Megatron-Core's decoder_first/last_pipeline_num_layers, account_for_embedding/loss_in_
//     pipeline_split) (megatron_layer.hpp: compute, TP/SP/CP communication, recompute). The embedding sits on virtual stage 0, the final norm, output layer and loss on
//     the last one.
//   Schedule (pipeline_schedule.hpp): Megatron-Core's plain or interleaved 1F1B, with its p2p
//     batches: activations and gradients of b (s / cp) h elements, 1/tp of it with sequence
//     parallelism (or Megatron-LM's older scatter_gather_tensors_in_pipeline, which all-gathers it
//     over tp at the receiver); the bubble is whatever the schedule leaves idle.
//   Gradients (megatron/core/distributed/distributed_data_parallel.py, param_and_grad_buffer.py):
//     reduced over the dp x cp ranks of a stage, in fp32 under bf16 (Megatron's
//     accumulate_allreduce_grads_in_fp32) and in fp16 under fp16. DDP: all-reduce; the distributed
//     optimizer: reduce-scatter, then the optimizer on 1/(dp cp) of the parameters, then an
//     all-gather of the updated bf16/fp16 parameters. overlap_grad_reduce: buckets of
//     max(40e6, 1e6 dp cp) parameters, filled in backward order during each chunk's last
//     micro-batch, each reduced on the data-parallel stream as soon as its last gradient is ready;
//     without it one reduction per chunk after the last backward. overlap_param_gather: the
//     parameter all-gathers of the (next) step run at its start, each layer's first forward
//     waiting for its bucket; without it they follow the optimizer.
//   Then (finalize_model_grads) the layer-norm gradients are all-reduced over tp under sequence
//   parallelism, and the tied word-embedding gradients between the first and last stage.
//   Optimizer: FusedAdam on fp32 main parameters (apex/TE), the compute model's AdamW law with the
//     gradients cast up and the main parameters cast down (compute.hpp optimizer_plan, measured on
//     one H200); fp16's loss-scale unscale and inf check (8 B per parameter) are not counted.
// Slots: megatron_layer.hpp (megatron_slots).
#include <vector>

#include "models/collectives/collective.hpp"
#include "models/spec.hpp"
#include "models/workload/compute.hpp"
#include "models/workload/layout.hpp"
#include "models/model/model_shape.hpp"
#include "models/workload/program.hpp"

namespace models::workload {


struct MegatronConfig {
  model::ModelShape model;
  TrainingSpec training;  // micro_batch, dtype, attention_backend
  ParallelLayout layout;  // from make_layout (strategy megatron)
  ComputeRates rates;
};

// Parameters held by one rank of pipeline stage `stage` (all its chunks; embedding and output
// layer included where they sit).
int64_t megatron_stage_params(const MegatronConfig& c, int stage);
// Megatron-Core's gradient bucket size in parameters: max(40e6, 1e6 x dp x cp).
int64_t megatron_bucket_params(const ParallelLayout& l);

// One program per pipeline stage (index = stage).
std::vector<Program> build_megatron_programs(const MegatronConfig& c);
// Groups (dp x cp, tp, embedding) and each rank's slots, for tp x cp x dp x pp ranks.
void megatron_layout(const MegatronConfig& c, std::vector<collectives::Group>& groups, std::vector<RankSetup>& ranks);

}  // namespace models::workload
