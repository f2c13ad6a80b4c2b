#include "models/calibrate/param_effects.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>

#include "models/comm_plan/link_params.hpp"
#include "models/hw/links.hpp"
#include "models/params.hpp"
#include "models/world/world.hpp"
#include "sim/flow_network.hpp"

namespace models::calibrate {

using collectives::LinkParams;
using nccl::CollOp;

namespace {

constexpr const char* kProtoKeys[3] = {"ll", "ll128", "simple"};

bool is_point_to_point(CollOp op) { return op == CollOp::AllToAll || op == CollOp::SendRecv; }

// One probe: the parameters made costlier together, and whether they are rates (made lower) or
// costs (made higher). A per-protocol probe sets the stem's three protocols at once and is named,
// per row, by the protocol that row runs (the others do not act on it).
struct Probe {
  std::string stem;  // "efa.hop_latency" (per protocol) or a whole name ("nccl.launch_overhead")
  bool per_proto = false;
  bool rate = false;
};

std::string proto_key(const std::string& proto) {
  if (proto == "LL") return "ll";
  if (proto == "LL128") return "ll128";
  return "simple";
}

}  // namespace

namespace {

// The engine's value of `name` on `world` (`lp`: its for_world defaults with the scenario's
// parameters applied): the rules by generation of collectives::Engine's constructor, for a
// parameter the scenario leaves at its registered default.
double engine_value(const ScenarioSpec& spec, const World& world, const LinkParams& lp, const std::string& name,
                    bool point_to_point) {
  const double v = lp.get(name);
  if (spec.cluster.params.count(name)) return v;
  const hw::NodeSpec& node = world.node();
  if (name == "nvlink.efficiency.simple") return hw::nvlink_simple_efficiency(node.nvlink_gen, v);
  if (name == "nvlink.channel_bandwidth" && !point_to_point)
    return collectives::nvlink_channel_bandwidth_for(node.gpu.sm, v);
  if (name == "nvls.efficiency") return lp.nvls_efficiency_of(node.gpu.sm);
  return v;
}

struct Resolved {
  sim::Simulator sim;
  sim::FlowNetwork net{sim};
  std::unique_ptr<World> world;
  LinkParams lp;
  explicit Resolved(const ScenarioSpec& spec) {
    check_params(spec.cluster.params);
    world = World::build(spec, net);
    lp = LinkParams::for_world(*world);
    lp.apply(spec.cluster.params);
  }
};

}  // namespace

double engine_param_value(const ScenarioSpec& spec, const std::string& name, bool point_to_point) {
  const Resolved r(spec);
  return engine_value(spec, *r.world, r.lp, name, point_to_point);
}

std::vector<RowEffects> parameter_effects(const ScenarioSpec& spec, CollOp op, const std::vector<int64_t>& sizes,
                                          int ranks) {
  std::vector<std::string> classes;
  const std::vector<NcclTestsRow> base = run_nccl_tests_at(spec, op, sizes, &classes);
  std::vector<RowEffects> out(base.size());
  for (std::size_t k = 0; k < base.size(); ++k) out[k].row = base[k];
  if (base.empty()) return out;
  const bool p2p = is_point_to_point(op);
  const Resolved resolved(spec);

  // In this order where effects tie: NVLS's efficiency before NVLink's channel rate, which scales
  // the same flows of an NVLS row.
  std::vector<Probe> probes = {{"nccl.launch_overhead", false, false}, {"nccl.kernel_latency", false, false}};
  if (std::any_of(base.begin(), base.end(), [](const NcclTestsRow& r) { return r.algo.rfind("NVLS", 0) == 0; }))
    probes.push_back({"nvls.efficiency", false, true});
  for (const std::string& c : classes) {
    probes.push_back({c + ".hop_latency", true, false});
    probes.push_back({c + ".efficiency", true, true});
    if (find_param(c + ".channel_bandwidth")) probes.push_back({c + ".channel_bandwidth", false, true});
    if (p2p && find_param(c + ".channel_bandwidth_ll")) probes.push_back({c + ".channel_bandwidth_ll", false, true});
  }

  for (const Probe& probe : probes) {
    std::vector<std::string> names;
    if (probe.per_proto)
      for (const char* key : kProtoKeys) names.push_back(probe.stem + "." + key);
    else
      names.push_back(probe.stem);
    ScenarioSpec costlier = spec;
    bool moved = false;
    for (const std::string& name : names) {
      const double v = engine_value(spec, *resolved.world, resolved.lp, name, p2p);
      if (v <= 0) continue;  // unset (a rate the engine derives) or none: nothing to scale
      const double w = probe.rate ? v / (1 + kProbeStep) : v * (1 + kProbeStep);
      const ParamSpec* reg = find_param(name);
      if (reg && !reg->range.contains(w)) continue;
      costlier.cluster.params[name] = w;
      moved = true;
    }
    if (!moved) continue;
    const std::vector<NcclTestsRow> t = run_nccl_tests_at(costlier, op, sizes);
    for (std::size_t k = 0; k < base.size(); ++k) {
      const double t0 = base[k].compared_time_us(ranks), t1 = t[k].compared_time_us(ranks);
      if (t0 <= 0) continue;
      const double effect = t1 / t0 - 1;
      if (effect < 1e-4) continue;
      const std::string name = probe.per_proto ? probe.stem + "." + proto_key(base[k].proto) : probe.stem;
      out[k].effects.push_back({name, effect});
    }
  }
  // Largest first; effects equal to a millionth (two parameters scaling one rate) keep the probes'
  // order, so a row names the same parameter on every machine and build.
  const auto key = [](const ParamEffect& e) { return std::llround(e.effect * 1e6); };
  for (RowEffects& r : out)
    std::stable_sort(r.effects.begin(), r.effects.end(),
                     [&](const ParamEffect& a, const ParamEffect& b) { return key(a) > key(b); });
  return out;
}

}  // namespace models::calibrate
