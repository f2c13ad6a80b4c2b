// How run's goodput lines write durations and dollars (scenarios/cli/output/goodput_format.hpp).
#include <catch2/catch.hpp>

#include <limits>

#include "scenarios/cli/output/goodput_format.hpp"

using scenarios::goodput_duration;

TEST_CASE("goodput: a duration of a day or more is days and hours, to the nearest hour", "[scenarios]") {
  constexpr double kHour = 3600;
  CHECK(goodput_duration(48.85 * kHour) == "2 d 01 h");  // 48 h 51 min: rounded, not cut to 2 d 00 h
  CHECK(goodput_duration(48.4 * kHour) == "2 d 00 h");
  CHECK(goodput_duration(47.6 * kHour) == "2 d 00 h");  // rounds into the next day
  CHECK(goodput_duration(24 * kHour) == "1 d 00 h");
  CHECK(goodput_duration(std::numeric_limits<double>::infinity()) == "never");
  CHECK(goodput_duration(1e4 * 86400 * 2) == "54.8 years");
}

namespace {
models::VariabilityResult sampled_variability(int samples) {
  models::VariabilityResult v;
  v.sampled = true;
  v.samples = v.samples_asked = samples;
  v.seed = 7;
  v.ranks = 256;
  v.gpu_speed_cv = 0.011;
  v.deterministic_step_s = 1.0;
  v.median_s = 1.02, v.p99_s = 1.04, v.max_s = 1.05, v.mean_s = 1.021;
  v.slowdown = 0.021;
  v.expected_max_z = 2.83, v.closed_form_slowdown = 0.0311;
  return v;
}
}  // namespace

TEST_CASE("variability: N samples are N allocations: median and max, a p99 only from 100", "[scenarios]") {
  const auto few = scenarios::variability_lines(sampled_variability(16));
  REQUIRE(few.size() == 3);
  CHECK(few[0].rfind("step over 16 allocations (--samples: every GPU's speed drawn anew for each; seed 7, 256 GPUs, "
                     "GPU speed sigma 1.1 %): median 1.020 s, max 1.050 s, mean 1.021 s",
                     0) == 0);
  CHECK(few[0].find("p99") == std::string::npos);
  CHECK(scenarios::variability_json(sampled_variability(16))["step_p99_s"].is_null());
  const auto many = scenarios::variability_lines(sampled_variability(100));
  CHECK(many[0].find("median 1.020 s, p99 1.040 s, max 1.050 s, mean") != std::string::npos);
  CHECK(scenarios::variability_json(sampled_variability(100))["step_p99_s"] == 1.04);
}

TEST_CASE("variability: the cause line qualifies the slowest-rank rule with tensor or pipeline groups", "[scenarios]") {
  models::VariabilityResult v = sampled_variability(8);
  CHECK(scenarios::variability_lines(v)[1] ==
        "           cause: the slowest of 256 GPUs, E[max of 256 normals] = 2.83 sigma = +3.11 % slower compute; "
        "every rank at the slowest's speed");
  v.rule_upper_bound = true;
  CHECK(scenarios::variability_lines(v)[1].ends_with(
      "every rank at the slowest's speed: an upper bound with tensor/pipeline groups; --full for the exact figure"));
  v.rule_upper_bound = false;
  v.exact = true;
  CHECK(scenarios::variability_lines(v)[1].ends_with("every rank at its own speed (--full)"));
}

TEST_CASE("variability: a straggler that is the slowest GPU is the cause, not E[max of N]", "[scenarios]") {
  models::VariabilityResult v = sampled_variability(4);
  v.slowest_rank = 5, v.slowest_node = 0;
  v.slowest_compute_scale = 1.297, v.slowest_straggler_factor = 1.3;
  const std::string cause = scenarios::variability_lines(v)[1];
  CHECK(cause ==
        "           cause: a [[stragglers]] entry is the slowest GPU: rank 5 (node 0) computes x1.2970 "
        "(compute_slowdown 1.3 x its drawn x0.9977); it sets the step, not the slowest of 256 drawn speeds; every "
        "rank at the slowest's speed");
  CHECK(cause.find("E[max") == std::string::npos);
}
