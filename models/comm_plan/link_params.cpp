#include "models/comm_plan/link_params.hpp"

#include <algorithm>
#include <cmath>

#include "models/error.hpp"
#include "models/hw/efa_generations.hpp"
#include "models/hw/links.hpp"
#include "models/hw/node.hpp"
#include "models/params.hpp"
#include "models/world/world.hpp"

namespace models::collectives {

namespace {
constexpr const char* kProtoKeys[kNumProtos] = {"ll", "ll128", "simple"};
constexpr LinkClass kClasses[kNumLinkClasses] = {LinkClass::NVLink, LinkClass::PCIe, LinkClass::SHM,
                                                 LinkClass::EFA,    LinkClass::IB,   LinkClass::Socket};

}  // namespace

LinkParams LinkParams::defaults() {
  // Every number, with its source, is registered once in models/params.cpp.
  LinkParams p;
  for (const ParamSpec& spec : param_registry())
    if (spec.owner == ParamOwner::Collectives && spec.default_value) p.set(std::string(spec.name), *spec.default_value);
  // P2P read mode by GPU generation (models/hw/links.cpp p2p_read_model): the engine asks
  // hw::p2p_read_model(sm) for the bandwidth factor; the handshake is one NVLink round trip.
  const hw::P2pReadModel read = hw::p2p_read_model(90);
  p.p2p_read_bandwidth_factor = -1;  // by GPU generation: the engine asks hw::p2p_read_model(sm)
  p.p2p_read_extra_latency_s = read.extra_latency_s;
  p.nvls_efficiency = -1;  // by GPU generation (nvls_efficiency_of)
  return p;
}

LinkParams LinkParams::for_node(const hw::NodeSpec& node) {
  LinkParams p = defaults();
  for (const auto& [name, value] : node.link_params) p.set(name, value);
  if (node.launch_overhead_s > 0) p.launch_overhead_s = node.launch_overhead_s;
  if (node.nic_kind != hw::NicKind::Efa) return p;
  if (const hw::EfaGenerationParams* g = hw::efa_generation_params(node.efa_generation)) {
    ClassParams& efa = p.of(LinkClass::EFA);
    efa.hop_latency_s = g->hop_latency_s;
    efa.efficiency = g->efficiency;
  }
  return p;
}

LinkParams LinkParams::for_world(const World& world) {
  const hw::NodeSpec* ref = &world.node();
  for (int n = 0; world.mixed() && n < world.nodes(); ++n) {
    const hw::NodeSpec& k = world.node_of(n);
    if (k.nic_kind == hw::NicKind::Efa && (ref->nic_kind != hw::NicKind::Efa || k.efa_generation < ref->efa_generation))
      ref = &k;
  }
  return for_node(*ref);
}

double nvlink_channel_bandwidth_for(int sm, double h200_rate) {
  // tuning.cc perChMaxTreeBws[compCapIndex][0] (one node), GB/s: Hopper 38.7, Blackwell 70.0.
  // Ampere (24.0) and Volta (26.5) are not carried: the rule would give A100 13.6 GB/s, which moves
  // no A100 curve closer (Azure ND A100 v4's 1-64 MiB stays 35 % fast, 2 x p4de's 1-64 MiB goes from
  // 14 to 33 % slow and 2 x NDm A100 v4's from 12 % fast to 20 % slow), so A100 keeps the H200 value
  // (docs/hardware.md, known gap).
  if (sm < 90) return h200_rate;
  const double ceiling = sm >= 100 ? 70.0 : 38.7;
  return h200_rate * ceiling / 38.7;
}

double LinkParams::loop_time(double device_s, int gpus_per_thread) const {
  const double p = launch_sharpness, launch = launch_cost(gpus_per_thread);
  const double hi = std::max(launch, device_s), lo = std::min(launch, device_s);
  if (hi <= 0) return 0;
  return hi * std::pow(1.0 + std::pow(lo / hi, p), 1.0 / p);  // (L^p + D^p)^(1/p), overflow-safe
}

namespace {
double* find(LinkParams& p, const std::string& name) {
  if (name == "nccl.kernel_latency") return &p.kernel_latency_s;
  if (name == "nccl.launch_overhead") return &p.launch_overhead_s;
  if (name == "nccl.launch_per_gpu") return &p.launch_per_gpu_s;
  if (name == "nccl.launch_sharpness") return &p.launch_sharpness;
  if (name == "p2p.read.bandwidth_factor") return &p.p2p_read_bandwidth_factor;
  if (name == "p2p.read.extra_latency") return &p.p2p_read_extra_latency_s;
  if (name == "nvls.efficiency") return &p.nvls_efficiency;
  if (name == "nvls.latency") return &p.nvls_latency_s;
  if (name == "nvls.warp_copy_bandwidth") return &p.warp_copy_bandwidth;
  if (name == "nvls.chunk_latency") return &p.nvls_chunk_latency_s;
  if (name == "sharp.efficiency") return &p.sharp_efficiency;
  if (name == "sharp.latency") return &p.sharp_latency_s;
  for (LinkClass c : kClasses) {
    const std::string prefix = std::string(link_class_name(c)) + ".";
    if (name.compare(0, prefix.size(), prefix) != 0) continue;
    if (name == prefix + "channel_bandwidth") return &p.of(c).channel_bandwidth;
    if (name == prefix + "channel_bandwidth_ll") return &p.of(c).channel_bandwidth_ll;
    if (name == prefix + "flow_control_rtt") return &p.of(c).flow_control_rtt_s;
    if (name == prefix + "step_floor") return &p.of(c).step_floor_s;
    for (int i = 0; i < kNumProtos; ++i) {
      if (name == prefix + "hop_latency." + kProtoKeys[i]) return &p.of(c).hop_latency_s[i];
      if (name == prefix + "efficiency." + kProtoKeys[i]) return &p.of(c).efficiency[i];
    }
  }
  return nullptr;
}
}  // namespace

double LinkParams::get(const std::string& name) const {
  double* v = find(const_cast<LinkParams&>(*this), name);
  if (!v) throw SpecError("cluster.params." + name, "unknown parameter '" + name + "'");
  return *v;
}

void LinkParams::set(const std::string& name, double value) {
  check_param(name, value);  // registered (else "did you mean") and within its range
  double* v = find(*this, name);
  if (!v) throw SpecError("cluster.params." + name, "parameter '" + name + "' is not one of the collective engine's");
  *v = value;
}

void LinkParams::apply(const std::map<std::string, double>& params) {
  for (const auto& [name, value] : params) {
    const ParamSpec* spec = find_param(name);
    // Another model's parameter (raw bandwidths: World; compute rates: workload) is skipped; an
    // unregistered name is an error (set() says which names are close).
    if (!spec || spec->owner == ParamOwner::Collectives) set(name, value);
  }
}

}  // namespace models::collectives
