// The links a transfer crosses for each transport, and their physical capacities.
#include <catch2/catch.hpp>

#include "models/hw/links.hpp"
#include "models/params.hpp"
#include "models/spec.hpp"
#include "models/world/world.hpp"
#include "sim/flow_network.hpp"
#include "sim/simulator.hpp"

namespace {
std::vector<std::string> path_link_names(const sim::FlowNetwork& net, const std::vector<sim::LinkId>& ids) {
  std::vector<std::string> out;
  for (auto id : ids) out.emplace_back(net.link_name(id));
  return out;
}
models::ScenarioSpec scenario_world_paths(const std::string& instance, int pods, int gpus, int nodes = 1) {
  models::ScenarioSpec s;
  s.cluster.instance = instance;
  s.cluster.nodes = nodes;
  s.placement.pods_per_node = pods;
  s.placement.gpus_per_pod = gpus;
  return s;
}
using V = std::vector<std::string>;
}  // namespace

TEST_CASE("transport: P2P NVLink crosses the sender's NVLink tx and the receiver's rx", "[models][nccl]") {
  sim::Simulator simulator;
  sim::FlowNetwork net(simulator);
  auto w = models::World::build(scenario_world_paths("h200x4", 1, 4), net);
  std::vector<sim::LinkId> p;
  w->path(0, 1, p);
  CHECK(path_link_names(net, p) == V{"node0/gpu0/nvlink.tx", "node0/gpu1/nvlink.rx"});
  // 18 NVLink-4 links x 25 GB/s per direction (H100/H200 datasheet: 900 GB/s bidirectional);
  // the port's usable capacity is NCCL Simple's efficiency of it.
  const double eff = models::param_default("nvlink.efficiency.simple");
  CHECK(w->raw_capacity(p[0], net) == Approx(450e9));
  CHECK(net.link_capacity(p[0]) == Approx(450e9 * eff));
  CHECK(net.link_kind(p[0]) == "nvlink");
  // One flow on idle links: T = latency + bytes / bandwidth (flow_network.hpp).
  double done = -1;
  net.start(p, static_cast<int64_t>(450e6 * eff), [&] { done = simulator.now().seconds(); });
  simulator.run();
  CHECK(done == Approx(1e-3 + net.link_latency(p[0]).seconds() + net.link_latency(p[1]).seconds()));
}

TEST_CASE("transport: SHM and Socket paths go through host memory", "[models][nccl]") {
  sim::Simulator simulator;
  sim::FlowNetwork net(simulator);
  auto s = scenario_world_paths("h200x4", 1, 4);
  s.nccl_env["NCCL_P2P_DISABLE"] = "1";
  auto shm = models::World::build(s, net);
  std::vector<sim::LinkId> p;
  shm->path(0, 2, p);
  CHECK(path_link_names(net, p) == V{"node0/gpu0/pcie.up", "node0/hostmem", "node0/gpu2/pcie.down"});
  s.nccl_env["NCCL_SHM_DISABLE"] = "1";
  sim::FlowNetwork net2(simulator);
  auto sock = models::World::build(s, net2);
  p.clear();
  sock->path(0, 2, p);
  // One host: TCP over the kernel loopback, moved by both ranks' proxy threads (no helper
  // threads on a virtio NIC: NCCL's autoNt = 0).
  CHECK(path_link_names(net2, p) == V{"node0/gpu0/pcie.up", "node0/gpu0/proxy", "node0/gpu2/proxy", "node0/hostmem",
                            "node0/loopback", "node0/gpu2/pcie.down"});
  // The proxy link: raw 2 x kTcpThreadBytesPerS, usable eta[Socket][Simple] of it.
  CHECK(sock->raw_capacity(p[1], net2) == Approx(2 * models::hw::kTcpThreadBytesPerS));
  CHECK(net2.link_capacity(p[1]) ==
        Approx(2 * models::hw::kTcpThreadBytesPerS * models::param_default("socket.efficiency.simple")));
  CHECK(sock->tcp_edge().one_way == Approx(sock->tcp_edge().both_way / models::param_default("socket.thread_duplex")));
}

