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
    e.interval_s = in.work_s;
    e.interval_steps = std::max(1LL, std::llround(in.work_s / step));
    e.wall_s = in.work_s;
    return e;
  }
  const double restart = in.restart_s + (in.async ? in.write_s : 0);
  e.young_s = young_interval(in.blocking_s, in.mtbf_s);
  e.daly_s = daly_interval(in.blocking_s, in.mtbf_s);
  long long k = std::max(1LL, std::llround(e.daly_s / step));
  if (in.async) k = std::max(k, static_cast<long long>(std::ceil(in.write_s / step)));
  e.interval_steps = k;
  e.interval_s = static_cast<double>(k) * step;
  // A run no longer than one interval never checkpoints: one segment of the whole work, no
  // checkpoint cost, a failure losing what the run had done (Daly's law with tau = T_s, delta = 0).
  const bool never = e.interval_s >= in.work_s;
  const double tau = never ? in.work_s : e.interval_s, delta = never ? 0.0 : in.blocking_s;
  e.wall_s = expected_wall_time(in.work_s, tau, delta, restart, in.mtbf_s);
  e.goodput = in.work_s / e.wall_s;
  e.interruptions = e.wall_s / in.mtbf_s;
  // First-order split (goodput.hpp), scaled so the three add up to wall - work.
  const double c = delta / tau, l = (tau + delta) / (2 * in.mtbf_s), r = restart / in.mtbf_s,
               extra = e.wall_s - in.work_s, sum = c + l + r;
  if (sum > 0) {
    e.checkpoint_overhead_s = extra * c / sum;
    e.rework_s = extra * l / sum;
    e.restart_overhead_s = extra * r / sum;
  }
  return e;
}

}  // namespace models::goodput
