// A decoder that is not Llama-shaped, out of sample: GPT-2 (LayerNorm, biases, GELU MLP of 4h, learned
// positions, tied head) measured on one H200 (scenarios/validation/h200x1/measured/gpt2_steps.jsonl,
// bench/device/steps/gpt2_step.py), against the step time the simulator gives
// scenarios/validation/h200x1/gpt2.toml and the memory estimate (models/memory/memory_peak.hpp) of
// the same plain bf16 model. Nothing was fitted on these rows: the compute laws are the calibration
// decoder's (models/compute/, scenarios/validation/h200x1/ANALYSIS.md).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>

#include "models/compute/gpu_rates.hpp"
#include "models/hw/gpu.hpp"
#include "models/memory/memory_peak.hpp"
#include "models/run/run.hpp"
#include "models/workload/compute.hpp"
#include "scenarios/load/loader.hpp"
#include "tests/validation/jsonl_rows.hpp"

namespace {
const std::string kGpt2Dir = std::string(COMMSIM_SOURCE_DIR) + "/scenarios/validation/h200x1/";
// The step time's target. The LM head's width, 50257, is odd: its GEMMs run in cuBLAS's align1
// fallback kernels (compute/gemm.hpp, rates and power from bench/device/compute/gemm_misaligned*.py, not
// from these rows); before that law the rows were 13-41 % fast. Now -6.3 .. +1.0 %, median 2.6 %.
constexpr double kGpt2StepTolerance = 0.07;

double term_h200x1_gpt2_validation(const models::memory::Phase& p, const char* name) {
  for (const auto& t : p.terms)
    if (std::string(name) == t.name) return t.bytes;
  return 0;
}
}  // namespace

TEST_CASE("h200x1 gpt2: parameters exact, activations within 1 %, peaks within 2 %", "[validation]") {
  double worst = 0;
  int rows = 0;
  for (const auto& j : validation::jsonl_rows(kGpt2Dir + "measured/gpt2_steps.jsonl", "gpt2_step")) {
    const std::string name = j["model"];
    const int mb = j["micro_batch"];
    const auto loaded = scenarios::load_scenario(
        kGpt2Dir + "gpt2.toml", {"model.preset=\"" + name + "\"", "training.micro_batch=" + std::to_string(mb)});
    const models::model::ModelShape shape = models::model::resolve_model(*loaded.spec.model);
    // The scenario is the measured model, to the parameter (LayerNorm's biases, every linear layer's
    // bias and the 1024-row position table included).
    CHECK(shape.total_params() == j["params_count"].get<int64_t>());
    // The plain bf16 model of the script: weights and gradients 2 B, foreach AdamW's bf16 m and v,
    // no DDP wrapper (as tests/validation/one_gpu/h200x1_memory_validation_test.cpp's plain runs).
    models::memory::MemoryInputs in;
    in.model = shape;
    in.strategy = models::workload::Strategy::Ddp;
    in.param_bytes = 2;
    in.ddp_bucket_copies = false;
    in.keep_logits = true;  // gpt2_step.py holds the logits (`lo`) through the backward
    in.micro_batch = mb;
    const models::memory::RankEstimate e = models::memory::estimate_rank(in);
    const models::memory::Phase& fb = e.phases.front();
    // After forward and loss: the blocks' activations (GELU keeps 2 x ffn per token, not SwiGLU's 4),
    // the final norm's, and 6 of the logits' 14 B per entry (bf16 logits, fp32 log-softmax).
    const double act = term_h200x1_gpt2_validation(fb, "activations") + term_h200x1_gpt2_validation(fb, "logits") * 6 / 14;
    INFO(name << " micro-batch " << mb << ": activations " << act / 1e9 << " GB vs " << j["act_fwd"].get<double>() / 1e9
              << "; peak " << e.peak_bytes() / 1e9 << " GB (" << e.peak_phase().name << ") vs "
              << j["peak"].get<double>() / 1e9);
    CHECK(act == Approx(j["act_fwd"].get<double>()).epsilon(0.01));
    const double err = e.peak_bytes() / j["peak"].get<double>() - 1;
    CHECK(std::abs(err) < 0.02);
    worst = std::max(worst, std::abs(err));
    ++rows;
  }
  CHECK(rows == 6);
  WARN("h200x1 gpt2 memory: " << rows << " runs, worst peak error " << 100 * worst << " %");
}

TEST_CASE("h200x1 gpt2: step times of the simulated plain step within 7 % of the measured", "[validation]") {
  double worst = 0;
  int rows = 0;
  for (const auto& j : validation::jsonl_rows(kGpt2Dir + "measured/gpt2_steps.jsonl", "gpt2_step")) {
    const std::string name = j["model"];
    const int mb = j["micro_batch"];
    const auto loaded = scenarios::load_scenario(
        kGpt2Dir + "gpt2.toml", {"model.preset=\"" + name + "\"", "training.micro_batch=" + std::to_string(mb)});
    const double predicted = models::run_scenario(loaded.spec).step_time_s;
    const double measured = j["median_step_s"];
    const double err = predicted / measured - 1;
    INFO(name << " micro-batch " << mb << ": simulated " << predicted * 1e3 << " ms, measured " << measured * 1e3
              << " ms (" << 100 * err << " %)");
    CHECK(std::abs(err) < kGpt2StepTolerance);
    worst = std::max(worst, std::abs(err));
    ++rows;
  }
  CHECK(rows == 6);
  WARN("h200x1 gpt2 step: " << rows << " runs, worst error " << 100 * worst << " %");
}

TEST_CASE("h200x1 gpt2: the LM head's misaligned GEMMs within 10 % of their profiled kernels", "[validation]") {
  // gpt2_profile.jsonl: the step of gpt2_step.py under torch.profiler; the head's three products are
  // the only cutlass "align1" kernels of the step (vocabulary 50257 is odd). The model prices them
  // with compute/gemm.hpp's fallback fractions, measured on other shapes (gemm_misaligned.jsonl).
  const models::workload::ComputeRates rates =
      models::workload::make_rates(models::hw::find_gpu("H200"), models::compute::Precision::Bf16, 300e9, 0, {});
  int rows = 0;
  for (const auto& j : validation::jsonl_rows(kGpt2Dir + "measured/gpt2_profile.jsonl", "gpt2_profile")) {
    double measured = 0;
    for (const auto& k : j["kernels"])
      if (k["name"].get<std::string>().find("align1") != std::string::npos)
        measured += k["us_per_step"].get<double>() * 1e-6;
    models::ModelSpec spec;
    spec.preset = j["model"];
    spec.seq = 1024;
    const models::model::ModelShape m = models::model::resolve_model(spec);
    const int64_t tokens = j["micro_batch"].get<int64_t>() * 1024;
    const models::compute::LinearSeconds head = models::workload::head_kernels(m, tokens, tokens, 1, rates).logits;
    const double predicted = head.fwd + head.dgrad + head.wgrad - 3 * rates.gpu.launch_gap_s;
    INFO(spec.preset << ": head GEMMs " << predicted * 1e3 << " ms, profiled " << measured * 1e3 << " ms");
    CHECK(predicted == Approx(measured).epsilon(0.10));
    ++rows;
  }
  CHECK(rows == 4);
}
