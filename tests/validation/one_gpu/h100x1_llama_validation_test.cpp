// Llama 3's shapes on one H100, out of sample: a Llama-3.1-8B-shaped decoder (grouped-query
// attention, rotary positions, SwiGLU 14336, vocabulary 128256) with 4-16 blocks at 2,048-8,192
// tokens, eager PyTorch in bf16 with foreach AdamW (scenarios/validation/h100x1/measured/
// llama_steps.jsonl, bench/device/steps/llama_step.py), against the step the simulator gives
// scenarios/validation/h100x1/llama.toml and the memory estimate of the same plain model. Nothing was
// fitted on these rows: the compute laws are the H200-measured ones, carried to the H100 by the
// transfer rule (models/compute/gpu_rates.hpp).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "models/hw/gpu.hpp"
#include "models/memory/memory_peak.hpp"
#include "models/run/run.hpp"
#include "models/workload/compute.hpp"
#include "models/workload/layout.hpp"
#include "scenarios/load/loader.hpp"
#include "tests/validation/jsonl_rows.hpp"

namespace {
const std::string kLlamaDir = std::string(COMMSIM_SOURCE_DIR) + "/scenarios/validation/h100x1/";

// Rows without a "gqa" key copied the key/value heads (the first call's script).
bool copies_heads(const nlohmann::json& j) { return j.value("gqa", std::string("expand")) == "expand"; }

scenarios::LoadedScenario llama_row(const nlohmann::json& j) {
  return scenarios::load_scenario(
      kLlamaDir + "llama.toml",
      {"model.layers=" + std::to_string(j["layers"].get<int>()), "model.seq=" + std::to_string(j["seq"].get<int>()),
       "training.micro_batch=" + std::to_string(j["micro_batch"].get<int>()),
       std::string("training.repeat_kv=") + (copies_heads(j) ? "true" : "false")});
}

// The script's plain bf16 model: weights and gradients 2 B, foreach AdamW's bf16 m and v, no DDP
// wrapper (no gradient buckets), as the GPT-2 rows (h200x1_gpt2_validation_test.cpp).
models::memory::MemoryInputs plain_memory_inputs(const nlohmann::json& j) {
  models::memory::MemoryInputs in;
  in.model = models::model::resolve_model(*llama_row(j).spec.model);
  in.strategy = models::workload::Strategy::Ddp;
  in.param_bytes = 2;
  in.ddp_bucket_copies = false;
  in.micro_batch = j["micro_batch"];
  in.repeat_kv = copies_heads(j);
  return in;
}
}  // namespace

TEST_CASE("h100x1 llama: the parameters exact, the plain step's time within 8 % (median within 6 %)", "[validation]") {
  std::vector<double> errors;
  for (const auto& j : validation::jsonl_rows(kLlamaDir + "measured/llama_steps.jsonl", "llama_step")) {
    const auto loaded = llama_row(j);
    CHECK(models::model::resolve_model(*loaded.spec.model).total_params() == j["params_count"].get<int64_t>());
    const double predicted = models::run_scenario(loaded.spec).step_time_s;
    const double measured = j["median_step_s"];
    const double err = predicted / measured - 1;
    INFO(j["layers"] << " blocks, " << j["seq"] << " tokens x " << j["micro_batch"]
                     << (copies_heads(j) ? ", copied" : ", native") << " key/value heads: simulated " << predicted * 1e3
                     << " ms, measured " << measured * 1e3 << " ms (" << 100 * err << " %)");
    CHECK(std::abs(err) < 0.08);
    errors.push_back(std::abs(err));
    WARN("row " << j["layers"] << " x " << j["seq"] << " x " << j["micro_batch"]
                << (copies_heads(j) ? " copied " : " native ") << 100 * err << " %");
  }
  REQUIRE(errors.size() == 16);
  std::sort(errors.begin(), errors.end());
  CHECK(errors[8] < 0.06);
  WARN("h100x1 llama step: 16 rows, median error " << 100 * errors[8] << " %, worst " << 100 * errors.back() << " %");
}

