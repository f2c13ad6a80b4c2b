#include "models/calibrate/param_effects.hpp"

#include <algorithm>
#include <cmath>
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

}  // namespace

bool is_rate(const ParamSpec& p) { return p.unit != ParamUnit::Seconds; }

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
  // Each protocol's parameter is probed on its own: a row runs one protocol, but another's can
  // still move it (a NIC port's capacity carries Simple's efficiency, and binds an LL128 ring too).
  std::vector<std::string> probes = {"nccl.launch_overhead", "nccl.kernel_latency"};
  if (std::any_of(base.begin(), base.end(), [](const NcclTestsRow& r) { return r.algo.rfind("NVLS", 0) == 0; }))
    probes.push_back("nvls.efficiency");
  for (const std::string& c : classes) {
    for (const char* key : kProtoKeys) probes.push_back(c + ".hop_latency." + key);
    for (const char* key : kProtoKeys) probes.push_back(c + ".efficiency." + key);
    if (find_param(c + ".channel_bandwidth")) probes.push_back(c + ".channel_bandwidth");
    if (p2p && find_param(c + ".channel_bandwidth_ll")) probes.push_back(c + ".channel_bandwidth_ll");
  }

  for (const std::string& name : probes) {
    const ParamSpec* reg = find_param(name);
    if (!reg) continue;  // a link class without that parameter
    const double v = engine_value(spec, *resolved.world, resolved.lp, name, p2p);
    if (v <= 0) continue;  // unset (a rate the engine derives) or none: nothing to scale
    const double w = is_rate(*reg) ? v / (1 + kProbeStep) : v * (1 + kProbeStep);
    if (!reg->range.contains(w)) continue;
    ScenarioSpec worse = spec;
    worse.cluster.params[name] = w;
    const std::vector<NcclTestsRow> t = run_nccl_tests_at(worse, op, sizes);
    for (std::size_t k = 0; k < base.size(); ++k) {
      const double t0 = base[k].compared_time_us(ranks), t1 = t[k].compared_time_us(ranks);
      if (t0 <= 0) continue;
      // A parameter made worse that makes the row faster (the tuner's or the channel search's
      // choice moving with it) explains no gap: only what slows the row is listed.
      const double effect = t1 / t0 - 1;
      if (effect < 1e-4) continue;
      out[k].effects.push_back({name, effect});
    }
  }
  // The tuner's choice as a candidate: every (algorithm, protocol) the engine runs when both are
  // forced; one NCCL refuses (no such algorithm here) is skipped.
  if (!p2p && !spec.nccl_env.count("NCCL_ALGO") && !spec.nccl_env.count("NCCL_PROTO")) {
    for (const char* algo : {"Ring", "Tree", "NVLS", "NVLSTree", "PAT", "CollnetDirect", "CollnetChain"})
      for (const char* proto : {"LL", "LL128", "Simple"}) {
        ScenarioSpec forced = spec;
        forced.nccl_env["NCCL_ALGO"] = algo;
        forced.nccl_env["NCCL_PROTO"] = proto;
        std::vector<NcclTestsRow> t;
        try {
          t = run_nccl_tests_at(forced, op, sizes);
        } catch (const SpecError&) {
          continue;
        }
        for (std::size_t k = 0; k < base.size(); ++k) {
          const NcclTestsRow& r = t[k];
          if (r.algo == base[k].algo && r.proto == base[k].proto) continue;
          auto& alts = out[k].alternatives;
          if (std::any_of(alts.begin(), alts.end(),
                          [&](const Alternative& a) { return a.algo == r.algo && a.proto == r.proto; }))
            continue;
          bool nearby = false;
          for (const NcclTestsRow& other : base)
            nearby = nearby || (other.algo == r.algo && other.proto == r.proto && 4 * other.size >= base[k].size &&
                                other.size <= 4 * base[k].size);
          alts.push_back({r.algo, r.proto, r.compared_time_us(ranks), nearby});
        }
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
