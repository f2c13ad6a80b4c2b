// The transport NCCL picks per rank pair, pinned against the labels in real logs.
#include <catch2/catch.hpp>
#include <set>

#include "models/error.hpp"
#include "models/spec.hpp"
#include "models/world/world.hpp"
#include "sim/flow_network.hpp"
#include "sim/simulator.hpp"

namespace {
models::ScenarioSpec scenario_transport_table(const std::string& instance, int pods, int gpus_per_pod, int nodes = 1) {
  models::ScenarioSpec s;
  s.cluster.instance = instance;
  s.cluster.nodes = nodes;
  s.placement.pods_per_node = pods;
  s.placement.gpus_per_pod = gpus_per_pod;
  return s;
}

// Every ordered pair's label (a != b); the test asserts the set has one element.
std::set<std::string> labels(const models::ScenarioSpec& spec) {
  sim::Simulator simulator;
  sim::FlowNetwork net(simulator);
  auto world = models::World::build(spec, net);
  std::set<std::string> out;
  for (int a = 0; a < world->size(); ++a)
    for (int b = 0; b < world->size(); ++b)
      if (a != b) out.insert(world->transport(a, b).label);
  return out;
}
using Labels = std::set<std::string>;
}  // namespace

TEST_CASE("transport: p4d 1 pod x 8 GPUs is P2P over NVLink in read mode", "[models][nccl]") {
  // paths.cc: NVL path <= PXB level -> P2P; read for NVLink between two SM80 GPUs; torchrun has one
  // process per GPU -> cuMem handles. seeds/002: "via P2P/CUMEM/read" on p4d.24xlarge.
  CHECK(labels(scenario_transport_table("p4d.24xlarge", 1, 8)) == Labels{"P2P/CUMEM/read"});
}

TEST_CASE("transport: p4d 8 pods x 1 GPU go over EFA with GPUDirect RDMA", "[models][nccl]") {
  // Pods have their own hostname -> different host hash -> NET; the pod's EFA shares the GPU's
  // PCIe switch (PIX <= PXB) -> GDRDMA. seeds/000: "via NET/Libfabric/0/GDRDMA", nNodes 4.
  CHECK(labels(scenario_transport_table("p4d.24xlarge", 8, 1)) == Labels{"NET/Libfabric/0/GDRDMA"});
}

TEST_CASE("transport: p4d 8 pods x 1 GPU with aws-ofi-nccl failing fall back to Socket", "[models][nccl]") {
  // seeds/004: "NET/OFI aws-ofi-nccl initialization failed" ... "NET/IB : No device found" ->
  // "Using network Socket", "via NET/Socket/0".
  auto s = scenario_transport_table("p4d.24xlarge", 8, 1);
  s.placement.efa_plugin_ok = false;
  CHECK(labels(s) == Labels{"NET/Socket/0"});
}

TEST_CASE("transport: g6e.12xlarge 1 x 4 uses SHM across its NODE paths", "[models][nccl]") {
  // seeds/000 topo -m: every pair NODE (NCCL: PHB) > default P2P level PXB (AMD host, 4 GPUs, so
  // no SYS exception) -> no P2P; same pod -> SHM. No seed log shows this machine's transport.
  CHECK(labels(scenario_transport_table("g6e.12xlarge", 1, 4)) == Labels{"SHM/direct/direct"});
  // With NCCL_P2P_LEVEL=PHB (or SYS) P2P over PCIe is allowed; L40S is SM89: write mode.
  auto s = scenario_transport_table("g6e.12xlarge", 1, 4);
  s.nccl_env["NCCL_P2P_LEVEL"] = "PHB";
  CHECK(labels(s) == Labels{"P2P/CUMEM"});
}

TEST_CASE("transport: calibration machine defaults", "[models][nccl]") {
  // nccl-tests -g 4 (one process): ar_g4_info.txt "via P2P/direct pointer"; torchrun 4 processes:
  // logs/p2p_n4.rank0.log "via P2P/CUMEM"; H200 is SM90: no read mode.
  auto s = scenario_transport_table("h200x4", 1, 4);
  CHECK(labels(s) == Labels{"P2P/CUMEM"});
  s.placement.single_process = true;
  CHECK(labels(s) == Labels{"P2P/direct pointer"});
}

TEST_CASE("transport: calibration machine with NCCL_P2P_DISABLE=1 uses SHM", "[models][nccl]") {
  // ncclGetLevel: NCCL_P2P_DISABLE=1 -> level LOC; shm.cc then connects (ar_g4_shm.txt).
  auto s = scenario_transport_table("h200x4", 1, 4);
  s.nccl_env["NCCL_P2P_DISABLE"] = "1";
  CHECK(labels(s) == Labels{"SHM/direct/direct"});
}

