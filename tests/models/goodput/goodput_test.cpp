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
  // Nothing fails: the work itself, and no checkpoint.
  GoodputInputs never = in;
  never.mtbf_s = INFINITY;
  const GoodputEstimate calm = estimate_goodput(never);
  CHECK(calm.goodput == 1);
  CHECK(calm.wall_s == in.work_s);
  CHECK(calm.plan == models::CheckpointPlan::NothingFails);
  CHECK(calm.interval_s == 0);  // no interval at all
  CHECK(calm.interval_steps == 0);
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
  CHECK(e.plan == models::CheckpointPlan::RunShorter);
  CHECK(e.interval_s > in.work_s);  // the interval it would use, unused
  CHECK(e.interval_wall_s == 0);
  CHECK(e.checkpoint_overhead_s == 0);
  CHECK(e.wall_s == Approx(86400 * std::exp(600.0 / 86400) * std::expm1(700.0 / 86400)));
  CHECK(e.rework_s + e.restart_overhead_s == Approx(e.wall_s - in.work_s));
  // Asynchronous: with no checkpoint there is no write to wait for after a restart, R alone.
  GoodputInputs async = in;
  async.async = true;
  async.blocking_s = 1;
  CHECK(estimate_goodput(async).wall_s == Approx(e.wall_s).epsilon(1e-15));
  // Whole steps nearest Daly's interval: 161 x 14 s = 2,254 s. One step longer than that, never
  // checkpointing still ends sooner: T_w0 = M e^(R/M) (e^(T_s/M) - 1) against T_w(tau), which
  // pays a checkpoint for one step of work it would save.
  const double tau = 14.0 * std::llround(daly_interval(30, 86400) / 14);
  REQUIRE(tau == 2254);
  GoodputInputs longer = in;
  longer.work_s = tau + 14;
  const GoodputEstimate l = estimate_goodput(longer);
  const double none = 86400 * std::exp(600.0 / 86400) * std::expm1(longer.work_s / 86400);
  CHECK(l.plan == models::CheckpointPlan::NeverSooner);
  CHECK(l.wall_s == Approx(none).epsilon(1e-12));
  CHECK(l.interval_s == tau);
  CHECK(l.interval_wall_s == Approx(expected_wall_time(longer.work_s, tau, 30, 600, 86400)).epsilon(1e-12));
  CHECK(l.interval_wall_s > l.wall_s);
  CHECK(l.checkpoint_overhead_s == 0);
  // Ten intervals of work: checkpointing is the faster plan, at its cost.
  longer.work_s = 10 * tau;
  const GoodputEstimate ten = estimate_goodput(longer);
  CHECK(ten.plan == models::CheckpointPlan::Interval);
  CHECK(ten.interval_s == tau);
  CHECK(ten.interval_wall_s == ten.wall_s);
  CHECK(ten.wall_s < 86400 * std::exp(600.0 / 86400) * std::expm1(longer.work_s / 86400));
  CHECK(ten.checkpoint_overhead_s > 0);
}

TEST_CASE("goodput: a checkpoint as long as the MTBF or longer: never checkpointing is the faster plan", "[goodput]") {
  // T_s = 10 h of 60 s steps, M = 3 h, delta = 10 h (slow storage), R = 10 min. delta >= 2M, so
  // tau_D = M = 180 steps; Daly's T_w every M: M e^(R/M) (e^((M + delta)/M) - 1) T_s/M = 795 h;
  // never checkpointing: M e^(R/M) (e^(T_s/M) - 1) = 85.7 h. The smaller is the plan.
  const double h = 3600, M = 3 * h, delta = 10 * h, R = 600, work = 10 * h;
  const GoodputEstimate e = estimate_goodput({.work_s = work,
                                              .step_s = 60,
                                              .blocking_s = delta,
                                              .write_s = delta,
                                              .async = false,
                                              .restart_s = R,
                                              .mtbf_s = M});
  CHECK(e.daly_s == M);
  CHECK(e.plan == models::CheckpointPlan::NeverSooner);
  CHECK(e.interval_s == M);
  CHECK(e.interval_wall_s == Approx(M * std::exp(R / M) * std::expm1((M + delta) / M) * work / M).epsilon(1e-12));
  CHECK(e.interval_wall_s / h == Approx(795.0).margin(0.5));
  CHECK(e.wall_s == Approx(M * std::exp(R / M) * std::expm1(work / M)).epsilon(1e-12));
  CHECK(e.wall_s / h == Approx(85.7).margin(0.05));
  CHECK(e.goodput == Approx(work / e.wall_s));
  CHECK(e.checkpoint_overhead_s == 0);
  CHECK(e.rework_s + e.restart_overhead_s == Approx(e.wall_s - work));
}

TEST_CASE("goodput: failures faster than any stretch of work: the run does not finish", "[goodput]") {
  // M = 0.1 s and a 600 s restart: e^(R/M) = e^6000 is beyond a double, with checkpoints or
  // without. The expected wall time is infinite: goodput 0, no split of it.
  const GoodputEstimate e = estimate_goodput(
      {.work_s = 1e6, .step_s = 10, .blocking_s = 30, .write_s = 30, .async = false, .restart_s = 600, .mtbf_s = 0.1});
  CHECK(std::isinf(e.wall_s));
  CHECK(e.goodput == 0);
  CHECK(std::isinf(e.interruptions));
  CHECK(e.checkpoint_overhead_s == 0);
  CHECK(e.rework_s == 0);
  CHECK(e.restart_overhead_s == 0);
  CHECK(e.plan == models::CheckpointPlan::Interval);  // both infinite: the interval, ties go to it
  CHECK(e.interval_steps == 1);
  // Finite but beyond any integer of days (1e283 s with a checkpoint every 10 s step): a number.
  const GoodputEstimate big = estimate_goodput(
      {.work_s = 1e6, .step_s = 10, .blocking_s = 30, .write_s = 30, .async = false, .restart_s = 600, .mtbf_s = 1});
  CHECK(std::isfinite(big.wall_s));
  CHECK(big.wall_s == Approx(std::exp(600.0) * std::expm1(40.0) * 1e6 / 10).epsilon(1e-12));
  CHECK(big.plan == models::CheckpointPlan::Interval);  // never checkpointing: e^(1e6), infinite
}
