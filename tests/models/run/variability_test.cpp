// The step over seeded GPU speeds (models/run/variability.hpp): the sampler's closed form first
// (the mean slowest of N draws is 1 + sigma E[max_N]), then the slowest-rank rule against every
// rank at its own speed (--full), determinism by seed, and the weak-scaling growth it explains.
#include <catch2/catch.hpp>

#include <cmath>

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
