// Young/Daly intervals and Daly's expected wall time (goodput.hpp).
#include "models/goodput/goodput.hpp"

#include <algorithm>
#include <cmath>

namespace models::goodput {

double young_interval(double delta, double mtbf) { return std::sqrt(2 * delta * mtbf); }

double daly_interval(double delta, double mtbf) {
  if (delta >= 2 * mtbf) return mtbf;
  const double x = delta / (2 * mtbf);
  return std::sqrt(2 * delta * mtbf) * (1 + std::sqrt(x) / 3 + x / 9) - delta;
}

double expected_wall_time(double work, double tau, double delta, double restart, double mtbf) {
  if (!std::isfinite(mtbf)) return work + delta * std::floor(work / tau);
  // expm1 keeps the precision where (tau + delta) << M.
  return mtbf * std::exp(restart / mtbf) * std::expm1((tau + delta) / mtbf) * work / tau;
}

GoodputEstimate estimate_goodput(const GoodputInputs& in) {
  GoodputEstimate e;
  const double step = std::max(in.step_s, 1e-12);
  if (!std::isfinite(in.mtbf_s) || in.mtbf_s <= 0 || in.work_s <= 0) {  // nothing fails
    e.plan = CheckpointPlan::NothingFails;
    e.wall_s = in.work_s;
    return e;
  }
  e.young_s = young_interval(in.blocking_s, in.mtbf_s);
  e.daly_s = daly_interval(in.blocking_s, in.mtbf_s);
  // Whole steps, counted in double first: tau_D / step may exceed any integer when M is huge.
  double k = std::max(1.0, std::round(e.daly_s / step));
  if (in.async) k = std::max(k, std::ceil(in.write_s / step));
  const double tau = k * step;
  e.interval_s = tau;
  e.interval_steps = static_cast<long long>(std::min(k, 1e18));
  const double never = expected_wall_time(in.work_s, in.work_s, 0.0, in.restart_s, in.mtbf_s);  // T_w0
  double delta = 0, segment = in.work_s, restart = in.restart_s;  // the plan's: never, until decided
  if (tau >= in.work_s) {
    e.plan = CheckpointPlan::RunShorter;
    e.wall_s = never;
  } else {
    const double restart_ckpt = in.restart_s + (in.async ? in.write_s : 0);
    e.interval_wall_s = expected_wall_time(in.work_s, tau, in.blocking_s, restart_ckpt, in.mtbf_s);
    if (e.interval_wall_s <= never) {  // ties, and two infinities, to the interval
      e.plan = CheckpointPlan::Interval;
      e.wall_s = e.interval_wall_s;
      delta = in.blocking_s;
      segment = tau;
      restart = restart_ckpt;
    } else {
      e.plan = CheckpointPlan::NeverSooner;
      e.wall_s = never;
    }
  }
  if (!std::isfinite(e.wall_s)) {  // does not finish: no goodput, no split of an infinity
    e.wall_s = INFINITY;
    e.goodput = 0;
    e.interruptions = INFINITY;
    return e;
  }
  e.goodput = in.work_s / e.wall_s;
  e.interruptions = e.wall_s / in.mtbf_s;
  // First-order split (goodput.hpp), scaled so the three add up to wall - work.
  const double c = delta / segment, l = (segment + delta) / (2 * in.mtbf_s), r = restart / in.mtbf_s,
               extra = e.wall_s - in.work_s, sum = c + l + r;
  if (sum > 0) {
    e.checkpoint_overhead_s = extra * c / sum;
    e.rework_s = extra * l / sum;
    e.restart_overhead_s = extra * r / sum;
  }
  return e;
}

}  // namespace models::goodput
