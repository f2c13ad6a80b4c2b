// Multi-node NVLink (MNNVL): the transport between hosts of one NVLink domain and NCCL's node count
// (nccl/transport.cpp). NCCL's rules: src/graph/paths.cc ncclTopoCheckP2p (a different host hash
// allows P2P only within the MNNVL clique), src/init.cc (MNNVL checked when nNodes > 1 and
// NCCL_MNNVL_ENABLE != 0), src/graph/topo.cc (the clique fused into one NCCL node), p2p.cc
// ("via P2P/MNNVL").
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "models/spec.hpp"
#include "models/world/world.hpp"
#include "sim/flow_network.hpp"
#include "sim/simulator.hpp"

namespace {
models::ScenarioSpec rack(int nodes, int pods, int gpus_per_pod) {
  models::ScenarioSpec s;
  s.cluster.instance = "gb200-nvl72";
  s.cluster.nodes = nodes;
  s.placement.pods_per_node = pods;
  s.placement.gpus_per_pod = gpus_per_pod;
  return s;
}

struct Seen {
  std::set<std::string> same_host, other_host_same_domain, other_domain;
  std::string nnodes;
};

// The labels of rank 0's peers, by where the peer sits: on rank 0's tray, on another tray of its
// domain, in another domain.
Seen seen(const models::ScenarioSpec& spec) {
  sim::Simulator simulator;
  sim::FlowNetwork net(simulator);
  auto world = models::World::build(spec, net);
  Seen out;
  for (int b = 1; b < world->size(); ++b) {
    const auto& rb = world->rank(b);
    const std::string label = world->transport(0, b).label;
    if (rb.node != 0)
      out.other_domain.insert(label);
    else if (rb.local_gpu / 4 == 0)
      out.same_host.insert(label);
    else
      out.other_host_same_domain.insert(label);
  }
  out.nnodes = world->describe();
  return out;
}
using Labels = std::set<std::string>;
}  // namespace

TEST_CASE("mnnvl: the trays of an NVL72 rack reach each other over NVLink, P2P/MNNVL", "[models][nccl]") {
  // 18 pods (one per tray, as Kubernetes or Slurm place them) x 4 GPUs: every pair is P2P over the
  // NVLink switches; NCCL fuses the domain into one node (nNodes 1).
  const Seen s = seen(rack(1, 18, 4));
  CHECK(s.other_host_same_domain == Labels{"P2P/MNNVL"});
  // The same pod's GPUs: p2p.cc labels every cuMem connection of an MNNVL communicator "P2P/MNNVL".
  CHECK(s.same_host == Labels{"P2P/MNNVL"});
  CHECK(s.nnodes.find("NCCL nNodes 1") != std::string::npos);
}

TEST_CASE("mnnvl: two racks are two domains joined by the NICs", "[models][nccl]") {
  // 144 GPUs: within a rack P2P/MNNVL, across racks NET over the tray's InfiniBand NIC with
  // GPUDirect RDMA (the NIC beside its GPU); NCCL counts one node per domain.
  const Seen s = seen(rack(2, 18, 4));
  CHECK(s.other_host_same_domain == Labels{"P2P/MNNVL"});
  CHECK(s.other_domain == Labels{"NET/IB/0/GDRDMA"});
  CHECK(s.nnodes.find("NCCL nNodes 2") != std::string::npos);
}

TEST_CASE("mnnvl: without MNNVL each tray is its own NCCL node", "[models][nccl]") {
  // NCCL_MNNVL_ENABLE=0 (what a Kubernetes job without IMEX channels must set to start at all):
  // the trays of one rack talk over NET; within a tray's pod P2P over NVLink stays (same host).
  auto spec = rack(1, 18, 4);
  spec.nccl_env["NCCL_MNNVL_ENABLE"] = "0";
  const Seen s = seen(spec);
  CHECK(s.other_host_same_domain == Labels{"NET/IB/0/GDRDMA"});
  CHECK(s.same_host == Labels{"P2P/CUMEM"});
  CHECK(s.nnodes.find("NCCL nNodes 18") != std::string::npos);
  // NCCL_P2P_DISABLE=1 turns MNNVL off as well (src/init.cc: the P2P level must not be 0).
  auto off = rack(1, 18, 4);
  off.nccl_env["NCCL_P2P_DISABLE"] = "1";
  CHECK(seen(off).other_host_same_domain == Labels{"NET/IB/0/GDRDMA"});
}

TEST_CASE("mnnvl: a job on one tray needs no MNNVL", "[models][nccl]") {
  // 4 GPUs of one tray in one pod: one host, P2P/CUMEM as on any NVSwitch host.
  const Seen s = seen(rack(1, 1, 4));
  CHECK(s.same_host == Labels{"P2P/CUMEM"});
  CHECK(s.nnodes.find("NCCL nNodes 1") != std::string::npos);
}
