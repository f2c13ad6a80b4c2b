#include "models/calibrate/fit_check.hpp"

#include <algorithm>
#include <cmath>

#include "models/calibrate/nccl_tests.hpp"
#include "models/error.hpp"

namespace models::calibrate {

void check_fit_with_engine(const std::vector<Measurement>& measurements, FitResult& fit) {
  std::size_t k = 0;  // fit.points holds every measurement's rows of positive size, in order
  std::vector<double> errs;
  for (const auto& m : measurements) {
    ScenarioSpec spec = m.spec;
    for (const auto& [name, value] : fit.params) spec.cluster.params[name] = value;
    nccl::CollOp op;
    if (!nccl::parse_coll_op(m.run.op.empty() ? "all_reduce" : m.run.op, op))
      throw SpecError("", "unsupported collective '" + m.run.op + "' in " + m.run.source);
    std::vector<int64_t> sizes;
    for (const auto& row : m.run.rows)
      if (row.size_bytes > 0) sizes.push_back(row.size_bytes);
    if (sizes.empty()) continue;
    std::vector<double> engine;
    for (const auto& row : run_nccl_tests_at(spec, op, sizes)) engine.push_back(row.best_time_us());
    for (double us : engine) {
      if (k >= fit.points.size()) break;
      PointFit& p = fit.points[k++];
      p.engine_us = us;
      errs.push_back(std::fabs(p.engine_rel_error()));
    }
  }
  if (errs.empty()) return;
  std::sort(errs.begin(), errs.end());
  const std::size_t n = errs.size();
  fit.engine_median_abs_error = n % 2 ? errs[n / 2] : 0.5 * (errs[n / 2 - 1] + errs[n / 2]);
  fit.engine_max_abs_error = errs.back();
}

}  // namespace models::calibrate
