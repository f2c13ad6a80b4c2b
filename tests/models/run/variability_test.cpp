// The step over seeded GPU speeds (models/run/variability.hpp): the sampler's closed form first
// (the mean slowest of N draws is 1 + sigma E[max_N]), then the slowest-rank rule against every
// rank at its own speed (--full), determinism by seed, and the weak-scaling growth it explains.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "models/goodput/extreme.hpp"
#include "models/run/run.hpp"
#include "models/run/variability.hpp"
#include "models/spec.hpp"

using namespace models;

namespace {
ScenarioSpec step_on(const std::string& instance, int nodes, const std::string& strategy, int tp = 1, int pp = 1) {
  ScenarioSpec s;
  s.cluster.instance = instance;
  s.cluster.nodes = nodes;
  ModelSpec m;
  m.preset = "llama-3-8b";
  m.seq = 2048;
  s.model = m;
  s.training.micro_batch = 1;
  s.training.grad_accum = 2;
  s.training.grad_checkpointing = true;
  s.parallel.strategy = strategy;
  s.parallel.tp = tp;
  s.parallel.pp = pp;
  return s;
}

RunResult sampled(const ScenarioSpec& s, int samples, uint64_t seed, bool full) {
  RunOptions o;
  o.samples = samples;
  o.seed = seed;
  o.full = full;
  o.timeline = false;
  return run_scenario(s, o);
}
}  // namespace

TEST_CASE("variability: the mean slowest of N draws is 1 + sigma E[max_N]", "[models][goodput]") {
  // Closed form (models/goodput/extreme.hpp): each seed is a cluster of 256 GPUs; over 400 seeds
  // the mean of max_r c_r - 1 is sigma E[max_256] within 3 standard errors.
  const double sigma = 0.011;
  const std::vector<int> node_of(256, 0);
  constexpr int seeds = 400;
  double s = 0, s2 = 0;
  for (int seed = 1; seed <= seeds; ++seed) {
    const SpeedDraw d = draw_speeds(seed, 0, node_of, sigma, 0, 0);
    const double z = (d.max_scale - 1) / sigma;
    s += z;
    s2 += z * z;
  }
  const double mean = s / seeds, sd = std::sqrt(s2 / seeds - mean * mean);
  CHECK(std::fabs(mean - goodput::expected_max_normal(256)) < 3 * sd / std::sqrt(double(seeds)));
  // Rank r's GPU is the same GPU whatever the job's size (draws.hpp): the first 8 of 16 are the 8.
  const SpeedDraw a = draw_speeds(5, 0, std::vector<int>(8, 0), sigma, 0, 0);
  const SpeedDraw b = draw_speeds(5, 0, std::vector<int>(16, 0), sigma, 0, 0);
  for (int r = 0; r < 8; ++r) CHECK(a.compute_scale[r] == b.compute_scale[r]);
}

TEST_CASE("variability: seeded, and the deterministic step when sigma is 0", "[models][goodput]") {
  const ScenarioSpec s = step_on("p4d.24xlarge", 2, "ddp");
  const RunResult one = sampled(s, 3, 7, false), again = sampled(s, 3, 7, false), other = sampled(s, 3, 8, false);
  CHECK(one.variability.steps_s == again.variability.steps_s);
  CHECK(one.variability.steps_s != other.variability.steps_s);
  CHECK(one.step_time_s == Approx(one.variability.deterministic_step_s));
  // Every rank at the slowest of 16 draws of 1.1 %: slower than nominal.
  CHECK(one.variability.min_s > one.step_time_s);
  ScenarioSpec calm = s;
  calm.cluster.params["variability.gpu_speed_cv"] = 0;
  const RunResult flat = sampled(calm, 2, 7, false);
  for (double t : flat.variability.steps_s) CHECK(t == Approx(flat.step_time_s).epsilon(1e-12));
}

