#pragma once
// The network between nodes ([cluster.fabric]): which shared switch links a flow from NIC group
// (rail) ra of node a to rail rb of node b crosses, as sim::FlowNetwork links that every flow on
// them shares (max-min). Nodes are cut into pods of pod_nodes consecutive nodes.
//
//   nonblocking  one non-blocking switch: no shared link (every flow is bound by its NICs only).
//   fat_tree     two-tier Clos: full bisection inside a pod (no shared link), and above it each
//                pod's uplink to the spine, of capacity
//                  C_pod = pod_nodes x (NIC bandwidth of a node) / oversubscription,
//                crossed up at the sender's pod and down at the receiver's.
//   rail         rail-optimized leaf/spine: NIC group i of every node of a pod sits on rail leaf
//                i of that pod; same pod and same rail: the leaf alone (no shared link); another
//                rail: up and down through the pod's spine (that rail leaf's uplinks, full
//                bisection: C_leaf = pod_nodes x the rail's NIC bandwidth); another pod: also
//                through the pods' uplinks C_pod as in fat_tree.
//   three tiers  (fat_tree or rail with superpod_nodes): pods grouped into superpods of
//                superpod_nodes consecutive nodes (whole pods). Between pods of one superpod as
//                above; between superpods a flow also climbs its superpod's uplink and comes
//                down the other's, each of capacity
//                  C_sp = (pods per superpod) x C_pod / superpod_oversubscription,
//                so the path is pod up, superpod up, superpod down, pod down (+ rail leaves).
//                A cross-superpod flow alone on idle links runs at min(its NIC, C_pod, C_sp),
//                and k such flows leaving one superpod share C_sp (tests/models/topology/fabric_test.cpp).
//
// Spreading over the equal-cost uplinks of a switch group: "spray" (EFA's SRD sprays each
// flow's packets over all paths; Shalev et al., "A Cloud-Optimized Transport Protocol for
// Elastic and Scalable HPC", IEEE Micro 40(6), 2020) is a flow split evenly over every path,
// i.e. one link of the group's whole capacity; "ecmp" hashes each flow (node, rail pair) onto one
// of `uplinks` links of C / uplinks each (RFC 2992), so flows can collide on one uplink while
// another idles. Each uplink or downlink crossed adds one switch traversal of latency.
// Meta's Llama 3 cluster, for scale: full bisection inside a 3,072-GPU pod, ~1:7 above it
// (Llama Team, "The Llama 3 Herd of Models", arXiv 2407.21783, sec. 3.3.1).
// Tests: tests/models/topology/fabric_test.cpp.
#include <algorithm>
#include <string>
#include <vector>

#include "models/hw/node.hpp"
#include "models/spec.hpp"
#include "sim/flow_network.hpp"

namespace models::topology {

enum class FabricKind { NonBlocking, Rail, FatTree };

std::string format_ratio(double r);  // "%g", as the fabric's line prints a ratio

// One switch traversal (store-and-forward or cut-through port to port), by NIC kind: see fabric.cpp.
double default_switch_latency_s(hw::NicKind kind);

class Fabric {
 public:
  // `rail_bytes_per_s`: per NIC group of a node (its rails), the group's line rate. Throws
  // SpecError("cluster.fabric.<key>") on a bad spec. `node_bytes_per_s` (mixed instance groups):
  // per node, its NICs' total where nodes differ; empty: every node has the rails' sum. A pod's
  // C_pod is then pod_nodes x the mean of its nodes' / oversubscription; `node_nic_bytes_per_s`, per
  // node its slowest NIC group's rate there, sets the rate of that pod's ECMP uplinks (one per NIC
  // group's worth of C_pod), so a pod of slower nodes has fewer links, not narrower ones.
  // `uplinks` with an oversubscription other than 1 is refused: the uplinks set C_pod.
  Fabric(const FabricSpec& spec, int nodes, std::vector<double> rail_bytes_per_s, hw::NicKind kind,
         const std::vector<double>& node_bytes_per_s = {}, const std::vector<double>& node_nic_bytes_per_s = {});

