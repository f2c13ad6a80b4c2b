// The compute model out of sample on another GPU: its predictions for the H100 80GB HBM3 of AWS
// p5.48xlarge (the catalog's GPU of that instance) against the H200 measurements repeated on one
// H100 (scenarios/validation/h100x1/measured/, analysed in ../ANALYSIS.md). Nothing was fitted on
// this GPU: the rates are the H200's carried by the transfer rule of models/compute/gpu_rates.hpp.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "models/compute/gpu_rates.hpp"
#include "models/hw/instance.hpp"
#include "models/workload/compute.hpp"
#include "models/workload/steps/megatron.hpp"
#include "tests/validation/jsonl_rows.hpp"
#include "tests/validation/one_gpu/megatron_rank_compute.hpp"

using namespace models::workload;
using models::compute::Precision;
using nlohmann::json;

namespace {

const std::string kH100Dir = std::string(COMMSIM_SOURCE_DIR) + "/scenarios/validation/h100x1/measured/";

std::vector<json> rows_h100x1_compute_validation(const std::string& file, const std::string& kind) {
  return validation::jsonl_rows(kH100Dir + file, kind);
}

using validation::median;

const models::hw::GpuSpec& h100() { return models::hw::find_instance("p5.48xlarge").gpu; }

models::model::ModelShape decoder() {
  models::ModelSpec s;
  s.preset = "h200x4-decoder";
  return models::model::resolve_model(s);
}

ComputeRates rates(const std::map<std::string, double>& params = {}) {
  return make_rates(h100(), Precision::Bf16, 300e9, 0, params);
}

models::ScenarioSpec spec_of(int micro_batch, bool ckpt, const std::string& param_dtype, const std::string& impl) {
  models::ScenarioSpec spec;
  spec.training.micro_batch = micro_batch;
  spec.training.grad_checkpointing = ckpt;
  spec.training.param_dtype = param_dtype;
  spec.training.optimizer_impl = impl;
  return spec;
}

// One rank's compute (the compute ops of a Megatron stage program) at the rates the simulator gives
// that step on the H100 (its power-limit stretch included), bf16 parameters and `impl` AdamW: what
// bench/device/compute/tp_rank_compute.py and stage_compute.py measure on one GPU without communication.
double rank_compute(int tp, const std::string& impl, int micro_batch = 2, bool ckpt = false, int pp = 1, int stage = 0,
                    int micro_batches = 1, const std::map<std::string, double>& params = {}) {
  const models::ScenarioSpec spec = spec_of(micro_batch, ckpt, "bf16", impl);
  return validation::megatron_rank_compute(spec, decoder(), tp, pp, stage, micro_batches, rates(params));
}

// The FSDP2 one-rank step (fp32 parameters, fused AdamW, 4 B parameters gathered) at the rates the
// simulator gives it (power_capped_rates decides whether its GEMMs stretch).
double fsdp_fused_step(const std::map<std::string, double>& params = {}) {
  const models::ScenarioSpec spec = spec_of(2, false, "fp32", "fused");
  ParallelLayout layout;
  layout.strategy = Strategy::Fsdp;
  const models::model::ModelShape m = decoder();
  const ComputeRates r = power_capped_rates(spec, m, layout, rates(params));
  return single_gpu_breakdown(m, 2, false, true, 4, optimizer_plan(spec.training, Strategy::Fsdp), r).total();
}

// The transfer rule before the H100 was measured: every memory-bound, AdamW and loss rate the H200's x
// HBM / 4.8 TB/s (3.35 / 4.8 = 0.698 here), set as parameters over the current rule.
std::map<std::string, double> hbm_scaled_rule() {
  const auto h200 = models::compute::make_gpu_rates(models::hw::find_gpu("H200"), Precision::Bf16, {});
  const double hbm = h100().hbm_bytes_per_s / models::compute::kH200Hbm;
  std::map<std::string, double> p;
  for (int k = 0; k < models::compute::kMemKernels; ++k)
    p[std::string("compute.memory_bandwidth.") + models::compute::memory_kernel_name(models::compute::MemKernel(k))] =
        h200.memory.bytes_per_s[size_t(k)] * hbm;
  for (int i = 0; i < models::compute::kOptimizerImpls; ++i)
    for (int d = 0; d < 2; ++d)
      p[std::string("compute.adamw_bandwidth.") +
        models::compute::optimizer_impl_name(models::compute::OptimizerImpl(i)) + (d == 0 ? "_fp32" : "_bf16")] =
          h200.adamw.bytes_per_s[size_t(i)][size_t(d)] * hbm;
  p["compute.loss_time_per_logit"] = h200.memory.loss_s_per_logit / hbm;
  return p;
}

struct Row {
  std::string name;
  double measured, predicted, before;  // model now, model with hbm_scaled_rule()
  double error() const { return predicted / measured - 1; }
  double error_before() const { return before / measured - 1; }
};

// Every measured step of tp_rank.jsonl and stage.jsonl (repeats averaged) with its prediction.
std::vector<Row> step_rows() {
  std::map<std::string, std::vector<double>> m;
  for (const json& r : rows_h100x1_compute_validation("tp_rank.jsonl", "rank_step")) {
    const std::string mode = r["mode"], impl = r["adamw"];
    m[mode == "fsdp" ? "fsdp2 fused" : "tp " + std::to_string(r["tp"].get<int>()) + " " + impl].push_back(
        r["mean_step_s"]);
  }
  for (const json& r : rows_h100x1_compute_validation("stage.jsonl", "stage_step"))
    m["stage " + std::to_string(r["stage"].get<int>())].push_back(r["mean_step_s"]);
  for (const json& r : rows_h100x1_compute_validation("stage.jsonl", "plain_step"))
    m["mb " + std::to_string(r["micro_batch"].get<int>()) + (r["ckpt"].get<bool>() ? " ckpt" : "")].push_back(
        r["mean_step_s"]);
  auto mean = [&](const std::string& k) {
    const auto& v = m.at(k);
    double s = 0;
    for (double x : v) s += x;
    return s / double(v.size());
  };
  REQUIRE(m.size() == 12);
  const std::map<std::string, double> old = hbm_scaled_rule();
  const std::map<std::string, double> now;
  std::vector<Row> out;
  auto add = [&](const std::string& name, auto predict) {
    out.push_back({name, mean(name), predict(now), predict(old)});
  };
  for (int tp : {1, 2, 4, 8})
    add("tp " + std::to_string(tp) + " foreach",
        [&](const auto& p) { return rank_compute(tp, "foreach", 2, false, 1, 0, 1, p); });
  add("tp 1 fused", [&](const auto& p) { return rank_compute(1, "fused", 2, false, 1, 0, 1, p); });
  add("fsdp2 fused", [&](const auto& p) { return fsdp_fused_step(p); });
  for (int stage : {0, 1})
    add("stage " + std::to_string(stage),
        [&](const auto& p) { return rank_compute(1, "foreach", 2, false, 2, stage, 8, p); });
  for (int mb : {1, 2, 4})
    add("mb " + std::to_string(mb), [&](const auto& p) { return rank_compute(1, "foreach", mb, false, 1, 0, 1, p); });
  add("mb 2 ckpt", [&](const auto& p) { return rank_compute(1, "foreach", 2, true, 1, 0, 1, p); });
  return out;
}

void print(const std::vector<Row>& table) {
  std::printf("\n%-12s %9s %11s %7s %10s %7s\n", "H100 step", "measured", "HBM-scaled", "error", "stream+SM", "error");
  for (const Row& r : table)
    std::printf("%-12s %9.1f %11.1f %+6.1f%% %10.1f %+6.1f%%\n", r.name.c_str(), r.measured * 1e3, r.before * 1e3,
                100 * r.error_before(), r.predicted * 1e3, 100 * r.error());
}

}  // namespace