// The rule against the exact samples, same draws. Data parallel (every collective spans every
// rank): exact up to the others' compute overlapping communication. Measured gaps are stated.
TEST_CASE("variability: the slowest-rank rule against every rank at its own speed", "[models][goodput]") {
  struct Case {
    const char* name;
    ScenarioSpec spec;
    double tolerance;  // |rule - exact| / exact, each sample
  };
  ScenarioSpec tp_pp = step_on("p4d.24xlarge", 2, "megatron", 2, 2);
  tp_pp.training.grad_accum = 4;
  const std::vector<Case> cases = {
      {"ddp, 16 x A100", step_on("p4d.24xlarge", 2, "ddp"), 0.002},
      {"zero3, 16 x A100", step_on("p4d.24xlarge", 2, "zero3"), 0.002},
      {"megatron tp2 pp2, 16 x A100", tp_pp, 0.01},
  };
  for (const auto& c : cases) {
    INFO(c.name);
    const RunResult rule = sampled(c.spec, 3, 11, false), exact = sampled(c.spec, 3, 11, true);
    REQUIRE(rule.variability.steps_s.size() == 3);
    for (size_t k = 0; k < 3; ++k) {
      const double r = rule.variability.steps_s[k], e = exact.variability.steps_s[k];
      INFO("sample " << k << ": rule " << r << " s, exact " << e << " s, deterministic " << rule.step_time_s);
      CHECK(r >= e * (1 - 1e-9));  // an upper bound
      CHECK(r - e <= c.tolerance * e);
    }
  }
}

// [[stragglers]] multiply the drawn factors (a straggler is a GPU of the draw that is slower
// still): the slowest GPU a sample names is argmax_r c_r s_r, its factor c_r s_r.
TEST_CASE("variability: the slowest GPU named includes the [[stragglers]] factor", "[models][goodput]") {
  SpeedDraw d;
  d.compute_scale = {1.01, 1.02, 1.0, 0.99};
  const SlowestGpu plain = slowest_gpu(d, {});
  CHECK(plain.rank == 1);
  CHECK(plain.scale == 1.02);
  const SlowestGpu slowed = slowest_gpu(d, {1, 1, 1.3, 1});
  CHECK(slowed.rank == 2);
  CHECK(slowed.scale == 1.3);

  // Rank 5 of 16 A100 computes 1.3 x slower: 1.1 % draws never make another rank slower than it.
  ScenarioSpec s = step_on("p4d.24xlarge", 2, "ddp");
  s.stragglers.push_back({.ranks = {5}, .node = std::nullopt, .link = "", .compute_slowdown = 1.3});
  const RunResult r = sampled(s, 3, 1, false);
  const VariabilityResult& v = r.variability;
  REQUIRE(v.steps_s.size() == 3);
  std::vector<int> node_of;
  for (int k = 0; k < 16; ++k) node_of.push_back(k / 8);
  int median = 0;  // the median of three samples
  for (int k = 0; k < 3; ++k) {
    int below = 0;
    for (int j = 0; j < 3; ++j) below += v.steps_s[j] < v.steps_s[k];
    if (below == 1) median = k;
  }
  const SpeedDraw mid = draw_speeds(1, median, node_of, v.gpu_speed_cv, 0, 0);
  CHECK(v.slowest_rank == 5);
  CHECK(v.slowest_node == 0);
  CHECK(v.slowest_compute_scale == Approx(1.3 * mid.compute_scale[5]).epsilon(1e-12));
  char words[160];
  std::snprintf(
      words, sizeof words,
      "in the median sample rank 5 (node 0) is the slowest GPU, its compute x%.4f (x%.4f drawn, x1.3 [[stragglers]])",
      1.3 * mid.compute_scale[5], mid.compute_scale[5]);
  CHECK(v.who_waits.rfind(words, 0) == 0);
}

