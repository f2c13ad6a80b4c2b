#pragma once
// models::workload::PipelineSplit: how many transformer layers each model chunk of a pipeline
// holds, Megatron-Core's rule (megatron/core/transformer/transformer_block.py
// get_num_layers_to_build and get_transformer_layer_offset, core_r0.12; checks from
// megatron/training/arguments.py validate_args).
//
// A model chunk is a virtual stage v = chunk x pp + stage (chunk < vp); the forward visits them in
// order of v and each holds consecutive layers. Three ways to split L layers over pp stages:
//   even (default)   every stage L / pp layers, every chunk L / (pp vp);
//   uneven           decoder_first_pipeline_num_layers F and/or decoder_last_pipeline_num_layers
//                    L_last on the first / last stage, the other M = L - F - L_last layers evenly
//                    over the remaining stages; every chunk of a stage holds its stage's / vp;
//   accounted        account_for_embedding_in_pipeline_split / account_for_loss_in_pipeline_split
//                    count the embedding / the loss (output layer) as one more layer: L + e + l
//                    split evenly, then the first chunk of the first stage builds one layer fewer
//                    (it holds the embedding in its place), the last chunk of the last stage one
//                    fewer (the loss). With one layer per chunk, that is Llama 3's layout (Dubey et
//                    al. 2024, section 3.3.2: "we reduce one Transformer layer each from the first
//                    and the last stages ... the first model chunk on the first stage has only the
//                    embedding, and the last model chunk on the last stage has only output
//                    projection and loss calculation").
// The two last forms exclude each other (arguments.py). Every stage's layer count must split into
// vp chunks.
#include <vector>

#include "models/spec.hpp"

namespace models::workload {

class PipelineSplit {
 public:
  PipelineSplit() = default;  // one stage, one chunk, no layers: set by make_pipeline_split
  int pp() const { return pp_; }
  int vp() const { return vp_; }
  int chunk_layers(int stage, int chunk) const { return layers_[chunk * pp_ + stage]; }
  int chunk_first_layer(int stage, int chunk) const { return first_[chunk * pp_ + stage]; }
  int stage_layers(int stage) const;  // over its vp chunks
  int max_stage_layers() const;
  bool even() const { return even_; }  // every chunk holds the same number of layers
  // The layer indices stage `stage` holds, ascending.
  std::vector<int> stage_layer_ids(int stage) const;

 private:
  friend PipelineSplit make_pipeline_split(int layers, int pp, int vp, const ParallelSpec& par);
  int pp_ = 1, vp_ = 1;
  bool even_ = true;
  std::vector<int> layers_{0}, first_{0};  // by virtual stage
};

// Throws SpecError at the parallel.* key at fault (parallel.pp, parallel.vp,
// parallel.decoder_first_pipeline_num_layers, ...).
PipelineSplit make_pipeline_split(int layers, int pp, int vp, const ParallelSpec& par);

}  // namespace models::workload
