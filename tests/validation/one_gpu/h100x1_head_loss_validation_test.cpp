// The LM head and loss of a Llama-3-8B-shaped model on one H100 by tokens per step, out of sample
// (scenarios/validation/h100x1/measured/head_loss.jsonl, bench/device/compute/head_loss.py): the
// final norm, the head's three GEMMs [T x 4096] x [4096 x 128256] and the fp32 cross-entropy,
// forward and backward, against models/workload/compute.cpp's head_kernels at the H200's laws
// carried to the H100. Nothing was fitted on these rows: the loss's 36 B per logit are counted from
// the kernels PyTorch runs (models/compute/gpu_rates.hpp), its 12.8 ps measured on an H200.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "models/hw/gpu.hpp"
#include "models/workload/compute.hpp"
#include "tests/validation/jsonl_rows.hpp"

using namespace models::workload;

TEST_CASE("h100x1 head and loss: each GEMM within 10 %, the loss within 5 %, the whole head within 15 %",
          "[validation]") {
  models::ModelSpec s;
  s.preset = "llama-3.1-8b";
  const models::model::ModelShape m = models::model::resolve_model(s);
  ComputeRates r = make_rates(models::hw::find_gpu("H100"), models::compute::Precision::Bf16, 300e9, 0, {});
  r.gpu.launch_gap_s = 0;  // the microbenchmark queues its kernels back to back
  int rows = 0;
  for (const auto& j : validation::jsonl_rows(
           std::string(COMMSIM_SOURCE_DIR) + "/scenarios/validation/h100x1/measured/head_loss.jsonl", "head_loss")) {
    const int64_t T = j["tokens"];
    const HeadKernels k = head_kernels(m, T, T, 1, r);
    const double loss = k.loss_fwd + k.loss_bwd;
    const double whole = k.norm_fwd + k.norm_bwd + k.logits.fwd + k.logits.bwd() + loss;
    INFO(T << " tokens: GEMMs " << k.logits.fwd * 1e3 << " / " << k.logits.dgrad * 1e3 << " / " << k.logits.wgrad * 1e3
           << " ms against " << j["gemm_fwd_s"].get<double>() * 1e3 << " / " << j["gemm_dgrad_s"].get<double>() * 1e3
           << " / " << j["gemm_wgrad_s"].get<double>() * 1e3 << "; loss " << loss * 1e3 << " ms against "
           << j["loss_s"].get<double>() * 1e3 << "; whole " << whole * 1e3 << " ms against "
           << j["whole_s"].get<double>() * 1e3);
    CHECK(std::abs(k.logits.fwd / j["gemm_fwd_s"].get<double>() - 1) < 0.10);
    CHECK(std::abs(k.logits.dgrad / j["gemm_dgrad_s"].get<double>() - 1) < 0.10);
    CHECK(std::abs(k.logits.wgrad / j["gemm_wgrad_s"].get<double>() - 1) < 0.10);
    CHECK(std::abs(loss / j["loss_s"].get<double>() - 1) < 0.05);
    CHECK(std::abs(whole / j["whole_s"].get<double>() - 1) < 0.15);
    WARN(T << " tokens: head + loss " << whole * 1e3 << " ms modelled, " << j["whole_s"].get<double>() * 1e3
           << " measured (" << 100 * (whole / j["whole_s"].get<double>() - 1) << " %); loss "
           << 100 * (loss / j["loss_s"].get<double>() - 1) << " %");
    ++rows;
  }
  CHECK(rows == 3);
}

// The loss alone at 8,192 tokens over vocabularies of 32,000 to 151,936 (loss_vocab.jsonl): the
// model's time per logit does not depend on the row's length, and neither did the H100's.
TEST_CASE("h100x1 loss: the time per logit within 5 % at every vocabulary", "[validation]") {
  const ComputeRates r = make_rates(models::hw::find_gpu("H100"), models::compute::Precision::Bf16, 300e9, 0, {});
  const double modelled = r.gpu.memory.loss_s_per_logit;
  int rows = 0;
  for (const auto& j : validation::jsonl_rows(
           std::string(COMMSIM_SOURCE_DIR) + "/scenarios/validation/h100x1/measured/loss_vocab.jsonl", "loss_vocab")) {
    const double measured = j["ps_per_logit"].get<double>() * 1e-12;
    INFO("vocabulary " << j["vocab"].get<int>() << ": " << modelled * 1e12 << " ps per logit modelled, "
                       << measured * 1e12 << " measured");
    CHECK(std::abs(modelled / measured - 1) < 0.05);
    ++rows;
  }
  CHECK(rows >= 5);
}
