#include "models/collectives/link_params.hpp"

#include <algorithm>
#include <cmath>

#include "models/error.hpp"
#include "models/hw/links.hpp"

namespace models::collectives {

namespace {
constexpr const char* kProtoKeys[kNumProtos] = {"ll", "ll128", "simple"};
constexpr LinkClass kClasses[kNumLinkClasses] = {LinkClass::NVLink, LinkClass::PCIe, LinkClass::SHM,
                                                 LinkClass::EFA,    LinkClass::IB,   LinkClass::Socket};

}  // namespace

bool LinkParams::owns(const std::string& name) {
  if (name.rfind("nccl.", 0) == 0 || name.rfind("p2p.read.", 0) == 0) return true;
  for (LinkClass c : kClasses) {
    const std::string prefix = std::string(link_class_name(c)) + ".";
    if (name.rfind(prefix + "hop_latency.", 0) == 0 || name.rfind(prefix + "efficiency.", 0) == 0 ||
        name == prefix + "channel_bandwidth" || name == prefix + "flow_control_rtt")
      return true;
  }
  return false;
}

LinkParams LinkParams::defaults() {
  LinkParams p;
  // Hop latencies: NCCL's tuning model (src/graph/tuning.cc, hwLat[] for Ring), in seconds:
  // NVLink .6/1.9/3.4 us, PCI 1.0/2.5/5.7 us, NET 2.7/4.0/14.0 us. SHM crosses PCI twice.
  auto set = [&](LinkClass c, std::array<double, 3> lat_us, std::array<double, 3> eta) {
    for (int i = 0; i < kNumProtos; ++i) {
      p.of(c).hop_latency_s[i] = lat_us[i] * 1e-6;
      p.of(c).efficiency[i] = eta[i];
    }
  };
  // Efficiencies: Simple reaches ~74 % of raw NVLink (4xH200: 354 GB/s busbw of 478 GB/s raw,
  // scenarios/validation/h200x4/measured/nccl-tests/ar_g4.txt); LL moves 8-byte lines with 4 bytes of
  // data (x0.5), LL128 120 of 128 bytes (x0.94) -- NCCL's own ratios (tuning.cc).
  set(LinkClass::NVLink, {0.6, 1.9, 3.4}, {0.37, 0.69, 0.74});
  set(LinkClass::PCIe, {1.0, 2.5, 5.7}, {0.35, 0.65, 0.75});
  set(LinkClass::SHM, {2.0, 5.0, 11.4}, {0.2, 0.4, 0.5});
  // EFA (first generation, 100 Gb/s per NIC, aws-ofi-nccl): p4dn.24xlarge nccl-tests all_reduce
  // 1 GiB, 8 GPUs and 4 EFA per node (github.com/NVIDIA/nccl/issues/527): 3 and 4 nodes (ring)
  // 31.8 and 29.6 GB/s bus bandwidth = 0.64 and 0.59 of the 4 x 12.5 GB/s; 2 nodes 30.5 GB/s
  // algorithm bandwidth (tree: each node moves S each way) = 0.61. Simple 0.6; LL and LL128 keep
  // NCCL's ratios to it (aws-ofi-nccl forces Simple on p4d anyway).
  set(LinkClass::EFA, {2.7, 4.0, 14.0}, {0.3, 0.56, 0.6});
  set(LinkClass::IB, {2.7, 4.0, 14.0}, {0.45, 0.85, 0.9});
  // Socket: relative to one TCP stream (kTcpStreamBytesPerS); fitted on the 4xH200 machine's
  // loopback (ar_g4_sock.txt: 3.3 GB/s per ring edge with Simple, LL ~0.1 of the stream).
  set(LinkClass::Socket, {8.0, 20.0, 42.0}, {0.1, 0.3, 0.67});
  // One NVLink channel (CTA) on H200 with Simple: 2 x H200 (NV18), one process per GPU,
  // NCCL_MAX_NCHANNELS=4, 1 GiB all-reduce in 13.0 ms = 82.5 GB/s per ring edge over 4 channels
  // (bench/device/torch_nccl_bench.py on the device machine, 2026-11-22; README "Out-of-sample checks").
  // With the flow-control window below, 22.0 GB/s per channel gives those 20.6 at the default
  // 4 MiB NCCL_BUFFSIZE: 1 / (1/22.0e9 + 13e-6/4 MiB) = 20.6e9.
  p.of(LinkClass::NVLink).channel_bandwidth = 22.0e9;
  // Round trip of a FIFO credit over NVLink, from 2 x H200 all-reduce with NCCL_BUFFSIZE=64 KiB
  // and 256 KiB (24 channels: 1 GiB in 10.26 ms and 4.37 ms; per channel 1/r = 1/22e9 + T/W
  // gives T = 12.0 and 13.7 us; scenarios/validation/h200x2/n2_buff*.json).
  p.of(LinkClass::NVLink).flow_control_rtt_s = 13e-6;
  p.kernel_latency_s = 5e-6;    // launch-to-start of a NCCL kernel on the device
  p.launch_overhead_s = 25e-6;  // host issue cost per op in nccl-tests' loop (4 GPUs, 1 thread)
  const hw::P2pReadModel read = hw::p2p_read_model(90);
  p.p2p_read_bandwidth_factor = -1;  // by GPU generation: the engine asks hw::p2p_read_model(sm)
  p.p2p_read_extra_latency_s = read.extra_latency_s;
  return p;
}

double LinkParams::loop_time(double device_s) const {
  const double p = launch_sharpness;
  const double hi = std::max(launch_overhead_s, device_s), lo = std::min(launch_overhead_s, device_s);
  if (hi <= 0) return 0;
  return hi * std::pow(1.0 + std::pow(lo / hi, p), 1.0 / p);  // (L^p + D^p)^(1/p), overflow-safe
}

std::vector<std::string> LinkParams::names() {
  std::vector<std::string> out = {"nccl.kernel_latency", "nccl.launch_overhead", "nccl.launch_sharpness",
                                  "p2p.read.bandwidth_factor", "p2p.read.extra_latency"};
  for (LinkClass c : kClasses) {
    for (const char* what : {"hop_latency", "efficiency"})
      for (const char* proto : kProtoKeys) out.push_back(std::string(link_class_name(c)) + "." + what + "." + proto);
    out.push_back(std::string(link_class_name(c)) + ".channel_bandwidth");
    out.push_back(std::string(link_class_name(c)) + ".flow_control_rtt");
  }
  return out;
}

namespace {
double* find(LinkParams& p, const std::string& name) {
  if (name == "nccl.kernel_latency") return &p.kernel_latency_s;
  if (name == "nccl.launch_overhead") return &p.launch_overhead_s;
  if (name == "nccl.launch_sharpness") return &p.launch_sharpness;
  if (name == "p2p.read.bandwidth_factor") return &p.p2p_read_bandwidth_factor;
  if (name == "p2p.read.extra_latency") return &p.p2p_read_extra_latency_s;
  for (LinkClass c : kClasses) {
    const std::string prefix = std::string(link_class_name(c)) + ".";
    if (name.compare(0, prefix.size(), prefix) != 0) continue;
    if (name == prefix + "channel_bandwidth") return &p.of(c).channel_bandwidth;
    if (name == prefix + "flow_control_rtt") return &p.of(c).flow_control_rtt_s;
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
  double* v = find(*this, name);
  if (!v) throw SpecError("cluster.params." + name, "unknown parameter '" + name + "'");
  const bool is_eff = name.find(".efficiency.") != std::string::npos || name == "p2p.read.bandwidth_factor";
  const bool is_sharpness = name == "nccl.launch_sharpness";
  if (!std::isfinite(value) || value < 0 || (is_eff && (value <= 0 || value > 1)) || (is_sharpness && value < 1))
    throw SpecError("cluster.params." + name, "parameter '" + name + "' must be " +
                                                  (is_eff         ? "in (0, 1]"
                                                   : is_sharpness ? "a number >= 1"
                                                                  : "a finite non-negative number of seconds"));
  *v = value;
}

void LinkParams::apply(const std::map<std::string, double>& params) {
  for (const auto& [name, value] : params) {
    if (!owns(name)) continue;  // another model's parameter (raw bandwidths: World; compute: workload)
    set(name, value);
  }
}

}  // namespace models::collectives