TEST_CASE("validation: the catalog's p5.48xlarge GPU is the measured H100 80GB HBM3", "[validation]") {
  // info.txt: NVIDIA H100 80GB HBM3, 132 SMs, 700 W limit; the catalog's datasheet numbers.
  const auto info = rows_h100x1_compute_validation("tp_rank.jsonl", "info");
  REQUIRE(info.size() == 1);
  CHECK(info[0]["name"] == "NVIDIA H100 80GB HBM3");
  CHECK(h100().name == "H100");
  CHECK(h100().bf16_flops == 989e12);
  CHECK(h100().hbm_bytes_per_s == 3350e9);
}

TEST_CASE("validation: the H200's GEMM law predicts the H100's model-layer shapes", "[validation]") {
  // gemm.jsonl, src "model": the H200's 183 rows (138 shapes, some under several layers' tags;
  // decoder, GPT-3 175B, Llama-3-70B at TP 1-8). Same datasheet peaks (989 / 1979 TFLOP/s dense),
  // so the transferred law is the H200's; the H100 ran the shapes at the H200's times (median ratio
  // 1.004 bf16, 1.005 fp8). Measured: |error| median 5.7 % bf16 (H200 5.6 %), 4.6 % fp8 (2.9 %);
  // max 17.7 % bf16, 40.5 % fp8: Llama-3-70B's TP-1 head dgrad in fp8 (17.6 TFLOP, 19.5 ms; the
  // H200 ran it in 14.1) at 1,260 MHz, 694 W, under the board's power cap; the law is the GPU's
  // rate at the clocks a short run holds, the power limit is a step-level term (gpu_rates.hpp).
  for (const char* dtype : {"bf16", "fp8_e4m3"}) {
    const bool fp8 = std::string(dtype) == "fp8_e4m3";
    const auto law = models::compute::make_gpu_rates(h100(), fp8 ? Precision::Fp8 : Precision::Bf16, {}).gemm;
    std::vector<double> err;
    for (const json& r : rows_h100x1_compute_validation("gemm.jsonl", "gemm")) {
      if (r["src"] != "model" || r["dtype"] != dtype || (fp8 && r["fast_accum"].get<bool>())) continue;
      const double t = models::compute::gemm_seconds(law, r["m"], r["n"], r["k"]);
      err.push_back(std::abs(t / r["median_s"].get<double>() - 1));
    }
    const double med = median(err), max = *std::max_element(err.begin(), err.end());
    std::printf("GEMM model rows %s: %zu rows, |error| median %.1f %%, max %.1f %%\n", dtype, err.size(), 100 * med,
                100 * max);
    CHECK(err.size() == 183);
    CHECK(med < (fp8 ? 0.05 : 0.065));
    CHECK(max < (fp8 ? 0.42 : 0.19));
  }
}

