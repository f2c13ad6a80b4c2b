// Layers per model chunk (models/workload/pipeline_split.hpp): Megatron-Core's even, uneven
// (decoder_first/last_pipeline_num_layers) and accounted (embedding/loss as a layer) splits.
#include <catch2/catch.hpp>

#include <numeric>
#include <string>

#include "models/error.hpp"
#include "models/workload/pipeline_split.hpp"

using namespace models::workload;

namespace {
std::string error_key_pipeline_split(int layers, int pp, int vp, const models::ParallelSpec& par) {
  try {
    make_pipeline_split(layers, pp, vp, par);
  } catch (const models::SpecError& e) {
    return e.key();
  }
  return "";
}
// Every layer held exactly once, chunks in virtual-stage order (v = chunk pp + stage).
void check_cover(const PipelineSplit& p, int layers) {
  int next = 0;
  for (int j = 0; j < p.vp(); ++j)
    for (int s = 0; s < p.pp(); ++s) {
      CHECK(p.chunk_first_layer(s, j) == next);
      next += p.chunk_layers(s, j);
    }
  CHECK(next == layers);
}
}  // namespace

TEST_CASE("pipeline split: even, L / (pp vp) consecutive layers per chunk", "[workload]") {
  const PipelineSplit p = make_pipeline_split(32, 4, 2, {});
  CHECK(p.even());
  CHECK(p.chunk_layers(3, 1) == 4);
  CHECK(p.chunk_first_layer(1, 0) == 4);   // virtual stage 1
  CHECK(p.chunk_first_layer(1, 1) == 20);  // virtual stage 5
  CHECK(p.stage_layers(2) == 8);
  CHECK(p.stage_layer_ids(0) == std::vector<int>{0, 1, 2, 3, 16, 17, 18, 19});
  check_cover(p, 32);
  CHECK(error_key_pipeline_split(30, 4, 1, {}) == "parallel.pp");  // 30 layers over 4 stages
  CHECK(error_key_pipeline_split(32, 4, 3, {}) == "parallel.vp");  // 8 per stage into 3 chunks
}

TEST_CASE("pipeline split: uneven first/last stages, the rest evenly (transformer_block.py)", "[workload]") {
  models::ParallelSpec par;
  par.decoder_first_pipeline_num_layers = 7;
  par.decoder_last_pipeline_num_layers = 7;
  const PipelineSplit p = make_pipeline_split(126, 16, 1, par);  // Llama 3.1 405B: 7 + 14 x 8 + 7
  CHECK_FALSE(p.even());
  CHECK(p.stage_layers(0) == 7);
  CHECK(p.stage_layers(1) == 8);
  CHECK(p.stage_layers(15) == 7);
  CHECK(p.max_stage_layers() == 8);
  CHECK(p.chunk_first_layer(1, 0) == 7);
  check_cover(p, 126);
  // Only the first: 30 = 6 + 3 x 8.
  models::ParallelSpec first;
  first.decoder_first_pipeline_num_layers = 6;
  const PipelineSplit q = make_pipeline_split(30, 4, 2, first);
  CHECK(q.chunk_layers(0, 0) == 3);
  CHECK(q.chunk_layers(1, 1) == 4);
  check_cover(q, 30);
  CHECK(error_key_pipeline_split(30, 4, 4, first) == "parallel.vp");  // 6 into 4 chunks
  first.decoder_first_pipeline_num_layers = 5;         // 25 over 3 stages
  CHECK(error_key_pipeline_split(30, 4, 1, first) == "parallel.decoder_first_pipeline_num_layers");
  first.decoder_first_pipeline_num_layers = 40;  // more than the model
  CHECK(error_key_pipeline_split(30, 4, 1, first) == "parallel.decoder_first_pipeline_num_layers");
  CHECK(error_key_pipeline_split(30, 1, 1, par) == "parallel.decoder_first_pipeline_num_layers");  // no pipeline
}

TEST_CASE("pipeline split: embedding and loss accounted as layers (Llama 3's layout)", "[workload]") {
  models::ParallelSpec par;
  par.account_for_embedding_in_pipeline_split = true;
  par.account_for_loss_in_pipeline_split = true;
  // 126 + 2 = 128 slots over 16 stages x 8 chunks: one layer per chunk; the first chunk of
  // stage 0 holds only the embedding, the last chunk of stage 15 only the output layer and loss.
  const PipelineSplit p = make_pipeline_split(126, 16, 8, par);
  CHECK(p.chunk_layers(0, 0) == 0);
  CHECK(p.chunk_layers(15, 7) == 0);
  CHECK(p.chunk_layers(1, 0) == 1);
  CHECK(p.chunk_first_layer(1, 0) == 0);
  CHECK(p.stage_layers(0) == 7);
  CHECK(p.stage_layers(7) == 8);
  CHECK(p.stage_layers(15) == 7);
  check_cover(p, 126);
  // 4 chunks: stage 0 holds 1 + 2 + 2 + 2.
  const PipelineSplit q = make_pipeline_split(126, 16, 4, par);
  CHECK(q.chunk_layers(0, 0) == 1);
  CHECK(q.chunk_layers(0, 1) == 2);
  check_cover(q, 126);
  CHECK(error_key_pipeline_split(126, 16, 1, {}) == "parallel.pp");  // unaccounted, 126 over 16
  models::ParallelSpec both = par;
  both.decoder_first_pipeline_num_layers = 7;
  CHECK(error_key_pipeline_split(126, 16, 1, both) == "parallel.account_for_embedding_in_pipeline_split");
  models::ParallelSpec loss;
  loss.account_for_loss_in_pipeline_split = true;  // 127 + 1 over 16
  CHECK(error_key_pipeline_split(127, 16, 1, loss).empty());
  CHECK(error_key_pipeline_split(126, 16, 1, loss) == "parallel.account_for_loss_in_pipeline_split");
}
