// Layers per model chunk, Megatron-Core's rule (see pipeline_split.hpp).
#include "models/workload/pipeline_split.hpp"

#include <algorithm>
#include <string>

#include "models/error.hpp"

namespace models::workload {

namespace {
std::string int_text(int v) { return std::to_string(v); }
constexpr const char* kFirst = "parallel.decoder_first_pipeline_num_layers";
constexpr const char* kLast = "parallel.decoder_last_pipeline_num_layers";
constexpr const char* kEmbedding = "parallel.account_for_embedding_in_pipeline_split";
constexpr const char* kLoss = "parallel.account_for_loss_in_pipeline_split";
}  // namespace

int PipelineSplit::stage_layers(int stage) const {
  int n = 0;
  for (int j = 0; j < vp_; ++j) n += chunk_layers(stage, j);
  return n;
}

int PipelineSplit::max_stage_layers() const {
  int n = 0;
  for (int s = 0; s < pp_; ++s) n = std::max(n, stage_layers(s));
  return n;
}

std::vector<int> PipelineSplit::stage_layer_ids(int stage) const {
  std::vector<int> ids;
  for (int j = 0; j < vp_; ++j)
    for (int i = 0; i < chunk_layers(stage, j); ++i) ids.push_back(chunk_first_layer(stage, j) + i);
  return ids;
}

PipelineSplit make_pipeline_split(int layers, int pp, int vp, const ParallelSpec& par) {
  const bool uneven = par.decoder_first_pipeline_num_layers > 0 || par.decoder_last_pipeline_num_layers > 0;
  const bool accounted = par.account_for_embedding_in_pipeline_split || par.account_for_loss_in_pipeline_split;
  if (uneven && accounted)
    throw SpecError(par.account_for_embedding_in_pipeline_split ? kEmbedding : kLoss,
                    "cannot be combined with decoder_first/last_pipeline_num_layers (expected one of the two ways "
                    "to balance the pipeline, as Megatron's arguments.py requires)");
  if ((uneven || accounted) && pp == 1)
    throw SpecError(uneven ? (par.decoder_first_pipeline_num_layers > 0 ? kFirst : kLast)
                           : (par.account_for_embedding_in_pipeline_split ? kEmbedding : kLoss),
                    "needs a pipeline (expected pp > 1)");
  std::vector<int> stage(pp, 0);
  if (uneven) {
    const int first = par.decoder_first_pipeline_num_layers, last = par.decoder_last_pipeline_num_layers;
    const int middle_stages = pp - (first > 0 ? 1 : 0) - (last > 0 ? 1 : 0);
    const int middle = layers - first - last;
    if (middle < 0 || (middle_stages == 0 && middle != 0))
      throw SpecError(first > 0 ? kFirst : kLast, "the first and last stages hold " + int_text(first + last) + " of " +
                                                      int_text(layers) +
                                                      " layers (expected the other stages to hold the rest)");
    if (middle_stages > 0 && middle % middle_stages != 0)
      throw SpecError(first > 0 ? kFirst : kLast,
                      int_text(middle) + " layers do not split evenly into the " + int_text(middle_stages) +
                          " other pipeline stages (expected them to divide the layers the first/last stages leave)");
    for (int s = 0; s < pp; ++s) stage[s] = middle_stages > 0 ? middle / middle_stages : 0;
    if (first > 0) stage[0] = first;
    if (last > 0) stage[pp - 1] = last;
  } else {
    const int e = par.account_for_embedding_in_pipeline_split ? 1 : 0;
    const int l = par.account_for_loss_in_pipeline_split ? 1 : 0;
    const int slots = layers + e + l;
    if (slots % pp != 0)
      throw SpecError(
          accounted ? (e ? kEmbedding : kLoss) : "parallel.pp",
          int_text(layers) + (accounted ? " layers and " + int_text(e + l) + " accounted for the embedding/loss" : " layers") +
              " do not split evenly into " + int_text(pp) + " pipeline stages (expected pp to divide the layer count" +
              (accounted ? " plus the accounted embedding/loss)" : ", or decoder_first/last_pipeline_num_layers)"));
    for (int s = 0; s < pp; ++s) stage[s] = slots / pp;
  }
  PipelineSplit p;
  p.pp_ = pp;
  p.vp_ = vp;
  p.layers_.assign(size_t(pp) * vp, 0);
  p.first_.assign(size_t(pp) * vp, 0);
  for (int s = 0; s < pp; ++s)
    if (stage[s] % vp != 0)
      throw SpecError("parallel.vp", (uneven ? "stage " + int_text(s) + " holds " + int_text(stage[s]) + " layers, which do"
                                             : int_text(stage[s]) + " layers per pipeline stage do") +
                                         " not split into vp = " + int_text(vp) + " virtual stages (expected vp to divide " +
                                         (uneven ? "the layers of every stage)" : "the layers per stage)"));
  for (int j = 0; j < vp; ++j)
    for (int s = 0; s < pp; ++s) p.layers_[j * pp + s] = stage[s] / vp;
  if (par.account_for_embedding_in_pipeline_split) p.layers_[0] -= 1;
  if (par.account_for_loss_in_pipeline_split) p.layers_[pp * vp - 1] -= 1;
  int at = 0;
  for (int v = 0; v < pp * vp; ++v) {
    if (p.layers_[v] < 0)
      throw SpecError(v == 0 ? kEmbedding : kLoss,
                      "a model chunk would hold fewer than zero layers (expected "
                      "at least one layer per chunk before the embedding/loss is taken out)");
    p.first_[v] = at;
    at += p.layers_[v];
  }
  p.even_ = std::all_of(p.layers_.begin(), p.layers_.end(), [&](int n) { return n == p.layers_[0]; });
  return p;
}

}  // namespace models::workload