// The script computes the loss on the model's output without keeping it (training.keep_logits
// false, as torchtitan's `del pred`): 12 B per logit at the loss's peak (memory_terms.hpp).
TEST_CASE("h100x1 llama: the plain model's memory peak within 1 % of the measured", "[validation]") {
  double worst = 0;
  int rows = 0;
  for (const auto& j : validation::jsonl_rows(kLlamaDir + "measured/llama_steps.jsonl", "llama_step")) {
    const models::memory::RankEstimate e = models::memory::estimate_rank(plain_memory_inputs(j));
    const double err = e.peak_bytes() / j["peak"].get<double>() - 1;
    INFO(j["layers"] << " blocks, " << j["seq"] << " tokens x " << j["micro_batch"] << ": peak " << e.peak_bytes() / 1e9
                     << " GB (" << e.peak_phase().name << ") vs " << j["peak"].get<double>() / 1e9);
    CHECK(std::abs(err) < 0.01);
    worst = std::max(worst, std::abs(err));
    ++rows;
  }
  CHECK(rows == 16);
  WARN("h100x1 llama memory: " << rows << " rows, worst peak error " << 100 * worst << " %");
}

// The same configuration with copied and with grouped key/value heads: attention keeps the copies
// (memory_terms.hpp repeated_kv_bytes_per_token), 2 x 24 heads x 128 x 2 B per token and block.
TEST_CASE("h100x1 llama: the key/value copies' memory is the measured difference", "[validation]") {
  std::map<std::string, std::pair<double, double>> measured, modelled;  // copied, native peaks
  for (const auto& j : validation::jsonl_rows(kLlamaDir + "measured/llama_steps.jsonl", "llama_step")) {
    const models::memory::MemoryInputs in = plain_memory_inputs(j);
    const std::string key = std::to_string(j["layers"].get<int>()) + " x " + std::to_string(j["seq"].get<int>()) +
                            " x " + std::to_string(j["micro_batch"].get<int>());
    (in.repeat_kv ? measured[key].first : measured[key].second) = j["peak"].get<double>();
    (in.repeat_kv ? modelled[key].first : modelled[key].second) = models::memory::estimate_rank(in).peak_bytes();
  }
  REQUIRE(measured.size() == 7);
  for (const auto& [key, m] : measured) {
    const double want = m.first - m.second, got = modelled[key].first - modelled[key].second;
    INFO(key << ": copies " << got / 1e9 << " GB modelled, " << want / 1e9 << " measured");
    CHECK(want > 0);
    CHECK(std::abs(got / want - 1) < 0.05);
  }
}

// Full activation checkpointing, as torchtitan's full AC wraps each block (torch.utils.checkpoint,
// use_reentrant=False): the same seven configurations without and with it in one device call
// (measured/llama_ac_steps.jsonl). The backward reruns each block's forward up to the last tensor
// it saved, not the MLP's down projection and residual add after it (compute.hpp BlockSeconds);
// priced as the whole forward (reentrant), the recompute would be 15-32 % over the measured.
TEST_CASE("h100x1 llama: full activation checkpointing's step within 4 %, its recompute within 10 %", "[validation]") {
  std::map<std::string, double> none_measured, none_modelled;
  std::vector<double> step_errors, recompute_errors, reentrant_errors;
  auto key = [](const nlohmann::json& j) {
    return std::to_string(j["layers"].get<int>()) + " x " + std::to_string(j["seq"].get<int>()) + " x " +
           std::to_string(j["micro_batch"].get<int>());
  };
  for (const auto& j : validation::jsonl_rows(kLlamaDir + "measured/llama_ac_steps.jsonl", "llama_step")) {
    auto loaded = llama_row(j);
    const double measured = j["median_step_s"];
    if (j["ac"] == "none") {
      none_measured[key(j)] = measured;
      none_modelled[key(j)] = models::run_scenario(loaded.spec).step_time_s;
      continue;
    }
    REQUIRE(j["ac"] == "full");
    REQUIRE(none_measured.count(key(j)) == 1);
    loaded.spec.training.grad_checkpointing = true;
    const double predicted = models::run_scenario(loaded.spec).step_time_s;
    loaded.spec.training.checkpoint_impl = "reentrant";
    const double reentrant = models::run_scenario(loaded.spec).step_time_s;
    const double recompute_measured = measured - none_measured[key(j)];
    const double recompute_modelled = predicted - none_modelled[key(j)];
    INFO(key(j) << ": step " << predicted * 1e3 << " ms vs " << measured * 1e3 << "; recompute "
                << recompute_modelled * 1e3 << " ms vs " << recompute_measured * 1e3
                << " (whole forward: " << (reentrant - none_modelled[key(j)]) * 1e3 << ")");
    step_errors.push_back(std::abs(predicted / measured - 1));
    recompute_errors.push_back(std::abs(recompute_modelled / recompute_measured - 1));
    reentrant_errors.push_back((reentrant - none_modelled[key(j)]) / recompute_measured - 1);
    CHECK(step_errors.back() < 0.04);
    CHECK(recompute_errors.back() < 0.10);
  }
  REQUIRE(step_errors.size() == 7);
  std::sort(recompute_errors.begin(), recompute_errors.end());
  std::sort(reentrant_errors.begin(), reentrant_errors.end());
  CHECK(recompute_errors[3] < 0.05);
  CHECK(reentrant_errors[0] > 0.10);  // the whole forward is not what this checkpoint reruns
  CHECK(reentrant_errors[3] > 0.20);
  WARN("h100x1 llama full AC: worst step error " << 100 * *std::max_element(step_errors.begin(), step_errors.end())
                                                 << " %, median recompute error " << 100 * recompute_errors[3] << " %");
}