// Every step, predicted with the H200's rates and the transfer rule, against the H100 (mean of the
// repeats). Measured here (ms; HBM-scaled is the rule before this check, every memory-bound rate x
// 3.35 / 4.8):
//   step          measured  HBM-scaled          stream + SM (the rule now)
//   tp 1 foreach     124.0  130.4 (+5.2 %)      124.5 (+0.5 %)
//   tp 2 foreach      69.3   74.2 (+7.1 %)       70.7 (+2.0 %)
//   tp 4 foreach      43.3   46.2 (+6.6 %)       43.8 (+1.1 %)
//   tp 8 foreach      30.4   32.1 (+5.5 %)       30.3 (-0.4 %)
//   tp 1 fused       105.2  108.1 (+2.8 %)      105.2 (-0.0 %)
//   fsdp2 fused      137.6  142.1 (+3.3 %)      136.8 (-0.6 %)
//   stage 0          371.7  369.7 (-0.5 %)      364.3 (-2.0 %)
//   stage 1          422.3  427.2 (+1.2 %)      418.1 (-1.0 %)
//   mb 1              79.9   88.8 (+11.1 %)      84.0 (+5.1 %)
//   mb 2             124.0  130.4 (+5.1 %)      124.5 (+0.4 %)
//   mb 4             212.8  220.1 (+3.4 %)      214.3 (+0.7 %)
//   mb 2 ckpt        145.6  156.2 (+7.3 %)      151.8 (+4.3 %)
//   |error|          median 5.2 %, max 11.1 %   median 0.8 %, max 5.1 %
// The HBM-scaled rule was high on 10 of 12, most where AdamW weighs most (micro-batch 1). The
// largest remaining: micro-batch 1 (+5.1 %: its optimizer, 35.6 ms of 80, is predicted 5 % high)
// and checkpointing (+4.3 %: on this host the GPU idled 3.8 ms of the step, not the H200 host's
// 25.7, so the kernels' model, 4 % high here, shows).
TEST_CASE("validation: one H100's steps predicted from the H200's rates (out of sample)", "[validation]") {
  const std::vector<Row> table = step_rows();
  print(table);
  std::vector<double> err, before;
  for (const Row& r : table) {
    err.push_back(std::abs(r.error()));
    before.push_back(std::abs(r.error_before()));
  }
  std::printf("|error| median %.1f %%, max %.1f %% (HBM-scaled: median %.1f %%, max %.1f %%)\n", 100 * median(err),
              100 * *std::max_element(err.begin(), err.end()), 100 * median(before),
              100 * *std::max_element(before.begin(), before.end()));
  for (const Row& r : table) {
    INFO(r.name << ": measured " << r.measured << " s, model " << r.predicted << " s");
    CHECK(std::abs(r.error()) < 0.06);  // max 5.1 % (micro-batch 1)
  }
  CHECK(median(err) < 0.015);    // 0.8 %
  CHECK(median(before) > 0.04);  // the HBM-scaled rule: 5.2 %
}