  FabricKind kind() const { return kind_; }
  int pods() const { return pods_; }
  int pod_nodes() const { return pod_nodes_; }
  int pod_of(int node) const { return node / pod_nodes_; }
  bool spray() const { return spray_; }
  double pod_uplink_bytes_per_s(int pod = 0) const { return pod_capacity_.at(pod); }  // C_pod, all uplinks
  int pod_uplinks(int pod = 0) const { return pod_uplinks_.at(pod); }                 // ECMP links above the pod
  // What the pod's nodes' NICs are to its uplinks: oversubscription, or the ratio `uplinks` make.
  double pod_ratio(int pod = 0) const { return pod_ratio_.at(pod); }
  double switch_latency_s() const { return switch_latency_s_; }
  // SHARP aggregation in the switches ([cluster.fabric] sharp; InfiniBand only, else SpecError).
  bool sharp() const { return sharp_; }
  const std::vector<double>& rail_bytes_per_s() const { return rail_bw_; }  // per NIC group of a node
  int superpods() const { return superpods_; }
  int superpod_of(int node) const { return node / superpod_nodes_; }
  // C_sp, all uplinks of superpod sp (0: two tiers)
  double superpod_uplink_bytes_per_s(int sp = 0) const { return superpods_ > 1 ? superpod_capacity_.at(sp) : 0.0; }
  // A flow's fabric links depend on its node pair only through their pods (no ECMP hash picks
  // among several links: sprayed, or one link per group; and no third tier, where two other
  // pods may be in this superpod or another).
  bool by_pod() const {
    return superpods_ <= 1 && (spray_ || (*std::max_element(pod_uplinks_.begin(), pod_uplinks_.end()) <= 1 &&
                                          (kind_ != FabricKind::Rail || leaf_uplinks_ <= 1)));
  }

  // Adds the shared links (kind "fabric", names "fabric/pod<p>/...") to `net`. Call once.
  void add_links(sim::FlowNetwork& net);
  // Appends the fabric links a flow from (node_a, rail_a) to (node_b, rail_b) crosses, in order.
  void path(int node_a, int rail_a, int node_b, int rail_b, std::vector<sim::LinkId>& out) const;
  // One line for `commsim topo` and the World's description ("" for nonblocking).
  std::string describe() const;

 private:
  // Index of the equal-cost link a flow takes among `k` (0 when sprayed: one aggregated link).
  int pick(int node_a, int rail_a, int node_b, int rail_b, int k) const;

  FabricKind kind_ = FabricKind::NonBlocking;
  int nodes_ = 1, pod_nodes_ = 1, pods_ = 1;
  std::vector<double> rail_bw_;
  double oversubscription_ = 1;
  bool spray_ = true;
  std::vector<double> pod_capacity_;        // per pod
  std::vector<int> pod_uplinks_{1};         // per pod, ECMP paths above it (1 when sprayed)
  std::vector<double> pod_ratio_{1.0};      // per pod, its nodes' NIC bandwidth / C_pod
  int leaf_uplinks_ = 1;                    // ECMP paths above a rail leaf (rail only; 1 when sprayed)
  int superpod_nodes_ = 1, superpods_ = 1;  // third tier (superpods_ 1: none)
  double superpod_oversubscription_ = 1;
  std::vector<double> superpod_capacity_;  // per superpod (empty: two tiers)
  std::vector<int> superpod_uplinks_;      // per superpod, ECMP paths above it (1 when sprayed)
  double switch_latency_s_ = 0;
  bool sharp_ = false;
  // [pod][k] up and down; rail: [pod * rails + rail][k].
  std::vector<std::vector<sim::LinkId>> pod_up_, pod_down_, leaf_up_, leaf_down_;
  std::vector<std::vector<sim::LinkId>> superpod_up_, superpod_down_;  // [superpod][k]
};

}  // namespace models::topology
