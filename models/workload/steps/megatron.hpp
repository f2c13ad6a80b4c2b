#pragma once
// Megatron-LM / Megatron-Core training steps as Programs: tensor, sequence, context, pipeline
// (1F1B, interleaved) and data parallelism with the options large runs use.
//   Rank grid (layout.hpp, Megatron-Core's order tp-cp-dp-pp): rank = t + tp (c + cp (d + dp s)).
//   One program per pipeline stage; every rank of a stage runs it with its own groups and peers.
//   Layers: stage s holds model chunks j = 0..vp-1, chunk j being virtual stage j pp + s with
//     consecutive layers, layers / (pp vp) unless the stages are unequal (pipeline_split.hpp:
//     Megatron-Core's decoder_first/last_pipeline_num_layers, account_for_embedding/loss_in_
//     pipeline_split) (megatron_layer.hpp: compute, TP/SP/CP communication, recompute). The embedding sits on virtual
//     stage 0, the final norm, output layer and loss on the last one.
//   Schedule (pipeline_schedule.hpp): Megatron-Core's plain or interleaved 1F1B, with its p2p
//     batches: activations and gradients of b (s / cp) h elements, 1/tp of it with sequence
//     parallelism (or Megatron-LM's older scatter_gather_tensors_in_pipeline, which all-gathers it
//     over tp at the receiver); the bubble is whatever the schedule leaves idle.
//   Gradients (megatron/core/distributed/distributed_data_parallel.py, param_and_grad_buffer.py):
//     reduced over the dp x cp ranks of a stage in the main-grad buffer's dtype (megatron_grad_bytes):
//     fp32 under bf16 (Megatron's accumulate_allreduce_grads_in_fp32, i.e. DDP's
//     grad_reduce_in_fp32), fp16 under fp16; with training.param_dtype (no fp32 master or main
//     grads: --main-grads-dtype bf16, which leaves accumulate_allreduce_grads_in_fp32 off in
//     arguments.py) in param_dtype, as memory_peak.cpp holds them. DDP: all-reduce; the distributed
//     optimizer: reduce-scatter, then the optimizer on 1/(dp cp) of the parameters, then an
//     all-gather of the updated parameters (megatron_param_bytes: param_dtype, else dtype). overlap_grad_reduce:
//     buckets of max(40e6, 1e6 dp cp) parameters, filled in backward order during each chunk's last micro-batch, each
//     reduced on the data-parallel stream as soon as its last gradient is ready; with virtual stages
//     (align_grad_reduce, Megatron's default) a chunk's buckets all start after this rank's backward
//     number (the chunk's last + the pipeline rank), so that every stage starts them at once
//     (schedules.py); without it one reduction per chunk after the last backward. overlap_param_gather: the parameter
//     all-gathers of the (next) step run beside its forward, each layer's first forward waiting for its bucket. With
//     virtual stages (align_param_gather) they are issued at the schedule's start; without (Megatron turns
//     align_param_gather off there, arguments.py) a bucket's gather is dispatched by the forward
//     pre-hook of its first layer, which waits for it and then dispatches the next bucket's
//     (param_and_grad_buffer.py finish_param_sync): one bucket ahead, and a stage after the first
//     (one bucket) gathers only once its first activation arrived. Without it they follow the optimizer.
//   Then (finalize_model_grads) the layer-norm gradients are all-reduced over tp under sequence
//   parallelism, and the tied word-embedding gradients between the first and last stage: V h /
//   vocab_shards elements (megatron_word_embedding_shard), never a learned position table (Megatron
//   syncs that only between an encoder and a decoder, pipeline_model_parallel_split_rank).
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

// Bytes per element of the parameters (training.param_dtype, else dtype) and of the gradients the
// data-parallel, tensor-parallel (norms) and embedding reductions move: fp32 under bf16
// (accumulate_allreduce_grads_in_fp32 with fp32 main grads), dtype under fp16/fp32, param_dtype
// where given (main grads in the parameters' dtype: no fp32 copy to reduce in).
int megatron_param_bytes(const TrainingSpec& t);
int megatron_grad_bytes(const TrainingSpec& t);
// The word embeddings one rank holds, V h / tp under vocab_parallel, else V h (no position table).
int64_t megatron_word_embedding_shard(const model::ModelShape& m, const ParallelLayout& l);
// Parameters held by one rank of pipeline stage `stage` (all its chunks; embedding and output
// layer included where they sit).
int64_t megatron_stage_params(const MegatronConfig& c, int stage);
// The same parameters by the group their gradients are reduced over: `dense` over dp x cp, the
// routed experts' over the expert-data-parallel ranks (the planner's step bound counts the bytes).
struct StageGradParams {
  int64_t dense = 0, experts = 0;
};
StageGradParams megatron_stage_grad_params(const MegatronConfig& c, int stage);
// Megatron-Core's gradient bucket size in parameters: max(40e6, 1e6 x dp x cp).
int64_t megatron_bucket_params(const ParallelLayout& l);

// One program per pipeline stage (index = stage).
std::vector<Program> build_megatron_programs(const MegatronConfig& c);
// Groups (dp x cp, tp, embedding) and each rank's slots, for tp x cp x dp x pp ranks.
void megatron_layout(const MegatronConfig& c, std::vector<collectives::Group>& groups, std::vector<RankSetup>& ranks);

}  // namespace models::workload