// Where the HBM-scaled rule missed: the plain TP-1 step's kernel classes (tp_rank.jsonl, both runs
// averaged) against the model's terms without launch gaps. The H100 ran its GEMMs and attention at
// the H200's times (the same datasheet peaks) and its AdamW and memory-bound kernels 1.26-1.30x
// slower than the H200 (foreach optimizer 35.6 vs 28.2 ms, norms/SwiGLU/loss/copies 13.2 vs 11.0),
// not 4.8 / 3.35 = 1.43x.
TEST_CASE("validation: the H100's memory-bound kernel classes against the model's terms", "[validation]") {
  std::map<std::string, double> cls;
  int n = 0;
  for (const json& r : rows_h100x1_compute_validation("tp_rank.jsonl", "rank_step"))
    if (r["mode"] == "plain" && r["adamw"] == "foreach" && r["tp"] == 1) {
      ++n;
      for (const auto& [k, v] : r["class_us_per_step"].items()) cls[k] += v.get<double>() * 1e-6;
    }
  REQUIRE(n == 2);
  for (auto& [k, v] : cls) v /= n;
  const models::model::ModelShape m = decoder();
  const models::ScenarioSpec spec = spec_of(2, false, "bf16", "foreach");
  ParallelLayout layout;
  layout.strategy = Strategy::Megatron;
  const auto plan = optimizer_plan(spec.training, Strategy::Megatron);
  auto breakdown = [&](const std::map<std::string, double>& params) {
    std::map<std::string, double> p = params;
    p["compute.launch_gap"] = 0;
    return single_gpu_breakdown(m, 2, false, false, 2, plan, power_capped_rates(spec, m, layout, rates(p)));
  };
  const SingleGpuTerms now = breakdown({}), old = breakdown(hbm_scaled_rule());
  const double memory = cls["copies"] + cls["other"];
  std::printf(
      "\nH100 TP-1 classes (ms): optimizer %.1f measured, %.1f HBM-scaled, %.1f stream+SM; memory-bound "
      "%.1f measured, %.1f HBM-scaled, %.1f stream+SM; GEMM %.1f measured, %.1f model\n",
      cls["optimizer"] * 1e3, old.optimizer * 1e3, now.optimizer * 1e3, memory * 1e3, old.memory * 1e3,
      now.memory * 1e3, cls["gemm"] * 1e3, now.gemm * 1e3);
  CHECK(old.optimizer / cls["optimizer"] > 1.12);                  // the miss the rule had
  CHECK(now.optimizer == Approx(cls["optimizer"]).epsilon(0.07));  // 37.6 vs 35.7 ms (HBM-scaled 41.2)
  CHECK(now.memory == Approx(memory).epsilon(0.10));               // 12.3 vs 13.2 ms (HBM-scaled 14.5)
  CHECK(now.gemm == Approx(cls["gemm"]).epsilon(0.03));            // 67.0 vs 65.9 ms
}
