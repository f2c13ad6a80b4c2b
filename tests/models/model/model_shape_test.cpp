// Model presets and the compute model's closed forms.
#include <catch2/catch.hpp>

#include "models/error.hpp"
#include "models/workload/compute.hpp"
#include "models/model/model_shape.hpp"

using namespace models::workload;

static models::model::ModelShape shape_preset(const char* name) {
  models::ModelSpec s;
  s.preset = name;
  return models::model::resolve_model(s);
}

TEST_CASE("workload: presets have the published parameter counts", "[workload]") {
  // Llama-3-8B: "Number of trainable parameters = 8,030,261,248" (seed 002's trainer log).
  CHECK(shape_preset("llama-3-8b").total_params() == 8030261248LL);
  // Calibration decoder: 2,208,370,688 (scenarios/validation/h200x4/measured/README.md, z3_n1.json).
  CHECK(shape_preset("h200x4-decoder").total_params() == 2208370688LL);
  // Llama-2-7B: 6,738,415,616 (Touvron et al. 2023, HF model card "7B"), Llama-3-70B: 70.55e9.
  CHECK(shape_preset("llama-2-7b").total_params() == 6738415616LL);
  CHECK(shape_preset("llama-3-70b").total_params() == 70553706496LL);
}

TEST_CASE("workload: explicit shapes override a preset and bad shapes are SpecErrors", "[workload]") {
  models::ModelSpec s;
  s.preset = "llama-3-8b";
  s.layers = 2;
  CHECK(models::model::resolve_model(s).layers == 2);
  models::ModelSpec bad;
  bad.preset = "llama-9";
  CHECK_THROWS_AS(models::model::resolve_model(bad), models::SpecError);
  models::ModelSpec partial;
  partial.hidden = 1024;
  CHECK_THROWS_AS(models::model::resolve_model(partial), models::SpecError);
}

TEST_CASE("workload: block FLOPs follow 2 x params x tokens plus causal attention", "[workload]") {
  const models::model::ModelShape m = shape_preset("h200x4-decoder");
  const int64_t tokens = 4096;
  // F_block = 2 T (4h^2 + 3 h ffn) + 2 T s h   (MHA: k, v are h x h; causal attention halved)
  const double expect = 2.0 * tokens * (4.0 * 4096 * 4096 + 3.0 * 4096 * 14336) + 2.0 * tokens * 2048 * 4096;
  CHECK(block_forward_flops(m, tokens) == Approx(expect).epsilon(1e-12));
  CHECK(block_forward_flops(m, tokens, 4) == Approx(expect / 4).epsilon(1e-12));
  CHECK(head_forward_flops(m, tokens) == Approx(2.0 * tokens * 32000 * 4096));
}
