#include "models/calibrate/fit.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

#include "models/error.hpp"
#include "models/nccl/collective.hpp"
#include "models/nccl/comm_plan.hpp"
#include "models/nccl/link_params.hpp"
#include "models/nccl/tuning.hpp"
#include "models/world.hpp"
#include "sim/flow_network.hpp"

namespace models::calibrate {

namespace {
using nccl::CollOp;
using nccl::Proto;

// One measured point, reduced to the linear model's features.
struct Sample {
  int cls = 0;           // LinkClass index
  int proto = 0;
  double steps = 0;      // hop count on the critical path
  double x = 0;          // bytes / (raw bandwidth x channel share): seconds at efficiency 1
  double measured_s = 0;
  PointFit* out = nullptr;
};

constexpr int kParamsPerClass = 6;  // hop[3], u[3]
constexpr double kPriorWeight = 0.03;

Sample make_sample(const nccl::CommPlan& plan, const nccl::TuningEnv& env, CollOp op, int64_t bytes,
                   double measured_us, PointFit* out) {
  Sample s;
  const nccl::Choice c = nccl::choose(plan.view, env, op, bytes);
  const int n = plan.view.nranks;
  const nccl::Edge& e = plan.ring_edges.front();
  s.cls = static_cast<int>(e.link_class);
  s.proto = static_cast<int>(c.proto);
  const double share = static_cast<double>(c.channels) / plan.channels_ref;
  double edge_bytes = bytes;
  if (c.algo == nccl::Algo::Tree) {
    s.steps = 2.0 * (n / plan.view.nnodes - 1);
  } else {
    switch (op) {
      case CollOp::AllReduce: edge_bytes = 2.0 * (n - 1) / n * bytes; s.steps = 2.0 * (n - 1); break;
      case CollOp::AllGather:
      case CollOp::ReduceScatter: edge_bytes = (n - 1.0) / n * bytes; s.steps = n - 1; break;
      default: s.steps = n - 1; break;
    }
  }
  s.x = edge_bytes / (e.raw_bandwidth * share);
  s.measured_s = measured_us * 1e-6;
  out->algo = nccl::algo_name(c.algo);
  out->proto = nccl::proto_name(c.proto);
  s.out = out;
  return s;
}

// Solves one class's (hop[3], u[3]) for device-bound samples with priors and bounds.
Eigen::VectorXd solve_class(const std::vector<const Sample*>& samples, double kernel_s,
                            const Eigen::VectorXd& prior) {
  std::vector<bool> fixed(kParamsPerClass, false);
  Eigen::VectorXd theta = prior;
  for (int iter = 0; iter < kParamsPerClass + 1; ++iter) {
    const int rows = static_cast<int>(samples.size()) + kParamsPerClass;
    Eigen::MatrixXd A = Eigen::MatrixXd::Zero(rows, kParamsPerClass);
    Eigen::VectorXd b = Eigen::VectorXd::Zero(rows);
    int r = 0;
    for (const Sample* s : samples) {
      const double w = 1.0 / s->measured_s;  // relative error
      A(r, s->proto) = s->steps * w;
      A(r, 3 + s->proto) = s->x * w;
      b(r) = (s->measured_s - kernel_s) * w;
      ++r;
    }
    for (int j = 0; j < kParamsPerClass; ++j, ++r) {  // weak prior: (theta_j - prior_j) / prior_j
      const double scale = std::max(std::fabs(prior(j)), 1e-9);
      A(r, j) = kPriorWeight / scale;
      b(r) = kPriorWeight * prior(j) / scale;
    }
    // Fixed parameters move to the right-hand side.
    for (int j = 0; j < kParamsPerClass; ++j)
      if (fixed[j]) {
        b -= A.col(j) * theta(j);
        A.col(j).setZero();
      }
    Eigen::VectorXd sol = A.colPivHouseholderQr().solve(b);
    bool changed = false;
    for (int j = 0; j < kParamsPerClass; ++j) {
      if (fixed[j]) continue;
      theta(j) = sol(j);
      const double lo = j < 3 ? 0.0 : 1.0;  // hop >= 0, u = 1/efficiency >= 1
      if (theta(j) < lo) {
        theta(j) = lo;
        fixed[j] = true;
        changed = true;
      }
    }
    if (!changed) break;
  }
  return theta;
}

double device_time(const Sample& s, const Eigen::VectorXd& theta, double kernel_s) {
  return kernel_s + s.steps * theta(s.proto) + s.x * theta(3 + s.proto);
}
}  // namespace

FitResult fit_link_params(const std::vector<Measurement>& measurements) {
  FitResult fit;
  nccl::LinkParams defaults = nccl::LinkParams::defaults();
  std::vector<Sample> samples;
  // Stable storage for the per-point outputs.
  std::size_t total = 0;
  for (const auto& m : measurements) total += m.run.rows.size();
  fit.points.reserve(total);
  std::set<int> classes;
  for (const auto& m : measurements) {
    nccl::LinkParams p = defaults;
    p.apply(m.spec.cluster.params);
    sim::Simulator sim;
    sim::FlowNetwork net(sim);
    auto world = World::build(m.spec, net);
    std::vector<int> ranks(world->size());
    for (int i = 0; i < world->size(); ++i) ranks[i] = i;
    if (world->size() < 2) throw SpecError("cluster", "calibration needs at least 2 ranks in " + m.run.source);
    const nccl::CommPlan plan = nccl::build_plan(*world, net, ranks);
    const nccl::TuningEnv env = nccl::TuningEnv::from(m.spec.nccl_env);
    CollOp op;
    if (!nccl::parse_coll_op(m.run.op.empty() ? "all_reduce" : m.run.op, op))
      throw SpecError("", "unsupported collective '" + m.run.op + "' in " + m.run.source);
    fit.classes[m.run.source] = link_class_name(plan.ring_edges.front().link_class);
    for (const auto& row : m.run.rows) {
      if (row.size_bytes <= 0) continue;
      const double t = row.ip ? 0.5 * (row.oop.time_us + row.ip->time_us) : row.oop.time_us;
      fit.points.push_back(PointFit{m.run.source, row.size_bytes, t, 0, "", ""});
      samples.push_back(make_sample(plan, env, op, row.size_bytes, t, &fit.points.back()));
      classes.insert(samples.back().cls);
    }
  }
  if (samples.empty()) throw SpecError("", "no measurements to fit");

  const double kernel_s = defaults.kernel_latency_s;
  double best_cost = -1, best_launch = defaults.launch_overhead_s;
  std::map<int, Eigen::VectorXd> best_theta;
  auto prior_of = [&](int cls) {
    Eigen::VectorXd pr(kParamsPerClass);
    const auto& cp = defaults.by_class[cls];
    for (int j = 0; j < 3; ++j) {
      pr(j) = cp.hop_latency_s[j];
      pr(3 + j) = 1.0 / cp.efficiency[j];
    }
    return pr;
  };
  for (double launch = 5e-6; launch <= 80e-6; launch += 0.25e-6) {
    std::map<int, Eigen::VectorXd> theta;
    for (int cls : classes) {
      std::vector<const Sample*> bound;
      for (const Sample& s : samples)
        if (s.cls == cls && s.measured_s > launch * 1.05) bound.push_back(&s);
      theta[cls] = solve_class(bound, kernel_s, prior_of(cls));
    }
    double cost = 0;
    for (const Sample& s : samples) {
      const double pred = std::max(launch, device_time(s, theta[s.cls], kernel_s));
      const double e = std::log(pred / s.measured_s);
      cost += e * e;
    }
    if (best_cost < 0 || cost < best_cost) {
      best_cost = cost;
      best_launch = launch;
      best_theta = theta;
    }
  }

  std::vector<double> errs;
  for (Sample& s : samples) {
    s.out->predicted_us = std::max(best_launch, device_time(s, best_theta[s.cls], kernel_s)) * 1e6;
    errs.push_back(std::fabs(s.out->rel_error()));
  }
  std::sort(errs.begin(), errs.end());
  fit.median_abs_error = errs[errs.size() / 2];
  if (errs.size() % 2 == 0) fit.median_abs_error = 0.5 * (errs[errs.size() / 2 - 1] + errs[errs.size() / 2]);
  fit.max_abs_error = errs.back();

  static const char* const kProto[3] = {"ll", "ll128", "simple"};
  fit.params["nccl.launch_overhead"] = best_launch;
  fit.params["nccl.kernel_latency"] = kernel_s;
  for (const auto& [cls, th] : best_theta) {
    const std::string c = link_class_name(static_cast<LinkClass>(cls));
    for (int j = 0; j < 3; ++j) {
      fit.params[c + ".hop_latency." + kProto[j]] = th(j);
      fit.params[c + ".efficiency." + kProto[j]] = 1.0 / th(3 + j);
    }
  }
  return fit;
}

std::string profile_toml(const FitResult& fit, const std::vector<std::string>& sources) {
  std::string out = "# commsim calibration profile, written by `commsim calibrate`.\n# Fitted from:\n";
  for (const auto& s : sources) {
    auto it = fit.classes.find(s);
    out += "#   " + s + (it != fit.classes.end() ? "  (" + it->second + ")" : "") + "\n";
  }
  char buf[160];
  std::snprintf(buf, sizeof buf, "# Fit quality: median |error| %.1f %%, max |error| %.1f %% over %zu points.\n",
                fit.median_abs_error * 100, fit.max_abs_error * 100, fit.points.size());
  out += buf;
  out += "# Units: seconds for latencies and overheads, fractions of raw link bandwidth for efficiencies.\n";
  out += "[params]\n";
  for (const auto& [name, value] : fit.params) {
    std::snprintf(buf, sizeof buf, "\"%s\" = %.6g\n", name.c_str(), value);
    out += buf;
  }
  return out;
}

}  // namespace models::calibrate
