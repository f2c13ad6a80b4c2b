// Young/Daly intervals and Daly's expected wall time (models/goodput/goodput.hpp): the closed forms,
// Daly's published examples, the optimum of the wall time, and a seeded simulation of failures.
#include <catch2/catch.hpp>

#include <cmath>

#include "models/goodput/draws.hpp"
#include "models/goodput/goodput.hpp"

using namespace models::goodput;

TEST_CASE("goodput: Young's interval is sqrt(2 delta M)", "[goodput]") {
  CHECK(young_interval(60, 86400) == Approx(std::sqrt(2 * 60.0 * 86400)));  // 3,220 s
  CHECK(young_interval(300, 86400) == Approx(7200));
}

TEST_CASE("goodput: Daly's interval reproduces his paper's examples", "[goodput]") {
  // Daly 2006, Fig. 3-5: delta = 5 min, R = 10 min; M = 24 h -> 117 min, 6 h -> 57 min, 15 min -> 9.1 min.
  CHECK(daly_interval(300, 86400) / 60 == Approx(117).margin(0.5));
  CHECK(daly_interval(300, 21600) / 60 == Approx(57).margin(0.5));
  CHECK(daly_interval(300, 900) / 60 == Approx(9.1).margin(0.05));
  CHECK(daly_interval(2000, 900) == 900);  // delta >= 2M: one MTBF
}

TEST_CASE("goodput: Daly's interval minimises his expected wall time", "[goodput]") {
  // Scan tau: the minimum of T_w(tau) sits within 1 % of tau_D (delta << M).
  const double delta = 30, R = 600, M = 11000, work = 1e6;
  double best = 0, best_t = INFINITY;
  for (double tau = 100; tau < 3000; tau += 0.5) {
    const double t = expected_wall_time(work, tau, delta, R, M);
    if (t < best_t) best_t = t, best = tau;
  }
  CHECK(best == Approx(daly_interval(delta, M)).epsilon(0.01));
  // Daly's equation, T_w = M e^(R/M) (e^((tau + delta)/M) - 1) T_s / tau, at tau_D; and its first
  // order, T_w / T_s - 1 = delta/tau + (tau + delta)/(2M) + R/M, whose omitted cross terms
  // ((R/M)(delta/tau + x/2) with x = (tau + delta)/M, and x^2/6) are ~6 % of the excess here.
  const double tau = daly_interval(delta, M);
  const double exact = M * std::exp(R / M) * (std::exp((tau + delta) / M) - 1) / tau;
  CHECK(expected_wall_time(work, tau, delta, R, M) / work == Approx(exact).epsilon(1e-12));
  const double first = delta / tau + (tau + delta) / (2 * M) + R / M;
  CHECK(expected_wall_time(work, tau, delta, R, M) / work - 1 == Approx(first).epsilon(0.08));
}

TEST_CASE("goodput: the expected wall time matches a seeded simulation of failures", "[goodput]") {
  // Each segment needs tau + delta failure-free; a failure loses the segment so far and costs a
  // restart R, which a failure can interrupt too. Exponential failures of mean M (inverse CDF).
  const double tau = 900, delta = 60, R = 300, M = 3000;
  constexpr int segments = 200000;
  double wall = 0;
  uint64_t i = 0;
  auto next_failure = [&] { return -M * std::log(uniform_draw(11, 0, i++)); };
  for (int s = 0; s < segments; ++s) {
    for (;;) {
      const double f = next_failure();
      if (f >= tau + delta) {
        wall += tau + delta;
        break;
      }
      wall += f;
      for (;;) {  // restart
        const double g = next_failure();
        if (g >= R) {
          wall += R;
          break;
        }
        wall += g;
      }
    }
  }
  CHECK(wall == Approx(expected_wall_time(segments * tau, tau, delta, R, M)).epsilon(0.01));
}

TEST_CASE("goodput: estimate rounds the interval to whole steps and splits the loss", "[goodput]") {
  GoodputInputs in{.work_s = 30 * 86400.0, .step_s = 10, .blocking_s = 30, .write_s = 30, .async = false,
                   .restart_s = 600, .mtbf_s = 11000};
  const GoodputEstimate e = estimate_goodput(in);
  CHECK(e.interval_steps == std::llround(daly_interval(30, 11000) / 10));
  CHECK(e.interval_s == 10.0 * e.interval_steps);
  CHECK(e.goodput == Approx(in.work_s / e.wall_s));
  CHECK(e.interruptions == Approx(e.wall_s / 11000));
  CHECK(e.checkpoint_overhead_s + e.rework_s + e.restart_overhead_s == Approx(e.wall_s - in.work_s));
  // Async: blocks for less, but a failure loses the write too, and checkpoints are >= W apart.
  GoodputInputs a = in;
  a.async = true;
  a.blocking_s = 1;
  a.write_s = 400;
  const GoodputEstimate ea = estimate_goodput(a);
  CHECK(ea.interval_s >= 400);
  CHECK(ea.wall_s == Approx(expected_wall_time(a.work_s, ea.interval_s, 1, 600 + 400, 11000)));
  // Nothing fails: the work itself.
  GoodputInputs never = in;
  never.mtbf_s = INFINITY;
  CHECK(estimate_goodput(never).goodput == 1);
}

TEST_CASE("goodput: a run shorter than the interval never checkpoints, and loses what it did on a failure",
          "[goodput]") {
  // 50 steps of 14 s (the seeds' run) with a one-day MTBF: Daly's interval is hours, longer than
  // the run. No checkpoint is written, so none is paid; a failure restarts the run from its start:
  // T_w = M e^(R/M) (e^(T_s/M) - 1).
  const GoodputInputs in{.work_s = 50 * 14.0,
                         .step_s = 14,
                         .blocking_s = 30,
                         .write_s = 30,
                         .async = false,
                         .restart_s = 600,
                         .mtbf_s = 86400};
  const GoodputEstimate e = estimate_goodput(in);
  CHECK(e.interval_s > in.work_s);
  CHECK(e.checkpoint_overhead_s == 0);
  CHECK(e.wall_s == Approx(86400 * std::exp(600.0 / 86400) * std::expm1(700.0 / 86400)));
  CHECK(e.rework_s + e.restart_overhead_s == Approx(e.wall_s - in.work_s));
  // One step longer than the interval: checkpoints again, at their cost.
  GoodputInputs longer = in;
  longer.work_s = e.interval_s + 14;
  CHECK(estimate_goodput(longer).checkpoint_overhead_s > 0);
}
