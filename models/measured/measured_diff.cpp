#include "models/measured/measured_diff.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "models/compute/precision.hpp"
#include "models/run/layout_line.hpp"
#include "models/workload/compute.hpp"

namespace models::measured {

namespace {

int diff_kind_rank(const std::string& k) {
  if (k == "step") return 0;
  if (k == "compute") return 1;
  if (k == "idle") return 2;
  return 3;
}

std::string diff_pct(double r) {
  char b[32];
  std::snprintf(b, sizeof b, "%+.1f %%", r * 100);
  return b;
}

}  // namespace

void order_rows(std::vector<DiffRow>& rows) {
  std::stable_sort(rows.begin(), rows.end(), [](const DiffRow& a, const DiffRow& b) {
    if (diff_kind_rank(a.kind) != diff_kind_rank(b.kind)) return diff_kind_rank(a.kind) < diff_kind_rank(b.kind);
    // Step and compute rows are a step's seconds; collective rows are one operation each, from
    // 8 B to GiB, so they rank by their relative error (seconds would rank by size).
    if (a.kind == "collective") return std::fabs(a.relative()) > std::fabs(b.relative());
    return std::fabs(a.diff_s()) > std::fabs(b.diff_s());
  });
}

MeasuredDiff diff_step(const ScenarioSpec& spec, const RunResult& result, const TraceCompute* trace,
                       double measured_step_s) {
  MeasuredDiff d;
  const LayoutSummary layout = describe_layout(spec);
  d.gpus = layout.gpus;
  d.nodes = layout.nodes;
  d.pods = layout.pods;
  d.layout = layout.line;
  if (measured_step_s <= 0 && trace) measured_step_s = trace->host > 0 ? trace->host : trace->span;
  const workload::ComputeClasses sim = trace ? scenario_compute(spec) : workload::ComputeClasses{};
  if (measured_step_s > 0) {
    DiffRow r{"step", "step time", measured_step_s, result.step_time_s, "", "", {}, {}};
    // What the compute rows below do not account for: the step's communication and waits.
    const double comm = result.step_time_s - sim.total();
    if (!trace) {
      r.explain = "no trace: the collective rows, if any, and commsim run's breakdown say where the step goes";
    } else if (comm > 0.05 * result.step_time_s) {
      r.parameter = "compute.overlap_slowdown";
      r.explain = "the simulated step holds " + diff_pct(comm / result.step_time_s).substr(1) +
                  " of exposed communication or waits; see the compute and collective rows for the rest";
    } else {
      r.explain = "a compute-bound step: the compute and idle rows below explain it";
    }
    d.rows.push_back(r);
  }
  if (trace) {
    const std::string prec = compute::precision_name(workload::training_precision(spec.training));
    const workload::OptimizerPlan plan = workload::optimizer_plan(
        spec.training, workload::make_layout(spec, model::resolve_model(*spec.model), layout.gpus).strategy);
    const std::string adamw = std::string("compute.adamw_bandwidth.") + compute::optimizer_impl_name(plan.impl) +
                              (plan.state_bytes >= 4 ? "_fp32" : "_bf16");
    struct Class {
      const char* name;
      double measured, simulated;
      std::string parameter, what;
    };
    const Class classes[] = {
        {"gemm", trace->gemm, sim.gemm, "compute.gemm_rate." + prec, "GEMMs (cuBLAS tiles at the model's shapes)"},
        {"attention", trace->attention, sim.attention, "compute.attention_rate.fwd", "the attention core"},
        {"elementwise", trace->elementwise, sim.elementwise, "compute.memory_bandwidth.elementwise",
         "memory-bound kernels (norms, activations, adds, casts, the loss, copies)"},
        {"optimizer", trace->optimizer, sim.optimizer, adamw, "the optimizer's kernels"},
    };
    for (const Class& c : classes) {
      DiffRow r{"compute", c.name, c.measured, c.simulated, c.parameter, "", {}, {}};
      r.explain = std::string(c.what) + ": the simulation is " + diff_pct(r.relative()) + " off; " +
                  (r.relative() > 0 ? "a higher " : "a lower ") + c.parameter +
                  " (commsim profile fits it from this trace) closes it";
      if (c.measured == 0 && c.simulated > 0) r.explain = "the trace has no such kernels; the laws price them";
      d.rows.push_back(r);
    }
    // No idle row where the trace's kernels overlap (busy above span): its idle time is not measured.
    if (trace->idle_measured()) {
      DiffRow idle{"idle", "GPU idle between kernels", trace->idle(), sim.gaps, "compute.launch_gap", "", {}, {}};
      idle.explain = trace->communication > 0
                         ? "the trace's idle time holds its waits for communication too"
                         : "the host issuing kernels (eager PyTorch): " + diff_pct(idle.relative()) +
                               " in the simulation; compute.launch_gap sets the gap per kernel";
      d.rows.push_back(idle);
    }
  }
  order_rows(d.rows);
  return d;
}

namespace {

// What a parameter's name says sets a row, in words ("nccl.launch_overhead" -> host-bound ...).
std::string what_sets(const std::string& name, const std::string& algo, const std::string& proto) {
  const std::string how = "(" + algo + "/" + proto + ")";
  const std::string link = name.substr(0, name.find('.'));
  if (name == "nccl.launch_overhead")
    return "host-bound " + how + ": nccl-tests' loop issues operations slower than the device runs them";
  if (name == "nccl.kernel_latency") return "latency-bound " + how + ": the kernel's fixed device time sets it";
  if (name == "nvls.efficiency") return "bandwidth-bound " + how + ": the NVLink switch's reduction rate sets it";
  if (name.find(".hop_latency.") != std::string::npos)
    return "latency-bound " + how + ": the latency of each pipeline step over " + link + " sets it";
  if (name.find(".channel_bandwidth") != std::string::npos)
    return "bandwidth-bound " + how + ": one channel's rate over " + link +
           " sets it before the links' efficiency (its channels are few)";
  return "bandwidth-bound " + how + ": " + link + "'s efficiency for " + proto +
         " sets it (commsim calibrate fits it from nccl-tests output)";
}

std::string percent(double fraction) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.1f %%", fraction * 100);
  return buf;
}

}  // namespace

