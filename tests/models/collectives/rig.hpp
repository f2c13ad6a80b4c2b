#pragma once
// The collective tests' rig: a small fake World (n GPUs on one NVSwitch per node, one NIC per
// node) keeps them independent of the catalogs. B is the raw per-direction bandwidth of each
// GPU's NVLink links, B_net of each node's NIC:
//
//   node 0                               node 1
//   gpu0.tx/rx --+                       +-- gpu4.tx/rx
//   gpu1.tx/rx --+-- (NVSwitch)  nic0.tx ===> nic1.rx   (NVSwitch) --+-- gpu5.tx/rx
//   ...          |               nic0.rx <=== nic1.tx                |   ...
//
// Inside a node a->b crosses gpu_a.tx, gpu_b.rx (P2P over NVLink); across nodes nic_a.tx,
// nic_b.rx (NET/IB with GDR). As in World (world.cpp build_links), a GPU's NVLink port carries
// NCCL's Simple efficiency on its total: its capacity is eta_Simple x B, and raw_capacity()
// reports B. Every Rig runs with the FlowNetwork's byte audit on.
#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "models/collectives/collective.hpp"
#include "models/comm_plan/link_params.hpp"
#include "models/nccl/env.hpp"

namespace collectives_test {

using namespace models;
using namespace models::nccl;
using namespace models::collectives;

class FakeWorld final : public World {
 public:
  // nodes x gpus_per_node; inside a node P2P over NVLink (B), across nodes NET/IB (B_net).
  FakeWorld(sim::FlowNetwork& net, int nodes, int gpus_per_node, double B, double B_net)
      : nodes_(nodes), gpn_(gpus_per_node), B_(B), placement_{nodes, 1, gpus_per_node} {
    const double port_eff = LinkParams::defaults().of(LinkClass::NVLink).efficiency[static_cast<int>(Proto::Simple)];
    node_.gpu = models::hw::find_gpu("H200");
    node_.gpus = gpus_per_node;
    node_.nvlink_gen = 4;  // H200: 18 NVLink-4 links per GPU through NVSwitch
    node_.nvlink_links = 18;
    node_.nvswitch = true;
    for (int r = 0; r < nodes * gpus_per_node; ++r) {
      RankInfo info;
      info.rank = r;
      info.node = r / gpus_per_node;
      info.pod = info.node;
      info.local_gpu = r % gpus_per_node;
      info.pod_rank = info.local_gpu;
      ranks_.push_back(info);
      tx_.push_back(net.add_link("gpu" + std::to_string(r) + ".tx", "nvlink", B * port_eff, sim::Time::zero()));
      rx_.push_back(net.add_link("gpu" + std::to_string(r) + ".rx", "nvlink", B * port_eff, sim::Time::zero()));
    }
    for (int n = 0; n < nodes; ++n) {
      nic_tx_.push_back(net.add_link("nic" + std::to_string(n) + ".tx", "ib", B_net, sim::Time::zero()));
      nic_rx_.push_back(net.add_link("nic" + std::to_string(n) + ".rx", "ib", B_net, sim::Time::zero()));
    }
  }
  int size() const override { return static_cast<int>(ranks_.size()); }
  int nodes() const override { return nodes_; }
  const RankInfo& rank(int r) const override { return ranks_[r]; }
  Transport transport(int a, int b) const override {
    Transport t;
    if (ranks_[a].node == ranks_[b].node) {
      t.kind = TransportKind::P2P;
      t.link_class = LinkClass::NVLink;
      t.label = "P2P/CUMEM";
    } else {
      t.kind = TransportKind::NET;
      t.link_class = LinkClass::IB;
      t.label = "NET/IB/0/GDRDMA";
      t.gdr = true;
    }
    return t;
  }
  void path(int a, int b, std::vector<sim::LinkId>& out) const override {
    if (ranks_[a].node == ranks_[b].node) {
      out.push_back(tx_[a]);
      out.push_back(rx_[b]);
    } else {
      out.push_back(nic_tx_[ranks_[a].node]);
      out.push_back(nic_rx_[ranks_[b].node]);
    }
  }
  // The sender's side is the first link (tx port or NIC), the receiver's the second.
  std::optional<std::size_t> path_split(int a, int b, std::vector<sim::LinkId>& out) const override {
    path(a, b, out);
    return 1;
  }
  std::optional<int> fabric_pod(int) const override { return 0; }
  double raw_capacity(sim::LinkId l, const sim::FlowNetwork& net) const override {
    return net.link_kind(l) == "nvlink" ? B_ : net.link_capacity(l);
  }
  void host_to_gpu(int, std::vector<sim::LinkId>&) const override {}
  void gpu_to_host(int, std::vector<sim::LinkId>&) const override {}
  std::string describe() const override { return "fake"; }
  const models::topology::Placement& placement() const override { return placement_; }
  const models::hw::NodeSpec& node() const override { return node_; }
  const NcclEnv& nccl_env() const override { return env; }
  NcclEnv env;  // what World::build would have parsed from the scenario's [nccl.env]

 private:
  int nodes_, gpn_;
  double B_;
  std::vector<RankInfo> ranks_;
  std::vector<sim::LinkId> tx_, rx_, nic_tx_, nic_rx_;
  models::topology::Placement placement_;
  models::hw::NodeSpec node_;
};

struct Rig {
  sim::Simulator sim;
  sim::FlowNetwork net{sim};
  FakeWorld world;
  ScenarioSpec spec;
  std::unique_ptr<CollectiveEngine> engine;
  // `nccl_version`: the release whose rules apply (nccl.version; 0: the default).
  // `params`: [cluster.params] (registered names, models/params_links.hpp).
  Rig(int nodes, int gpn, double B, double B_net, std::map<std::string, std::string> env = {}, int nccl_version = 0,
      std::map<std::string, double> params = {})
      : world(net, nodes, gpn, B, B_net) {
    spec.nccl_env = std::move(env);
    spec.nccl_version = nccl_version;
    spec.cluster.params = std::move(params);
    world.env = parse_nccl_env(spec.nccl_env);
    world.env.version = nccl_version;
    net.set_audit(true);
    engine = make_collective_engine(sim, net, world, spec);
  }
  Group all() const {
    Group g;
    for (int r = 0; r < world.size(); ++r) g.ranks.push_back(r);
    return g;
  }
  // Runs one collective alone; returns its duration in seconds and the record.
  double run(CollOp op, int64_t bytes, CollectiveRecord* out = nullptr) {
    const double t0 = sim.now().seconds();
    double t1 = -1;
    engine->launch(all(), op, bytes, [&](const CollectiveRecord& r) {
      t1 = sim.now().seconds();
      if (out) *out = r;
    });
    sim.run();
    REQUIRE(t1 >= 0);
    return t1 - t0;
  }
};

const LinkParams P = LinkParams::defaults();
inline double hop(LinkClass c, Proto p) { return P.of(c).hop_latency_s[static_cast<int>(p)]; }
inline double eta(LinkClass c, Proto p) { return P.of(c).efficiency[static_cast<int>(p)]; }
}  // namespace collectives_test