TEST_CASE("transport: NET with GDR uses the GPU's closest NIC, p4d shares one EFA per two GPUs", "[models][nccl]") {
  sim::Simulator simulator;
  sim::FlowNetwork net(simulator);
  auto w = models::World::build(scenario_world_paths("p4d.24xlarge", 1, 8, 2), net);
  std::vector<sim::LinkId> p;
  w->path(3, 11, p);  // GPU 3 of node 0 -> GPU 3 of node 1: both under switch 1 with EFA 1
  CHECK(path_link_names(net, p) == V{"node0/gpu3/pcie.up", "node0/nic1.tx", "node1/nic1.rx", "node1/gpu3/pcie.down"});
  // 100 Gb/s EFA v1: the NIC link carries NCCL's Simple efficiency (0.6), raw_capacity the line rate.
  CHECK(net.link_capacity(p[1]) == Approx(0.6 * 12.5e9));
  CHECK(w->raw_capacity(p[1], net) == Approx(12.5e9));
  CHECK(net.link_kind(p[1]) == "efa");
  // Staged (no GDR): host memory on both sides, crossing the switch uplinks.
  auto s = scenario_world_paths("p4d.24xlarge", 1, 8, 2);
  s.nccl_env["NCCL_NET_GDR_LEVEL"] = "LOC";
  sim::FlowNetwork net2(simulator);
  auto staged = models::World::build(s, net2);
  p.clear();
  staged->path(3, 11, p);
  CHECK(path_link_names(net2, p) == V{"node0/gpu3/pcie.up", "node0/pcisw1/pcie.up", "node0/hostmem", "node0/nic1.tx",
                            "node1/nic1.rx", "node1/hostmem", "node1/pcisw1/pcie.down", "node1/gpu3/pcie.down"});
}

TEST_CASE("transport: p5 spreads a GPU over its four EFAs, params override raw capacities", "[models][nccl]") {
  sim::Simulator simulator;
  sim::FlowNetwork net(simulator);
  auto s = scenario_world_paths("p5.48xlarge", 1, 8, 2);
  s.cluster.params["pcie.bandwidth"] = 40e9;
  auto w = models::World::build(s, net);
  std::vector<sim::LinkId> p;
  w->path(0, 8, p);
  CHECK(net.link_name(p[1]) == "node0/nic0-3.tx");
  CHECK(net.link_capacity(p[1]) == Approx(0.89 * 4 * 12.5e9));  // 4 x 100 Gb/s EFA v2 at its 0.89
  CHECK(w->raw_capacity(p[1], net) == Approx(4 * 12.5e9));
  CHECK(net.link_capacity(p[0]) == Approx(40e9));        // overridden
  CHECK(w->transport(0, 8).label == "NET/Libfabric/0/GDRDMA");
}

TEST_CASE("transport: 16k ranks build quickly and answer transports on demand", "[models][nccl]") {
  sim::Simulator simulator;
  sim::FlowNetwork net(simulator);
  auto w = models::World::build(scenario_world_paths("p5.48xlarge", 1, 8, 2048), net);
  CHECK(w->size() == 16384);
  CHECK(w->transport(0, 16383).kind == models::TransportKind::NET);
  CHECK(w->transport(16376, 16383).label == "P2P/CUMEM");
  std::vector<sim::LinkId> p;
  w->host_to_gpu(16383, p);
  CHECK(net.link_name(p.front()) == "node2047/hostmem");
}

TEST_CASE("transport: p5's PCIe switches reach the CPU at Gen4, its GPUs and NICs below them at Gen5",
          "[models][nccl]") {
  // aws-ofi-nccl's p5.48xl-topo.xml: GPUs at 32 GT/s under each switch, the switch's uplink to the
  // AMD Milan root port at 16 GT/s x16. Host traffic (staged network, offload) crosses the uplink.
  sim::Simulator simulator;
  sim::FlowNetwork net(simulator);
  auto s = scenario_world_paths("p5.48xlarge", 1, 8, 2);
  s.nccl_env["NCCL_NET_GDR_LEVEL"] = "LOC";
  auto w = models::World::build(s, net);
  std::vector<sim::LinkId> p;
  w->path(3, 11, p);
  REQUIRE(path_link_names(net, p).size() > 2);
  CHECK(path_link_names(net, p)[0] == "node0/gpu3/pcie.up");
  CHECK(path_link_names(net, p)[1] == "node0/pcisw3/pcie.up");
  CHECK(net.link_capacity(p[0]) == Approx(models::hw::pcie(5, 16).bytes_per_s));
  CHECK(net.link_capacity(p[1]) == Approx(models::hw::pcie(4, 16).bytes_per_s));
  CHECK(models::hw::pcie(4, 16).bytes_per_s == Approx(models::hw::pcie(5, 16).bytes_per_s / 2));
  // p5en's Sapphire Rapids hosts are Gen5 throughout.
  sim::FlowNetwork net2(simulator);
  auto en = scenario_world_paths("p5en.48xlarge", 1, 8, 2);
  en.nccl_env["NCCL_NET_GDR_LEVEL"] = "LOC";
  auto w2 = models::World::build(en, net2);
  p.clear();
  w2->path(3, 11, p);
  CHECK(net2.link_capacity(p[1]) == Approx(models::hw::pcie(5, 16).bytes_per_s));
}