TEST_CASE("transport: calibration machine with P2P and SHM disabled uses Socket", "[models][nccl]") {
  // logs/sock_n4.rank0.log: NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 -> "via NET/Socket/0" (no NIC).
  auto s = scenario_transport_table("h200x4", 1, 4);
  s.nccl_env["NCCL_P2P_DISABLE"] = "1";
  s.nccl_env["NCCL_SHM_DISABLE"] = "1";
  CHECK(labels(s) == Labels{"NET/Socket/0"});
}

TEST_CASE("transport: read mode follows NCCL_P2P_READ_ENABLE", "[models][nccl]") {
  // p2p.cc: NCCL_P2P_READ_ENABLE overrides the SM80 default both ways.
  auto s = scenario_transport_table("p4d.24xlarge", 1, 8);
  s.nccl_env["NCCL_P2P_READ_ENABLE"] = "0";
  CHECK(labels(s) == Labels{"P2P/CUMEM"});
  auto h = scenario_transport_table("h200x4", 1, 4);
  h.nccl_env["NCCL_P2P_READ_ENABLE"] = "1";
  CHECK(labels(h) == Labels{"P2P/CUMEM/read"});
}

TEST_CASE("transport: pods on one host share host hash only with host networking", "[models][nccl]") {
  // getHostHash: hostname + boot id. host_network gives pods the node's hostname; with host IPC
  // they share /dev/shm -> SHM (they cannot see each other's GPUs, so no P2P).
  auto s = scenario_transport_table("p4d.24xlarge", 4, 2);
  s.placement.host_network = true;
  s.placement.host_ipc = true;
  sim::Simulator simulator;
  sim::FlowNetwork net(simulator);
  auto world = models::World::build(s, net);
  CHECK(world->transport(0, 1).label == "P2P/CUMEM/read");     // same pod
  CHECK(world->transport(0, 2).label == "SHM/direct/direct");  // other pod, same NUMA node
  // Across sockets, paths.cc ncclTopoCheckNet: through the CPUs NCCL rates the path at the
  // inter-socket 10 GB/s (topo.h SKL_QPI_BW) < the EFA at PIX, 100 Gb/s = 12.5 GB/s -> NET.
  CHECK(world->transport(0, 4).label == "NET/Libfabric/0/GDRDMA");
  s.placement.host_ipc = false;  // separate /dev/shm -> NET even on one socket
  sim::FlowNetwork net2(simulator);
  CHECK(models::World::build(s, net2)->transport(0, 2).label == "NET/Libfabric/0/GDRDMA");
  s.placement.host_network = false;  // separate host hashes: nothing but NET between pods
  CHECK(labels(s).count("SHM/direct/direct") == 0);
}

TEST_CASE("transport: two p4d nodes: NVLink inside, EFA with GDR between", "[models][nccl]") {
  auto s = scenario_transport_table("p4d.24xlarge", 1, 8, 2);
  sim::Simulator simulator;
  sim::FlowNetwork net(simulator);
  auto world = models::World::build(s, net);
  CHECK(world->transport(0, 7).label == "P2P/CUMEM/read");
  // GPU 2 and 3 sit under the second PCIe switch with EFA 1: NCCL logs that NIC's index.
  CHECK(world->transport(2, 10).label == "NET/Libfabric/1/GDRDMA");
  CHECK(world->transport(0, 8).kind == models::TransportKind::NET);
  // NCCL_NET_GDR_LEVEL=LOC disables GPUDirect RDMA (path PIX > LOC): staged through host memory.
  s.nccl_env["NCCL_NET_GDR_LEVEL"] = "LOC";
  sim::FlowNetwork net2(simulator);
  auto staged = models::World::build(s, net2);
  CHECK(staged->transport(0, 8).label == "NET/Libfabric/0");
}

TEST_CASE("transport: NCCL_P2P_LEVEL legacy integers and names", "[models][nccl]") {
  // levelsOldToNew = {LOC, PIX, PXB, PHB, SYS, SYS}: 0 -> LOC, which blocks even NVL (1 > 0).
  auto s = scenario_transport_table("p4d.24xlarge", 1, 8);
  s.nccl_env["NCCL_P2P_LEVEL"] = "0";
  {
    sim::Simulator simulator;
    sim::FlowNetwork net(simulator);
    auto world = models::World::build(s, net);
    CHECK(world->transport(0, 3).label == "SHM/direct/direct");  // one socket: SHM
    // Across sockets NET beats the 10 GB/s inter-socket path (ncclTopoCheckNet), as above.
    CHECK(world->transport(0, 4).label == "NET/Libfabric/0/GDRDMA");
    CHECK(world->transport(4, 0).label == "NET/Libfabric/2/GDRDMA");
  }
  s.nccl_env["NCCL_P2P_LEVEL"] = "NVL";  // seeds/002 pod spec: still P2P/CUMEM/read
  CHECK(labels(s) == Labels{"P2P/CUMEM/read"});
  auto g = scenario_transport_table("g6e.12xlarge", 1, 4);
  g.nccl_env["NCCL_P2P_LEVEL"] = "5";  // -> SYS
  CHECK(labels(g) == Labels{"P2P/CUMEM"});
}
