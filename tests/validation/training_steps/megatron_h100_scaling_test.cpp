// Megatron-Core r0.8.0's published scaling on H100 (Megatron-LM README: images/model_table.png, the
// weak scaling of GPT 1.7B-462B on 48-6,144 H100, TFLOP/s per GPU end to end; and its strong scaling
// of the 177B model from 96 to 4,608 H100, MFU 47 -> 42 %), against
// scenarios/validation/megatron_h100/*.toml with the defaults a user gets (no profile). Held out:
// nothing in commsim was fitted on these rows, and they were added after the compute and network
// models were set.
//
// The table gives each run's TP, PP, DP and batch, not its micro-batch size or its interleaving, and
// both move the step: the scenarios state one choice (micro-batch 1; one layer per model chunk, the
// only interleaving the 92- and 112-layer rows allow besides none), and each row is also run over
// the others that fit in memory (micro-batch 1, 2, 4; no interleaving) to see whether any of them
// reaches the published time. The published time is Megatron's num_floating_point_operations
// (which commsim's throughput counts the same way) over TFLOP/s x GPUs.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "models/run/run.hpp"
#include "scenarios/load/loader.hpp"

namespace fs = std::filesystem;

namespace {

const fs::path kH100WeakDir = fs::path(COMMSIM_SOURCE_DIR) / "scenarios/validation/megatron_h100";

struct H100WeakRow {
  std::string name;
  int gpus = 0;
  double published_s = 0, predicted_s = 0;
  double fastest_s = 0, slowest_s = 0;  // over the micro-batches and interleavings that fit
  double error() const { return predicted_s / published_s - 1; }
};

double h100_published_number(const fs::path& file, const std::string& name) {
  std::ifstream in(file);
  const std::string tag = "# " + name + ": ";
  for (std::string line; std::getline(in, line) && line.rfind("#", 0) == 0;)
    if (line.rfind(tag, 0) == 0) return std::stod(line.substr(tag.size()));
  return 0;
}

H100WeakRow h100_weak_row(const fs::path& file) {
  H100WeakRow r;
  r.name = file.stem().string();
  const auto loaded = scenarios::load_scenario(file.string());
  const models::RunResult res = models::run_scenario(loaded.spec);
  r.predicted_s = res.step_time_s;
  r.gpus = int(res.ranks.size());
  r.published_s = res.throughput.model_flops_per_step /
                  (h100_published_number(file, "published_model_tflops_per_gpu") * 1e12 * double(res.ranks.size()));
  r.fastest_s = r.slowest_s = r.predicted_s;
  const auto& par = loaded.spec.parallel;
  const int dp = int(res.ranks.size()) / (par.tp * par.pp);
  const int per_replica = loaded.spec.training.global_batch / dp;
  const std::vector<int> vps = par.vp > 1 ? std::vector<int>{1, par.vp} : std::vector<int>{1};
  for (int mbs : {1, 2, 4}) {
    if (per_replica % mbs) continue;
    for (int vp : vps) {
      if (mbs == loaded.spec.training.micro_batch && vp == par.vp) continue;  // the stated run, above
      const auto other = scenarios::load_scenario(
          file.string(), {"training.micro_batch=" + std::to_string(mbs), "parallel.vp=" + std::to_string(vp)});
      const models::RunResult o = models::run_scenario(other.spec);
      if (!o.fits()) continue;
      r.fastest_s = std::min(r.fastest_s, o.step_time_s);
      r.slowest_s = std::max(r.slowest_s, o.step_time_s);
    }
  }
  return r;
}

}  // namespace