// --time-limit is one budget: each sample gets what the run has left (add_variability asks the
// elapsed time before each), a sample the limit stops is dropped, and no NaN enters the statistics.
TEST_CASE("variability: --samples within --time-limit stops, keeps the samples that finished", "[models][goodput]") {
  const ScenarioSpec s = step_on("p4d.24xlarge", 2, "ddp");
  const RunResult base = run_scenario(s);
  RunOptions o;
  o.samples = 5;
  o.seed = 7;
  o.timeline = false;
  o.time_limit_s = 100.0;
  // Plenty left for two samples, then none: two samples of five.
  int calls = 0;
  RunResult two = base;
  add_variability(two, s, o, [&calls] { return ++calls <= 2 ? 0.0 : 1e9; });
  CHECK(calls == 3);
  const VariabilityResult& v = two.variability;
  CHECK(v.sampled);
  CHECK(v.samples == 2);
  CHECK(v.samples_asked == 5);
  CHECK(v.stopped());
  const RunResult all = sampled(s, 5, 7, false);
  REQUIRE(v.steps_s.size() == 2);
  CHECK(v.steps_s[0] == all.variability.steps_s[0]);  // the same draws, in order
  CHECK(v.steps_s[1] == all.variability.steps_s[1]);
  CHECK(v.mean_s == Approx((v.steps_s[0] + v.steps_s[1]) / 2).epsilon(1e-15));
  CHECK(v.max_s == std::max(v.steps_s[0], v.steps_s[1]));
  const auto has_note = [](const RunResult& r, const std::string& note) {
    return std::find(r.notes.begin(), r.notes.end(), note) != r.notes.end();
  };
  CHECK(has_note(two, "variability: --time-limit ran out after 2 of 5 samples; the step's statistics are over those"));
  // A nanosecond left: the first sample is stopped by the limit; it is dropped, none finished.
  RunResult none = base;
  add_variability(none, s, o, [] { return 100.0 - 1e-9; });
  CHECK_FALSE(none.variability.sampled);
  CHECK(none.variability.samples == 0);
  CHECK(none.variability.stopped());
  CHECK(none.variability.steps_s.empty());
  CHECK(none.notes.back() == "variability: --time-limit ran out after 0 of 5 samples: no statistics");
  CHECK_FALSE(has_note(all, "variability: --time-limit ran out after 5 of 5 samples: no statistics"));
  // Without a limit every sample runs.
  CHECK_FALSE(all.variability.stopped());
  CHECK(all.variability.samples == 5);
}

// Under the slowest-rank rule with [[stragglers]], every rank computes at the slowest GPU's combined
// factor c_q s_q, not the straggler's s_r on top of the largest draw: a data-parallel step equals
// the exact samples (every rank at its own speed) within the rule's measured DDP gap.
TEST_CASE("variability: the rule with [[stragglers]] applies a straggler's factor once", "[models][goodput]") {
  // DDP: every collective waits for the straggler, which runs at its own combined factor. Megatron
  // tp 2 x pp 2 with a heavy straggler: the other stages keep the largest draw, not its speed (which
  // took the rule from +0.3 % to +8.7 % on a pipeline).
  ScenarioSpec ddp = step_on("p4d.24xlarge", 2, "ddp");
  ddp.stragglers.push_back({.ranks = {5}, .node = std::nullopt, .link = "", .compute_slowdown = 1.3});
  ScenarioSpec pipeline = step_on("p4d.24xlarge", 2, "megatron", 2, 2);
  pipeline.training.grad_accum = 4;
  pipeline.stragglers.push_back({.ranks = {5}, .node = std::nullopt, .link = "", .compute_slowdown = 1.5});
  for (const auto& [spec, tolerance] : {std::pair{ddp, 0.002}, std::pair{pipeline, 0.01}}) {
    INFO(spec.parallel.strategy);
    const RunResult rule = sampled(spec, 3, 1, false), exact = sampled(spec, 3, 1, true);
    REQUIRE(rule.variability.steps_s.size() == 3);
    for (size_t k = 0; k < 3; ++k) {
      const double r = rule.variability.steps_s[k], e = exact.variability.steps_s[k];
      INFO("sample " << k << ": rule " << r << " s, exact " << e << " s");
      CHECK(r >= e * (1 - 1e-9));
      CHECK(r - e <= tolerance * e);
    }
  }
}
