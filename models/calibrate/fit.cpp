#include "models/calibrate/fit.hpp"
#include "models/params.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <set>

#include "models/calibrate/nccl_tests.hpp"
#include "models/collectives/collective.hpp"
#include "models/comm_plan/comm_plan.hpp"
#include "models/comm_plan/link_params.hpp"
#include "models/error.hpp"
#include "models/nccl/tuning.hpp"
#include "models/world/world.hpp"
#include "sim/flow_network.hpp"

namespace models::calibrate {

namespace {
using nccl::CollOp;
using nccl::Proto;

// One measured point, reduced to the linear model's features.
struct Sample {
  int cls = 0;  // LinkClass index
  int proto = 0;
  double steps = 0;    // hop count on the critical path
  double x = 0;        // bytes / (raw bandwidth x channel share): seconds at efficiency 1
  double fixed_s = 0;  // kernel latency + steps x wire latency: known, not fitted
  // What the engine charges beyond the kernel, this class's steps and its bytes: on a ring across
  // nodes, the steps over the other classes' links and the pipeline's fill (engine_samples).
  double engine_rest_s = 0;
  double measured_s = 0;
  double target_s = 0;      // device time implied by the measurement for the current (launch, p)
  int gpus_per_thread = 1;  // nccl-tests -g N: the host's issue cost grows with it (LinkParams::launch_cost)
  bool on_envelope = true;  // not above the time of a larger size of the same run
  PointFit* out = nullptr;
};

constexpr int kParamsPerClass = 6;  // hop[3], u[3]
constexpr double kPriorWeight = 0.03;
// The most of a link's raw rate each protocol can carry as payload: LL stores 4 bytes of data
// with a 4-byte flag in each 8-byte line, LL128 120 of each 128-byte line (8 bytes of flags),
// Simple all of it (NCCL src/device/prims_ll.h, prims_ll128.h: NCCL_LL128_DATAELEMS 14 of 16).
constexpr double kPayloadCeiling[3] = {0.5, 120.0 / 128, 1.0};

Sample make_sample(const collectives::CommPlan& plan, const nccl::TuningEnv& env, CollOp op, int64_t bytes,
                   double measured_us, double kernel_s, PointFit* out) {
  Sample s;
  const nccl::Choice c = nccl::choose(plan.view, env, op, bytes);
  const int n = plan.view.nranks;
  const collectives::Edge& e = plan.rings.front().front();
  s.cls = static_cast<int>(e.link_class);
  s.proto = static_cast<int>(c.proto);
  const double share = static_cast<double>(c.channels) / plan.channels_ref;
  double edge_bytes = bytes;
  if (c.algo == nccl::Algo::Tree) {
    // Up and down: the chain inside a node and log2(nodes) levels of the binary trees (the
    // engine's tree latency; every hop here is of the file's one link class).
    s.steps = 2.0 * (n / plan.view.nnodes - 1 + std::log2(static_cast<double>(plan.view.nnodes)));
  } else {
    switch (op) {
      case CollOp::AllReduce:
        edge_bytes = 2.0 * (n - 1) / n * bytes;
        s.steps = 2.0 * (n - 1);
        break;
      case CollOp::AllGather:
      case CollOp::ReduceScatter:
        edge_bytes = (n - 1.0) / n * bytes;
        s.steps = n - 1;
        break;
      default: s.steps = n - 1; break;
    }
  }
  s.steps *= collectives::serial_channels(e.link_class, c.channels);
  s.x = edge_bytes / (e.raw_bandwidth * share);
  s.fixed_s = kernel_s;  // hop latencies include the wire (the engine does not add link latencies)
  s.measured_s = measured_us * 1e-6;
  out->algo = nccl::algo_name(c.algo);
  out->proto = nccl::proto_name(c.proto);
  s.out = out;
  return s;
}

// A file whose ring crosses two link classes (8 GPUs on each of 2 nodes: NVLink inside, the network
// between): its points are fitted on the binding class only (the slowest edge: every ring and tree
// step waits for it), the other class held at the defaults or the --fix values. The features come
// from the engine itself, as differences of its device time per size: at the defaults (T0), with
// the binding class's hop latencies raised by dh (Th), and with its inverse efficiencies u raised
// by du (Tu):
//   steps = (Th - T0) / dh,   x = (Tu - T0) / du,   rest = T0 - kernel - steps h0 - x u0
// so the linear model is the engine's tangent at the defaults, with whatever the engine charges for
// the ring's NVLink steps, its rings per NIC and its pipeline's fill. Exact where the engine's time
// is linear in h and u (the steps' latencies; the bytes over the bottleneck), a tangent elsewhere
// (the fill's min); the engine's own error with the fitted values is reported beside the fit's.
LinkClass binding_class(const collectives::CommPlan& plan, const collectives::LinkParams& lp) {
  const collectives::Edge* slowest = &plan.rings.front().front();
  const auto rate = [&](const collectives::Edge& e) {
    return e.raw_bandwidth * lp.by_class[static_cast<int>(e.link_class)].efficiency[static_cast<int>(Proto::Simple)];
  };
  for (const auto& ring : plan.rings)
    for (const auto& e : ring)
      if (rate(e) < rate(*slowest)) slowest = &e;
  return slowest->link_class;
}

std::vector<Sample> engine_samples(const Measurement& m, CollOp op, LinkClass cls, collectives::LinkParams lp,
                                   const std::map<std::string, double>& pinned, std::vector<PointFit>& points) {
  static const char* const kProtoKey[3] = {"ll", "ll128", "simple"};
  ScenarioSpec spec = m.spec;
  for (const auto& [name, value] : pinned) spec.cluster.params[name] = value;
  lp.apply(spec.cluster.params);
  const auto& cp = lp.by_class[static_cast<int>(cls)];
  const std::string prefix = link_class_name(cls);
  std::vector<int64_t> sizes;
  for (const auto& row : m.run.rows)
    if (row.size_bytes > 0) sizes.push_back(row.size_bytes);
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  constexpr double kDh = 10e-6;  // seconds added to each hop latency
  constexpr double kDu = 0.5;    // fraction added to each inverse efficiency
  const auto device = [&](const ScenarioSpec& sp) { return run_nccl_tests_at(sp, op, sizes); };
  const std::vector<NcclTestsRow> t0 = device(spec);
  ScenarioSpec hop = spec, eff = spec;
  for (int j = 0; j < 3; ++j) {
    hop.cluster.params[prefix + ".hop_latency." + kProtoKey[j]] = cp.hop_latency_s[j] + kDh;
    eff.cluster.params[prefix + ".efficiency." + kProtoKey[j]] = cp.efficiency[j] / (1 + kDu);
  }
  const std::vector<NcclTestsRow> th = device(hop), tu = device(eff);
  std::vector<Sample> out;
  for (const auto& row : m.run.rows) {
    if (row.size_bytes <= 0) continue;
    const std::size_t k = std::lower_bound(sizes.begin(), sizes.end(), row.size_bytes) - sizes.begin();
    const double t = row.ip ? std::min(row.oop.time_us, row.ip->time_us) : row.oop.time_us;
    points.push_back(PointFit{m.run.source, row.size_bytes, t, 0, t0[k].algo, t0[k].proto});
    Sample sm;
    sm.cls = static_cast<int>(cls);
    nccl::Proto proto = Proto::Simple;
    for (int j = 0; j < 3; ++j)
      if (t0[k].proto == nccl::proto_name(static_cast<Proto>(j))) proto = static_cast<Proto>(j);
    sm.proto = static_cast<int>(proto);
    const double h0 = cp.hop_latency_s[sm.proto], u0 = 1.0 / cp.efficiency[sm.proto];
    const double d0 = t0[k].device_us * 1e-6;
    sm.steps = std::max(0.0, (th[k].device_us * 1e-6 - d0) / kDh);
    sm.x = std::max(0.0, (tu[k].device_us * 1e-6 - d0) / (kDu * u0));
    sm.engine_rest_s = std::max(0.0, d0 - lp.kernel_latency_s - sm.steps * h0 - sm.x * u0);
    sm.measured_s = t * 1e-6;
    sm.out = &points.back();
    out.push_back(sm);
  }
  return out;
}

double device_time(const Sample& s, const Eigen::VectorXd& theta) {
  return s.fixed_s + s.steps * theta(s.proto) + s.x * theta(3 + s.proto);
}

// Solves one class's (hop[3], u[3]) for device-bound samples with priors and bounds. The loss is
// the absolute relative error (L1, by iteratively reweighted least squares): nccl-tests curves
// carry run-to-run outliers (a 2x spike at one size of a socket run, a slow start of a sweep)
// that squares would chase.
Eigen::VectorXd solve_class(const std::vector<const Sample*>& samples, const Eigen::VectorXd& prior,
                            const std::vector<bool>& pinned) {
  Eigen::VectorXd theta = prior;  // pinned parameters hold their (prior) value throughout
  std::vector<double> robust(samples.size(), 1.0);
  for (int irls = 0; irls < 8; ++irls) {
    std::vector<bool> fixed = pinned;
    for (int iter = 0; iter < kParamsPerClass + 1; ++iter) {
      const int rows = static_cast<int>(samples.size()) + kParamsPerClass;
      Eigen::MatrixXd A = Eigen::MatrixXd::Zero(rows, kParamsPerClass);
      Eigen::VectorXd b = Eigen::VectorXd::Zero(rows);
      int r = 0;
      for (std::size_t i = 0; i < samples.size(); ++i) {
        const Sample* s = samples[i];
        const double w = robust[i] / s->measured_s;  // relative error, reweighted
        A(r, s->proto) = s->steps * w;
        A(r, 3 + s->proto) = s->x * w;
        b(r) = (s->target_s - s->fixed_s) * w;
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
        const double lo = j < 3 ? 0.0 : 1.0 / kPayloadCeiling[j - 3];  // hop >= 0, efficiency <= its ceiling
        if (theta(j) < lo) {
          theta(j) = lo;
          fixed[j] = true;
          changed = true;
        }
      }
      if (!changed) break;
    }
    for (std::size_t i = 0; i < samples.size(); ++i) {
      const double r = std::fabs(device_time(*samples[i], theta) / samples[i]->target_s - 1);
      robust[i] = 1.0 / std::sqrt(std::max(r, 0.01));  // squared weight 1/|r|: an L1 fit
    }
  }
  return theta;
}
}  // namespace

bool fits_collective(nccl::CollOp op) { return op == CollOp::AllReduce || op == CollOp::AllGather; }

FitResult fit_link_params(const std::vector<Measurement>& measurements, const std::map<std::string, double>& pinned) {
  FitResult fit;
  collectives::LinkParams defaults = collectives::LinkParams::defaults();
  std::vector<Sample> samples;
  // Stable storage for the per-point outputs.
  std::size_t total = 0;
  for (const auto& m : measurements) total += m.run.rows.size();
  fit.points.reserve(total);
  std::set<int> classes;
  for (const auto& m : measurements) {
    sim::Simulator sim;
    sim::FlowNetwork net(sim);
    check_params(m.spec.cluster.params);
    auto world = World::build(m.spec, net);
    // The fit starts from the first cluster's defaults (EFA by generation: LinkParams::for_node).
    if (&m == &measurements.front()) defaults = collectives::LinkParams::for_world(*world);
    std::vector<int> ranks(world->size());
    for (int i = 0; i < world->size(); ++i) ranks[i] = i;
    if (world->size() < 2) throw SpecError("cluster", "calibration needs at least 2 ranks in " + m.run.source);
    const collectives::CommPlan plan = collectives::build_plan(*world, net, ranks);
    const nccl::TuningEnv& env = world->nccl_env().tuning;
    CollOp op;
    if (!nccl::parse_coll_op(m.run.op.empty() ? "all_reduce" : m.run.op, op))
      throw SpecError("", "unsupported collective '" + m.run.op + "' in " + m.run.source);
    if (!fits_collective(op))
      throw SpecError("", m.run.source + " is " + m.run.op + ", which calibrate does not fit " + kFittedCollectives);
    // One link class per file is fitted on the ring's own step count (make_sample); a ring that
    // crosses two (NVLink inside nodes and a NIC between them) on the engine's tangent, the slower
    // class fitted and the other held (engine_samples).
    std::set<LinkClass> crossed;
    for (const auto& ring : plan.rings)
      for (const auto& e : ring) crossed.insert(e.link_class);
    const std::size_t first = samples.size();
    if (crossed.size() > 1) {
      const collectives::LinkParams world_params = collectives::LinkParams::for_world(*world);
      const LinkClass cls = binding_class(plan, world_params);
      std::string held;
      for (LinkClass c : crossed)
        if (c != cls) held += std::string(held.empty() ? "" : ", ") + link_class_name(c);
      fit.classes[m.run.source] = link_class_name(cls);
      fit.held[m.run.source] = held;
      for (Sample& sm : engine_samples(m, op, cls, world_params, pinned, fit.points)) {
        sm.gpus_per_thread = std::max(1, m.run.ngpus);
        samples.push_back(sm);
        classes.insert(sm.cls);
      }
    } else {
      fit.classes[m.run.source] = link_class_name(plan.rings.front().front().link_class);
      for (const auto& row : m.run.rows) {
        if (row.size_bytes <= 0) continue;
        // The faster of out-of-place and in-place: timing noise only ever adds time.
        const double t = row.ip ? std::min(row.oop.time_us, row.ip->time_us) : row.oop.time_us;
        fit.points.push_back(PointFit{m.run.source, row.size_bytes, t, 0, "", ""});
        samples.push_back(make_sample(plan, env, op, row.size_bytes, t, defaults.kernel_latency_s, &fit.points.back()));
        samples.back().gpus_per_thread = std::max(1, m.run.ngpus);
        classes.insert(samples.back().cls);
      }
    }
    // Device time grows with size. A point slower than a larger size of the same run measured
    // host noise (a sweep's slow start, a scheduler hiccup), not the device: it still counts in
    // the reported error, but does not steer the fit.
    // By size, whatever the file's order (a table printed twice, or from large to small).
    std::vector<std::size_t> by_size(samples.size() - first);
    std::iota(by_size.begin(), by_size.end(), first);
    std::stable_sort(by_size.begin(), by_size.end(),
                     [&](std::size_t a, std::size_t b) { return fit.points[a].size_bytes < fit.points[b].size_bytes; });
    double later_min = 1e300;  // the fastest time of every strictly larger size
    for (std::size_t k = by_size.size(); k-- > 0;) {
      std::size_t same = k;  // [same, k]: the rows of this size
      while (same > 0 && fit.points[by_size[same - 1]].size_bytes == fit.points[by_size[k]].size_bytes) --same;
      for (std::size_t q = same; q <= k; ++q) {
        Sample& sq = samples[by_size[q]];
        sq.on_envelope = sq.measured_s <= later_min;
        sq.out->fitted = sq.on_envelope;
      }
      for (std::size_t q = same; q <= k; ++q) later_min = std::min(later_min, samples[by_size[q]].measured_s);
      k = same;
    }
  }
  if (samples.empty()) throw SpecError("", "no measurements to fit");

  // Parameters measured elsewhere are pinned: they start at their value and are not fitted.
  collectives::LinkParams pinned_params = defaults;
  pinned_params.apply(pinned);
  // The device's fixed cost is not fitted: the default, or the pinned value (samples were made
  // before the pins were known).
  const double kernel_s = pinned_params.kernel_latency_s;
  for (Sample& s : samples) s.fixed_s = kernel_s + s.engine_rest_s;
  double best_cost = -1, best_launch = pinned_params.launch_overhead_s, best_p = pinned_params.launch_sharpness;
  std::map<int, Eigen::VectorXd> best_theta;
  static const char* const kProtoNames[3] = {"ll", "ll128", "simple"};
  auto param_name = [](int cls, int j) {
    return std::string(link_class_name(static_cast<LinkClass>(cls))) + (j < 3 ? ".hop_latency." : ".efficiency.") +
           kProtoNames[j % 3];
  };
  auto prior_of = [&](int cls) {
    Eigen::VectorXd pr(kParamsPerClass);
    const auto& cp = pinned_params.by_class[cls];
    for (int j = 0; j < 3; ++j) {
      pr(j) = cp.hop_latency_s[j];
      pr(3 + j) = 1.0 / cp.efficiency[j];
    }
    return pr;
  };
  auto pinned_of = [&](int cls) {
    std::vector<bool> mask(kParamsPerClass);
    for (int j = 0; j < kParamsPerClass; ++j) mask[j] = pinned.count(param_name(cls, j)) > 0;
    return mask;
  };
  collectives::LinkParams loop = pinned_params;  // nccl.launch_per_gpu as given (not fitted)
  // The host's launch cost and the loop's sharpness are scanned on a grid, or held where pinned.
  std::vector<double> sharpness_grid = {1.5, 2.0, 3.0, 4.0, 6.0, 8.0, 16.0, 64.0}, launch_grid;
  if (pinned.count("nccl.launch_sharpness")) sharpness_grid = {pinned_params.launch_sharpness};
  if (pinned.count("nccl.launch_overhead"))
    launch_grid = {pinned_params.launch_overhead_s};
  else
    for (double launch = 5e-6; launch <= 80e-6; launch += 0.5e-6) launch_grid.push_back(launch);
  for (double p : sharpness_grid) {
    for (double launch : launch_grid) {
      loop.launch_overhead_s = launch;
      loop.launch_sharpness = p;
      std::map<int, Eigen::VectorXd> theta;
      for (int cls : classes) {
        std::vector<const Sample*> bound;
        for (Sample& s : samples)
          if (const double l = loop.launch_cost(s.gpus_per_thread);
              s.cls == cls && s.on_envelope && s.measured_s > l * 1.05) {
            s.target_s = std::pow(std::pow(s.measured_s, p) - std::pow(l, p), 1.0 / p);
            bound.push_back(&s);
          }
        theta[cls] = solve_class(bound, prior_of(cls), pinned_of(cls));
      }
      double cost = 0;
      for (const Sample& s : samples)
        if (s.on_envelope)
          cost += std::fabs(std::log(loop.loop_time(device_time(s, theta[s.cls]), s.gpus_per_thread) / s.measured_s));
      if (best_cost < 0 || cost < best_cost) {
        best_cost = cost;
        best_launch = launch;
        best_p = p;
        best_theta = theta;
      }
    }
  }
  loop.launch_overhead_s = best_launch;
  loop.launch_sharpness = best_p;
  // A parameter no fitted point depends on is not the files' to set: doubling it would move no
  // point's device time by kUndetermined of itself. The fit's value there is drift (its prior's
  // pull against noise: a 2-node EFA file moved EFA's Simple efficiency 0.89 -> 0.96 through
  // NVLSTree points bound inside the node), so it is held at its prior and marked.
  for (auto& [cls, th] : best_theta) {
    const Eigen::VectorXd prior = prior_of(cls);
    for (int j = 0; j < kParamsPerClass; ++j) {
      if (pinned.count(param_name(cls, j))) continue;
      double most = 0;
      bool seen = false;
      for (const Sample& s : samples) {
        if (s.cls != cls || !s.on_envelope || s.proto != j % 3) continue;
        seen = true;
        const double d = device_time(s, th);
        if (d > 0) most = std::max(most, (j < 3 ? s.steps : s.x) * th(j) / d);
      }
      if (seen && most < kUndetermined) {
        th(j) = prior(j);
        fit.undetermined.insert(param_name(cls, j));
      }
    }
  }

  std::vector<double> errs;
  for (Sample& s : samples) {
    s.out->predicted_us = loop.loop_time(device_time(s, best_theta[s.cls]), s.gpus_per_thread) * 1e6;
    errs.push_back(std::fabs(s.out->rel_error()));
  }
  std::sort(errs.begin(), errs.end());
  fit.median_abs_error = errs[errs.size() / 2];
  if (errs.size() % 2 == 0) fit.median_abs_error = 0.5 * (errs[errs.size() / 2 - 1] + errs[errs.size() / 2]);
  fit.max_abs_error = errs.back();

  static const char* const kProto[3] = {"ll", "ll128", "simple"};
  fit.pinned = pinned;
  fit.params["nccl.launch_overhead"] = best_launch;
  fit.params["nccl.launch_sharpness"] = best_p;
  fit.params["nccl.kernel_latency"] = kernel_s;
  for (const auto& [cls, th] : best_theta) {
    const std::string c = link_class_name(static_cast<LinkClass>(cls));
    for (int j = 0; j < 3; ++j) {
      fit.params[c + ".hop_latency." + kProto[j]] = th(j);
      fit.params[c + ".efficiency." + kProto[j]] = 1.0 / th(3 + j);
    }
  }
  // What ended at a bound of the fit's own (a protocol's payload ceiling, no hop latency, the
  // ends of the launch grid) rather than where the data put it.
  for (const auto& [cls, th] : best_theta)
    for (int j = 0; j < kParamsPerClass; ++j) {
      const double lo = j < 3 ? 0.0 : 1.0 / kPayloadCeiling[j - 3];
      if (!pinned.count(param_name(cls, j)) && std::fabs(th(j) - lo) <= 1e-9 * std::max(1.0, lo))
        fit.at_bound.insert(param_name(cls, j));
    }
  if (!pinned.count("nccl.launch_overhead") && launch_grid.size() > 1 &&
      (best_launch == launch_grid.front() || best_launch == launch_grid.back()))
    fit.at_bound.insert("nccl.launch_overhead");
  if (!pinned.count("nccl.launch_sharpness") && sharpness_grid.size() > 1 &&
      (best_p == sharpness_grid.front() || best_p == sharpness_grid.back()))
    fit.at_bound.insert("nccl.launch_sharpness");
  // Every pinned value is written as given, also of a class no file exercised (a profile that
  // holds it keeps it).
  for (const auto& [name, value] : pinned) fit.params[name] = value;
  return fit;
}

}  // namespace models::calibrate