// The peaks without and with checkpointing (the 16-block row with it peaks in the optimizer, the
// others at the loss).
TEST_CASE("h100x1 llama: full activation checkpointing's memory peaks within 1 %", "[validation]") {
  int rows = 0;
  for (const auto& j : validation::jsonl_rows(kLlamaDir + "measured/llama_ac_steps.jsonl", "llama_step")) {
    models::memory::MemoryInputs in = plain_memory_inputs(j);
    if (j["ac"] == "full") in.recompute = models::memory::Recompute::Full;
    const models::memory::RankEstimate e = models::memory::estimate_rank(in);
    const double err = e.peak_bytes() / j["peak"].get<double>() - 1;
    INFO(j["ac"] << " " << j["layers"] << " x " << j["seq"] << " x " << j["micro_batch"] << ": peak "
                 << e.peak_bytes() / 1e9 << " GB (" << e.peak_phase().name << ") vs " << j["peak"].get<double>() / 1e9);
    CHECK(std::abs(err) < 0.01);
    ++rows;
  }
  CHECK(rows == 14);
}

// One block's forward, backward and recompute, apart: CUDA events around the forward (with the
// loss), the backward and the optimizer of each step (measured/llama_phase_steps.jsonl, a third
// call), per block as the difference between 16 and 8 blocks at 8,192 tokens; the recompute is the
// backward with full checkpointing less the backward without. Measured, the recompute is 0.82 of
// the forward: what the checkpoint skips (the down projection, the residual add) is a fifth of it.
TEST_CASE("h100x1 llama: one block's forward, backward and recompute apart, each within 8 %", "[validation]") {
  std::map<std::string, std::vector<double>> phases;  // "none 16": forward, backward, optimizer
  for (const auto& j : validation::jsonl_rows(kLlamaDir + "measured/llama_phase_steps.jsonl", "llama_step"))
    if (j["seq"] == 8192 && j["micro_batch"] == 1)
      phases[j["ac"].get<std::string>() + " " + std::to_string(j["layers"].get<int>())] =
          j["median_fwd_bwd_opt_s"].get<std::vector<double>>();
  REQUIRE(phases.count("none 8") + phases.count("none 16") + phases.count("full 8") + phases.count("full 16") == 4);
  const double fwd = (phases["none 16"][0] - phases["none 8"][0]) / 8;
  const double bwd = (phases["none 16"][1] - phases["none 8"][1]) / 8;
  const double recompute = (phases["full 16"][1] - phases["full 8"][1]) / 8 - bwd;

  const auto loaded = llama_row(nlohmann::json{{"layers", 8}, {"seq", 8192}, {"micro_batch", 1}, {"gqa", "native"}});
  const auto m = models::model::resolve_model(*loaded.spec.model);
  const auto layout = models::workload::make_layout(loaded.spec, m, 1);
  const auto rates =
      models::workload::step_rates(loaded.spec, models::hw::find_gpu("H100"), 0, m, layout, /*power_cap=*/true);
  const models::workload::BlockSeconds b = models::workload::block_seconds(m, 8192, 1, rates);
  INFO("per block: forward " << b.fwd() * 1e3 << " ms vs " << fwd * 1e3 << ", backward " << b.bwd() * 1e3 << " vs "
                             << bwd * 1e3 << ", recompute " << b.recompute(true) * 1e3 << " vs " << recompute * 1e3);
  CHECK(std::abs(b.fwd() / fwd - 1) < 0.08);
  CHECK(std::abs(b.bwd() / bwd - 1) < 0.08);
  CHECK(std::abs(b.recompute(true) / recompute - 1) < 0.08);
  // The share of the forward rerun: 0.82 measured; the model's within 0.05, the whole forward not.
  CHECK(std::abs(b.recompute(true) / b.fwd() - recompute / fwd) < 0.05);
  CHECK(recompute / fwd < 0.9);
}

