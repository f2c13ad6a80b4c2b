// The network between nodes (fabric.hpp states the model and its sources).
#include "models/topology/fabric.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

#include "models/error.hpp"
#include "sim/check.hpp"

namespace models::topology {

double default_switch_latency_s(hw::NicKind kind) {
  switch (kind) {
    // NVIDIA Quantum HDR switch (QM8700 series datasheet): 130 ns port to port.
    case hw::NicKind::Ib: return 130e-9;
    // Ethernet switches under EFA (SRD) and RoCE: no figure published by AWS; ~1 us per
    // traversal assumed (store-and-forward data-centre Ethernet at 100-400 Gb/s is 0.5-1 us).
    default: return 1e-6;
  }
}

namespace {

FabricKind parse_kind(const std::string& t) {
  if (t == "nonblocking") return FabricKind::NonBlocking;
  if (t == "rail") return FabricKind::Rail;
  if (t == "fat_tree") return FabricKind::FatTree;
  throw SpecError("cluster.fabric.topology",
                  "cluster.fabric.topology: unknown topology '" + t + "' (expected nonblocking, rail or fat_tree)");
}

uint64_t mix(uint64_t x) {  // splitmix64's finaliser: a fixed, portable hash
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace

Fabric::Fabric(const FabricSpec& spec, int nodes, std::vector<double> rail_bytes_per_s, hw::NicKind kind,
               const std::vector<double>& node_bytes_per_s, const std::vector<double>& node_nic_bytes_per_s)
    : kind_(parse_kind(spec.topology)), nodes_(std::max(1, nodes)), rail_bw_(std::move(rail_bytes_per_s)) {
  if (!(spec.oversubscription >= 1))
    throw SpecError("cluster.fabric.oversubscription",
                    "cluster.fabric.oversubscription: must be at least 1 (expected 1 for full bisection, 4 for 4:1)");
  if (spec.pod_nodes < 0)
    throw SpecError("cluster.fabric.pod_nodes", "cluster.fabric.pod_nodes: negative (expected a node count)");
  oversubscription_ = spec.oversubscription;
  pod_nodes_ = spec.pod_nodes > 0 ? std::min(spec.pod_nodes, nodes_) : nodes_;
  pods_ = (nodes_ + pod_nodes_ - 1) / pod_nodes_;
  if (spec.spreading.empty())
    spray_ = kind == hw::NicKind::Efa;
  else if (spec.spreading == "spray" || spec.spreading == "ecmp")
    spray_ = spec.spreading == "spray";
  else
    throw SpecError("cluster.fabric.spreading",
                    "cluster.fabric.spreading: unknown '" + spec.spreading + "' (expected spray or ecmp)");
  switch_latency_s_ = spec.switch_latency_s.value_or(default_switch_latency_s(kind));
  // SHARP runs in NVIDIA's InfiniBand switches (Quantum, HDR: SHARPv2; Quantum-2, NDR: SHARPv3);
  // EFA, RoCE and TCP fabrics have no in-network reduction NCCL can use (its CollNet plugin is
  // nccl-rdma-sharp-plugins, InfiniBand only).
  if (spec.sharp && kind != hw::NicKind::Ib)
    throw SpecError("cluster.fabric.sharp", std::string("cluster.fabric.sharp: SHARP needs InfiniBand switches, and "
                                                        "this cluster's NICs are ") +
                                                hw::nic_kind_name(kind) + " (expected sharp = false)");
  sharp_ = spec.sharp;
  const double node_bw = std::accumulate(rail_bw_.begin(), rail_bw_.end(), 0.0);
  const double nic_bw = rail_bw_.empty() ? 0 : *std::min_element(rail_bw_.begin(), rail_bw_.end());
  // Per pod, its nodes' NIC bandwidth (mixed nodes: the mean of its own nodes') and its slowest NIC
  // group's line rate, which an uplink matches unless uplink_bandwidth is given.
  std::vector<double> pod_node_bw(pods_, node_bw), pod_nic_bw(pods_, nic_bw);
  if (!node_bytes_per_s.empty()) {
    SIM_CHECK(static_cast<int>(node_bytes_per_s.size()) >= nodes_, "a NIC bandwidth per node");
    SIM_CHECK(node_nic_bytes_per_s.empty() || static_cast<int>(node_nic_bytes_per_s.size()) >= nodes_,
              "a NIC group rate per node");
    for (int p = 0; p < pods_; ++p) {
      double sum = 0;
      const int first = p * pod_nodes_, last = std::min(nodes_, first + pod_nodes_);
      for (int n = first; n < last; ++n) sum += node_bytes_per_s[n];
      pod_node_bw[p] = sum / (last - first);
      if (!node_nic_bytes_per_s.empty())
        pod_nic_bw[p] = *std::min_element(node_nic_bytes_per_s.begin() + first, node_nic_bytes_per_s.begin() + last);
    }
  }
  if (spec.uplinks > 0 && spec.oversubscription != 1)
    throw SpecError("cluster.fabric.oversubscription",
                    "cluster.fabric.oversubscription: " + format_ratio(spec.oversubscription) +
                        " beside uplinks = " + std::to_string(spec.uplinks) +
                        ", which set the capacity above a pod (expected one of the two keys: uplinks x "
                        "uplink_bandwidth, or pod_nodes x the nodes' NICs / oversubscription)",
                    {"cluster.fabric.uplinks"});
  // C_pod = pod_nodes x node NIC bandwidth / oversubscription, or the uplinks the spec gives; the
  // ECMP links per pod from that pod's own capacity and NIC rate.
  pod_capacity_.assign(pods_, 0.0);
  pod_uplinks_.assign(pods_, 1);
  for (int p = 0; p < pods_; ++p) {
    const double uplink_bw = spec.uplink_bytes_per_s > 0 ? spec.uplink_bytes_per_s : pod_nic_bw[p];
    if (spec.uplinks > 0) {
      pod_uplinks_[p] = spec.uplinks;
      pod_capacity_[p] = spec.uplinks * uplink_bw;
    } else {
      pod_capacity_[p] = pod_nodes_ * pod_node_bw[p] / oversubscription_;
      if (uplink_bw > 0) pod_uplinks_[p] = std::max(1, static_cast<int>(std::lround(pod_capacity_[p] / uplink_bw)));
    }
  }
  // The ratio a pod's nodes see above it (the uplinks' when they set C_pod).
  pod_ratio_.assign(pods_, oversubscription_);
  for (int p = 0; p < pods_; ++p)
    if (pod_capacity_[p] > 0) pod_ratio_[p] = pod_nodes_ * pod_node_bw[p] / pod_capacity_[p];
  leaf_uplinks_ = pod_nodes_;  // one per node's NIC on that rail (full bisection)
  // Third tier: superpods of whole pods, C_sp = (pods per superpod) x C_pod / superpod_oversubscription.
  if (spec.superpod_nodes < 0)
    throw SpecError("cluster.fabric.superpod_nodes",
                    "cluster.fabric.superpod_nodes: negative (expected a node count, a multiple of pod_nodes)");
  if (!(spec.superpod_oversubscription >= 1))
    throw SpecError("cluster.fabric.superpod_oversubscription",
                    "cluster.fabric.superpod_oversubscription: must be at least 1 (expected 1 for full bisection, 7 "
                    "for 7:1)");
  superpod_nodes_ = nodes_;
  if (spec.superpod_nodes > 0) {
    if (kind_ == FabricKind::NonBlocking)
      throw SpecError("cluster.fabric.superpod_nodes",
                      "cluster.fabric.superpod_nodes: a third tier on a non-blocking network (expected topology = "
                      "\"fat_tree\" or \"rail\")");
    if (spec.pod_nodes <= 0 || spec.superpod_nodes % spec.pod_nodes != 0 || spec.superpod_nodes <= spec.pod_nodes)
      throw SpecError("cluster.fabric.superpod_nodes",
                      "cluster.fabric.superpod_nodes: " + std::to_string(spec.superpod_nodes) +
                          " (expected a multiple of pod_nodes = " + std::to_string(spec.pod_nodes) +
                          ", at least two pods: a superpod is whole pods)");
    superpod_nodes_ = std::min(spec.superpod_nodes, nodes_);  // fewer nodes than one superpod: one
  }
  superpods_ = (nodes_ + superpod_nodes_ - 1) / superpod_nodes_;
  superpod_oversubscription_ = spec.superpod_oversubscription;
  if (superpods_ > 1) {
    superpod_capacity_.assign(superpods_, 0.0);
    for (int p = 0; p < pods_; ++p) superpod_capacity_[p * pod_nodes_ / superpod_nodes_] += pod_capacity_[p];
    for (double& c : superpod_capacity_) c /= superpod_oversubscription_;
    superpod_uplinks_.assign(superpods_, 1);
    for (int sp = 0; sp < superpods_; ++sp) {  // at the rate of the superpod's first pod's uplinks
      const int p = sp * superpod_nodes_ / pod_nodes_;
      const double uplink_bw = spec.uplink_bytes_per_s > 0 ? spec.uplink_bytes_per_s : pod_nic_bw[p];
      if (uplink_bw > 0)
        superpod_uplinks_[sp] = std::max(1, static_cast<int>(std::lround(superpod_capacity_[sp] / uplink_bw)));
    }
  }
  if (spray_) {
    pod_uplinks_.assign(pods_, 1);
    superpod_uplinks_.assign(superpod_uplinks_.size(), 1);
    leaf_uplinks_ = 1;
  }
}

void Fabric::add_links(sim::FlowNetwork& net) {
  if (kind_ == FabricKind::NonBlocking || rail_bw_.empty()) return;  // no NIC: nothing crosses it
  const sim::Time lat = sim::Time::from_seconds(switch_latency_s_);
  auto group = [&](const std::string& name, int k, double capacity, std::vector<sim::LinkId>& out) {
    for (int i = 0; i < k; ++i)
      out.push_back(net.add_link(k > 1 ? name + std::to_string(i) : name, "fabric", capacity / k, lat));
  };
  if (pods_ > 1) {
    pod_up_.resize(pods_);
    pod_down_.resize(pods_);
    for (int p = 0; p < pods_; ++p) {
      const std::string base = "fabric/pod" + std::to_string(p) + "/";
      group(base + "up", pod_uplinks_[p], pod_capacity_[p], pod_up_[p]);
      group(base + "down", pod_uplinks_[p], pod_capacity_[p], pod_down_[p]);
    }
  }
  if (superpods_ > 1) {
    superpod_up_.resize(superpods_);
    superpod_down_.resize(superpods_);
    for (int sp = 0; sp < superpods_; ++sp) {
      const std::string base = "fabric/superpod" + std::to_string(sp) + "/";
      group(base + "up", superpod_uplinks_[sp], superpod_capacity_[sp], superpod_up_[sp]);
      group(base + "down", superpod_uplinks_[sp], superpod_capacity_[sp], superpod_down_[sp]);
    }
  }
  if (kind_ == FabricKind::Rail) {
    const int rails = static_cast<int>(rail_bw_.size());
    leaf_up_.resize(static_cast<std::size_t>(pods_) * rails);
    leaf_down_.resize(leaf_up_.size());
    for (int p = 0; p < pods_; ++p)
      for (int r = 0; r < rails; ++r) {
        const std::string base = "fabric/pod" + std::to_string(p) + "/rail" + std::to_string(r) + "/";
        const std::size_t i = static_cast<std::size_t>(p) * rails + r;
        group(base + "up", leaf_uplinks_, pod_nodes_ * rail_bw_[r], leaf_up_[i]);
        group(base + "down", leaf_uplinks_, pod_nodes_ * rail_bw_[r], leaf_down_[i]);
      }
  }
}

int Fabric::pick(int node_a, int rail_a, int node_b, int rail_b, int k) const {
  if (k <= 1) return 0;
  const uint64_t key = (static_cast<uint64_t>(node_a) << 40) ^ (static_cast<uint64_t>(rail_a) << 32) ^
                       (static_cast<uint64_t>(node_b) << 8) ^ static_cast<uint64_t>(rail_b);
  return static_cast<int>(mix(key) % static_cast<uint64_t>(k));
}

void Fabric::path(int node_a, int rail_a, int node_b, int rail_b, std::vector<sim::LinkId>& out) const {
  if (kind_ == FabricKind::NonBlocking || node_a == node_b || rail_bw_.empty()) return;
  const int pa = pod_of(node_a), pb = pod_of(node_b);
  const bool cross_pod = pa != pb;
  const bool cross_rail = kind_ == FabricKind::Rail && (rail_a != rail_b || cross_pod);
  const int rails = static_cast<int>(rail_bw_.size());
  // One equal-cost choice per flow: the spine it climbs to decides both its up- and downlink.
  if (cross_rail) {
    const auto& up = leaf_up_[static_cast<std::size_t>(pa) * rails + rail_a];
    out.push_back(up[pick(node_a, rail_a, node_b, rail_b, static_cast<int>(up.size()))]);
  }
  if (cross_pod) {
    // One hash picks the spine; a pod with fewer uplinks reaches it through link hash mod its own
    // count (the same link on both sides when the pods have as many).
    out.push_back(pod_up_[pa][pick(node_a, rail_a, node_b, rail_b, static_cast<int>(pod_up_[pa].size()))]);
    const int sa = superpod_of(node_a), sb = superpod_of(node_b);
    if (sa != sb) {  // up and down through the superpods' tier (the same core switch: one choice)
      out.push_back(superpod_up_[sa][pick(node_b, rail_b, node_a, rail_a, static_cast<int>(superpod_up_[sa].size()))]);
      out.push_back(
          superpod_down_[sb][pick(node_b, rail_b, node_a, rail_a, static_cast<int>(superpod_down_[sb].size()))]);
    }
    out.push_back(pod_down_[pb][pick(node_a, rail_a, node_b, rail_b, static_cast<int>(pod_down_[pb].size()))]);
  }
  if (cross_rail) {
    const auto& down = leaf_down_[static_cast<std::size_t>(pb) * rails + rail_b];
    out.push_back(down[pick(node_a, rail_a, node_b, rail_b, static_cast<int>(down.size()))]);
  }
}

namespace {
// "a" when every value is a, else "lo-hi" (pods of mixed instance groups).
std::string fabric_range(const std::vector<double>& v, double scale = 1) {
  if (v.empty()) return "0";
  const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  char buf[64];
  if (*lo == *hi)
    std::snprintf(buf, sizeof buf, "%g", *lo / scale);
  else
    std::snprintf(buf, sizeof buf, "%g-%g", *lo / scale, *hi / scale);
  return buf;
}
}  // namespace

std::string format_ratio(double r) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", r);
  return buf;
}

std::string Fabric::describe() const {
  if (kind_ == FabricKind::NonBlocking) return sharp_ ? "non-blocking, SHARP aggregation in the switches" : "";
  char buf[256];
  std::snprintf(buf, sizeof buf, "%s, %d pod(s) of %d node(s); above a pod %s:1, %s GB/s up per pod, ",
                kind_ == FabricKind::Rail ? "rail-optimized leaf/spine" : "fat-tree", pods_, pod_nodes_,
                fabric_range(pod_ratio_).c_str(), fabric_range(pod_capacity_, 1e9).c_str());
  std::string s = buf;
  if (superpods_ > 1) {
    std::snprintf(buf, sizeof buf, "%d superpod(s) of %d node(s); above a superpod %g:1, %s GB/s up per superpod, ",
                  superpods_, superpod_nodes_, superpod_oversubscription_,
                  fabric_range(superpod_capacity_, 1e9).c_str());
    s += buf;
  }
  std::vector<double> uplinks(pod_uplinks_.begin(), pod_uplinks_.end());
  s += spray_ ? "sprayed over equal paths (SRD)" : "ECMP over " + fabric_range(uplinks) + " uplinks";
  if (kind_ == FabricKind::Rail) s += "; NIC group i of every node on rail leaf i";
  if (sharp_) s += "; SHARP aggregation in the switches";
  return s;
}

}  // namespace models::topology