DiffRow collective_row(const std::string& op, long long bytes, int ranks, double measured_s, double simulated_s,
                       const std::string& algo, const std::string& proto,
                       const std::vector<calibrate::ParamEffect>& effects,
                       const std::vector<calibrate::Alternative>& alternatives) {
  DiffRow r;
  r.kind = "collective";
  r.name = op + " " + std::to_string(bytes) + " B on " + std::to_string(ranks) + (ranks == 1 ? " rank" : " ranks");
  r.measured_s = measured_s;
  r.simulated_s = simulated_s;
  r.effects = effects;
  r.alternatives = alternatives;
  if (ranks <= 1) {
    const bool host_bound = !effects.empty() && effects.front().name == "nccl.launch_overhead";
    r.parameter = "nccl.launch_overhead";
    r.explain = host_bound ? "one rank: NCCL runs a local copy (no link is crossed); commsim's row is the launch floor"
                           : "one rank: NCCL runs a local copy (no link is crossed); commsim prices it at the GPU's "
                             "memory rate, above the launch floor";
    return r;
  }
  if (effects.empty()) {
    r.parameter = "-";
    r.explain = "no registered parameter moves it by 0.01 % (" + algo + "/" + proto + ")";
    return r;
  }
  // The tuner's choice first: an algorithm and protocol the tuner picks at a size near this one
  // (a switch point), within 10 % of the run where the modelled choice is at least twice as far
  // off, is more likely what the run took than any parameter.
  const double gap_now = std::fabs(r.relative());
  const calibrate::Alternative* closer = nullptr;
  for (const auto& a : alternatives) {
    const double g = measured_s > 0 ? std::fabs(a.time_us * 1e-6 / measured_s - 1) : 1;
    if (a.picked_nearby && gap_now >= 0.05 && g <= 0.10 && g <= 0.5 * gap_now &&
        (!closer || g < std::fabs(closer->time_us * 1e-6 / measured_s - 1)))
      closer = &a;
  }
  if (closer) {
    r.parameter = closer->algo != algo ? "nccl.env.NCCL_ALGO" : "nccl.env.NCCL_PROTO";
    char buf[320];
    std::snprintf(buf, sizeof buf,
                  "the algorithm/protocol choice: the modelled tuner picks %s/%s (%s); the engine runs %s/%s at "
                  "%.2f us (%s), so the run may have taken it here ([nccl.env] NCCL_ALGO = \"%s\", NCCL_PROTO = "
                  "\"%s\" checks it)",
                  algo.c_str(), proto.c_str(), percent(r.relative()).c_str(), closer->algo.c_str(),
                  closer->proto.c_str(), closer->time_us, percent(closer->time_us * 1e-6 / measured_s - 1).c_str(),
                  closer->algo.c_str(), closer->proto.c_str());
    r.explain = buf;
    return r;
  }
  // The engine's own tangent (calibrate::parameter_effects): the parameter that moves the row most.
  const auto& top = effects.front();
  r.parameter = top.name;
  r.explain = what_sets(top.name, algo, proto) + "; " + std::to_string(int(calibrate::kProbeStep * 100 + 0.5)) +
              " % worse (a latency longer, a rate lower), it moves this row " + percent(top.effect);
  if (effects.size() > 1 && effects[1].effect >= 0.3 * top.effect)
    r.explain += ", " + effects[1].name + " " + percent(effects[1].effect);
  // How far the parameter alone would have to move to close the row's gap, on the tangent:
  // the row moves top.effect per kProbeStep, so gap g = measured / simulated - 1 takes
  // kProbeStep x g / top.effect. Past the parameter's doubling (or halving), the tangent says it
  // alone is not the explanation.
  const double gap = simulated_s > 0 ? measured_s / simulated_s - 1 : 0;
  if (std::fabs(gap) >= 0.02) {
    const double move = calibrate::kProbeStep * gap / top.effect;
    char buf[160];
    // A rate (an efficiency, a channel's rate) is worse lower; a latency or a cost higher.
    const ParamSpec* reg = find_param(top.name);
    const bool rate = reg && calibrate::is_rate(*reg);
    if (std::fabs(move) <= 1.0)
      std::snprintf(buf, sizeof buf, "; measured %s: %s about %.0f %% %s alone closes it",
                    gap > 0 ? "slower" : "faster", top.name.c_str(), 100 * std::fabs(move),
                    (gap > 0) != rate ? "higher" : "lower");
    else
      std::snprintf(buf, sizeof buf, "; measured %s by more than %s alone plausibly explains (it would move %.0f %%)",
                    gap > 0 ? "slower" : "faster", top.name.c_str(), 100 * std::fabs(move));
    r.explain += buf;
  }
  return r;
}

}  // namespace models::measured