// Every second block checkpointed (torchtitan's default, selective_ac_option = "2"; blocks 2, 4, ...),
// beside no and full checkpointing in one call (measured/llama_ac_every_steps.jsonl): the step, and
// the peak with half of the blocks keeping only their input.
TEST_CASE("h100x1 llama: every second block checkpointed, the step within 3 % and the peak within 1 %",
          "[validation]") {
  int rows = 0;
  for (const auto& j : validation::jsonl_rows(kLlamaDir + "measured/llama_ac_every_steps.jsonl", "llama_step")) {
    if (j["ac"] != "2") continue;
    auto loaded = llama_row(j);
    loaded.spec.training.grad_checkpointing = true;
    loaded.spec.training.checkpoint_every = 2;
    const double predicted = models::run_scenario(loaded.spec).step_time_s;
    models::memory::MemoryInputs in = plain_memory_inputs(j);
    in.recompute = models::memory::Recompute::Full;
    in.checkpoint_every = 2;
    const double peak = models::memory::estimate_rank(in).peak_bytes();
    INFO(j["layers"] << " x " << j["seq"] << " x " << j["micro_batch"] << ": step " << predicted * 1e3 << " ms vs "
                     << j["median_step_s"].get<double>() * 1e3 << ", peak " << peak / 1e9 << " GB vs "
                     << j["peak"].get<double>() / 1e9);
    CHECK(std::abs(predicted / j["median_step_s"].get<double>() - 1) < 0.03);
    CHECK(std::abs(peak / j["peak"].get<double>() - 1) < 0.01);
    ++rows;
  }
  CHECK(rows == 7);
}

// torchtitan's per-op selective checkpointing (selective_ac_option = "op", recompute =
// "selective_op": the outputs of every other matmul and attention's kept, the rest recomputed),
// measured beside no and full checkpointing in one call (measured/llama_ac_op_steps.jsonl): the
// step, and the peak with what the policy keeps (memory_terms.hpp).
TEST_CASE("h100x1 llama: per-op selective checkpointing, the step within 4 % and the peak within 1 %", "[validation]") {
  int rows = 0;
  for (const auto& j : validation::jsonl_rows(kLlamaDir + "measured/llama_ac_op_steps.jsonl", "llama_step")) {
    if (j["ac"] != "op") continue;
    auto loaded = llama_row(j);
    loaded.spec.training.recompute = "selective_op";
    const double predicted = models::run_scenario(loaded.spec).step_time_s;
    models::memory::MemoryInputs in = plain_memory_inputs(j);
    in.recompute = models::memory::Recompute::SelectiveOp;
    const double peak = models::memory::estimate_rank(in).peak_bytes();
    const double measured = j["median_step_s"];
    INFO(j["layers"] << " x " << j["seq"] << " x " << j["micro_batch"] << ": step " << predicted * 1e3 << " ms vs "
                     << measured * 1e3 << ", peak " << peak / 1e9 << " GB vs " << j["peak"].get<double>() / 1e9);
    CHECK(std::abs(predicted / measured - 1) < 0.04);
    CHECK(std::abs(peak / j["peak"].get<double>() - 1) < 0.01);
    ++rows;
  }
  CHECK(rows == 7);
}
