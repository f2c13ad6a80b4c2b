// PXN (NCCL src/graph/paths.cc, "Update paths for NICs"): a GPU whose own path to its NIC crosses
// the CPU sends through the NIC's local GPU over NVLink, with GPUDirect RDMA from that GPU's
// PCIe switch, and NCCL logs the relay rank: "NET/<plugin>/<dev>(<rank>)/GDRDMA". Receives stay
// on the GPU's own path. The case: a p5 pod holding one EFA (placement.nics_per_pod = 1,
// Kubernetes "vpc.amazonaws.com/efa: 1"), whose NIC hangs off GPU 0's PCIe switch.
#include <catch2/catch.hpp>

#include <algorithm>

#include "models/spec.hpp"
#include "models/world/topo_text.hpp"
#include "models/world/world.hpp"
#include "sim/flow_network.hpp"
#include "sim/simulator.hpp"

namespace {
using V = std::vector<std::string>;
models::ScenarioSpec one_efa_pod(std::map<std::string, std::string> env = {}) {
  models::ScenarioSpec s;
  s.cluster.instance = "p5.48xlarge";
  s.cluster.nodes = 2;
  s.placement.pods_per_node = 1;
  s.placement.gpus_per_pod = 8;
  s.placement.nics_per_pod = 1;
  s.nccl_env = std::move(env);
  return s;
}
V path_names(const models::World& w, const sim::FlowNetwork& net, int a, int b) {
  std::vector<sim::LinkId> p;
  w.path(a, b, p);
  V out;
  for (auto id : p) out.emplace_back(net.link_name(id));
  return out;
}
}  // namespace

TEST_CASE("pxn: a GPU without its own NIC sends over NVLink to the NIC's GPU, then GPUDirect RDMA", "[models][nccl]") {
  sim::Simulator simulator;
  sim::FlowNetwork net(simulator);
  auto w = models::World::build(one_efa_pod(), net);
  // GPU 0 is PIX to the pod's EFA: its own path, GDR.
  CHECK(w->transport(0, 8).label == "NET/Libfabric/0/GDRDMA");
  CHECK_FALSE(w->transport(0, 8).pxn_gpu);
  // GPU 3's path to that EFA crosses the CPU (NODE: between host bridges): PXN through GPU 0 (rank 0).
  const models::Transport t = w->transport(3, 8);
  REQUIRE(t.pxn_gpu);
  CHECK(*t.pxn_gpu == 0);
  CHECK(t.gdr);
  CHECK(t.label == "NET/Libfabric/0(0)/GDRDMA");
  // Sender: its NVLink tx, GPU 0's NVLink rx, GPU 0's PCIe to the switch, the NIC; the receiver
  // (GPU 0 of node 1) takes it with GDR from its own switch.
  const V send = path_names(*w, net, 3, 8);
  REQUIRE(send.size() >= 5);
  CHECK(V(send.begin(), send.begin() + 3) == V{"node0/gpu3/nvlink.tx", "node0/gpu0/nvlink.rx", "node0/gpu0/pcie.up"});
  CHECK(std::find(send.begin(), send.end(), "node0/hostmem") == send.end());
  CHECK(send.back() == "node1/gpu0/pcie.down");
  // Receiving on GPU 3 (from node 1's GPU 0) is not PXN: through host memory, GPU 3's own PCIe.
  const V recv = path_names(*w, net, 8, 3);
  CHECK(std::find(recv.begin(), recv.end(), "node0/hostmem") != recv.end());
  CHECK(recv.back() == "node0/gpu3/pcie.down");
  CHECK(std::find(recv.begin(), recv.end(), "node0/gpu3/nvlink.rx") == recv.end());
}

TEST_CASE("pxn: NCCL_PXN_DISABLE=1 sends through the CPU and host memory, without GDR", "[models][nccl]") {
  sim::Simulator simulator;
  sim::FlowNetwork net(simulator);
  auto w = models::World::build(one_efa_pod({{"NCCL_PXN_DISABLE", "1"}}), net);
  const models::Transport t = w->transport(3, 8);
  CHECK_FALSE(t.pxn_gpu);
  CHECK_FALSE(t.gdr);
  CHECK(t.label == "NET/Libfabric/0");
  const V send = path_names(*w, net, 3, 8);
  CHECK(send.front() == "node0/gpu3/pcie.up");
  CHECK(std::find(send.begin(), send.end(), "node0/hostmem") != send.end());
}

TEST_CASE("pxn: commsim topo says which GPUs use PXN and why", "[models][nccl]") {
  const std::string text = models::render_topo(one_efa_pod(), 0);
  CHECK(text.find("PXN (NCCL_PXN_DISABLE=0)") != std::string::npos);
  // GPU 5 sits on the other socket: SYS to the pod's EFA, which is PIX from GPU 0.
  CHECK(text.find(
            "rank 5 (GPU 5): NIC 0 is SYS from it, PIX from GPU 0 (rank 0), NVLink between them: sends via GPU 0") !=
        std::string::npos);
  CHECK(text.find("rank 3 (GPU 3)") != std::string::npos);
  CHECK(text.find("rank 0 (GPU 0)") == std::string::npos);  // its own NIC: no PXN
  // One EFA per GPU (the default share of 4): nobody needs PXN.
  models::ScenarioSpec full = one_efa_pod();
  full.placement.nics_per_pod = 0;
  CHECK(models::render_topo(full, 0).find("PXN") == std::string::npos);
}