TEST_CASE("Megatron-Core r0.8.0 on 48 to 6144 H100: the published weak scaling with the defaults",
          "[validation][megatron]") {
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(kH100WeakDir))
    if (e.path().extension() == ".toml" && e.path().stem().string().rfind("weak_", 0) == 0) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  REQUIRE(files.size() == 9);

  std::vector<H100WeakRow> rows;
  for (const auto& f : files) rows.push_back(h100_weak_row(f));
  std::sort(rows.begin(), rows.end(), [](const H100WeakRow& a, const H100WeakRow& b) { return a.gpus < b.gpus; });
  std::vector<double> abs_errors;
  std::printf(
      "| scenario | GPUs | published (s) | commsim (s) | error | commsim over micro-batch and interleaving (s) |\n"
      "|---|---:|---:|---:|---:|---|\n");
  for (const auto& r : rows) {
    std::printf("| %s | %d | %.3f | %.3f | %+.1f %% | %.3f - %.3f |\n", r.name.c_str(), r.gpus, r.published_s,
                r.predicted_s, 100 * r.error(), r.fastest_s, r.slowest_s);
    abs_errors.push_back(std::fabs(r.error()));
  }
  std::sort(abs_errors.begin(), abs_errors.end());
  const double median = abs_errors[abs_errors.size() / 2];
  std::printf("median |error| %.1f %%\n", 100 * median);

  // What docs/accuracy.md reports ("Megatron-Core on H100"): with the stated choices the median
  // row is 11 % off, the model too fast on seven rows.
  CHECK(median < 0.12);
  for (const auto& r : rows) {
    INFO(r.name);
    CHECK(r.error() > -0.16);
    CHECK(r.error() < 0.35);
    CHECK(r.fastest_s <= r.slowest_s);
  }
  // Some micro-batch and interleaving that fits reaches the published time on every row from 16B,
  // and on none of the two smallest: there the model is faster than any choice (what is missing
  // there is not found: docs/accuracy.md).
  int bracketed = 0;
  for (const auto& r : rows) bracketed += r.fastest_s <= r.published_s && r.published_s <= r.slowest_s;
  CHECK(bracketed == 7);
  for (const auto& r : rows)
    if (r.name == "weak_1p7b" || r.name == "weak_7p1b") CHECK(r.slowest_s < r.published_s);
}

namespace {

// The strong-scaling text's MFU (Megatron's FLOPs over the H100's 989 TFLOP/s dense bf16 peak, which
// commsim's throughput uses too) against commsim's, as a time error: published MFU / commsim's - 1.
double h100_strong_error(const std::string& stem) {
  const fs::path file = kH100WeakDir / (stem + ".toml");
  const auto loaded = scenarios::load_scenario(file.string());
  const models::RunResult res = models::run_scenario(loaded.spec);
  const double published = h100_published_number(file, "published_mfu");
  std::printf("%s: published MFU %.2f, commsim %.3f, time error %+.1f %%\n", stem.c_str(), published,
              res.throughput.mfu, 100 * (published / res.throughput.mfu - 1));
  return published / res.throughput.mfu - 1;
}

}  // namespace

// docs/accuracy.md ("Megatron-Core on H100"): 177B with 1,152 sequences per step on 4,608 H100
// (DP 96) is as far off as the weak table's 2,304-GPU row, 11-14 % fast.
TEST_CASE("Megatron-Core r0.8.0 strong scaling: 177B on 4608 H100 within the weak table's error",
          "[validation][megatron]") {
  const double e = h100_strong_error("strong_4608");
  CHECK(e < -0.08);
  CHECK(e > -0.16);
}

// The same model on 96 H100 (DP 2: 576 micro-batches per step, ~14 s of CPU): 47 % MFU published,
// and the model's loss of MFU from 96 to 4,608 GPUs within 3 points of the published 47 -> 42 %.
TEST_CASE("Megatron-Core r0.8.0 strong scaling: 177B from 96 to 4608 H100", "[.long][long][megatron]") {
  const double e96 = h100_strong_error("strong_96"), e4608 = h100_strong_error("strong_4608");
  CHECK(e96 < -0.08);
  CHECK(e96 > -0.18);
  // MFU ratio 4,608 over 96: published 42/47; commsim's = (1 + e96) / (1 + e4608) x 42/47.
  const double published_ratio = 0.42 / 0.47, model_ratio = published_ratio * (1 + e96) / (1 + e4608);
  CHECK(std::fabs(model_ratio - published_ratio) < 0.03);
}
