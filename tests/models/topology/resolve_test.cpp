// The node a scenario describes (models/topology/resolve.hpp): what a custom node without its
// topo file says about its NICs.
#include "models/topology/resolve.hpp"

#include <catch2/catch.hpp>

#include <string>

namespace {
models::ClusterSpec custom_cluster_resolve(int nics, const std::string& kind) {
  models::ClusterSpec c;
  c.nodes = 2;
  c.node = models::CustomNodeSpec{};
  c.node->gpu = "H200";
  c.node->gpus = 8;
  c.node->nvlink = "nvlink4";
  c.node->nvswitch = true;
  c.node->nics = nics;
  c.node->nic_kind = kind;
  c.node->nic_bytes_per_s = 50e9;
  return c;
}
}  // namespace

TEST_CASE("resolve: a custom node's NICs on root ports of their own are said to run without GPUDirect RDMA",
          "[models]") {
  const models::hw::NodeSpec ib = models::topology::resolve_node(custom_cluster_resolve(8, "ib"));
  CHECK(ib.nics_per_switch == 0);
  CHECK(ib.network_note == models::topology::kCustomNicNote);
  CHECK(ib.network_caveat(2) == std::string("custom: ") + models::topology::kCustomNicNote);
  CHECK(ib.network_caveat(1).empty());  // one node: no network in play
  // No NIC, or only the host's Ethernet (NET/Socket, never GPUDirect): nothing to say.
  CHECK(models::topology::resolve_node(custom_cluster_resolve(0, "ib")).network_note.empty());
  CHECK(models::topology::resolve_node(custom_cluster_resolve(2, "eth")).network_note.empty());
  // A catalog HGX node keeps NIC i beside GPU i: no such note.
  models::ClusterSpec dgx;
  dgx.instance = "dgx-h200";
  dgx.nodes = 2;
  CHECK(models::topology::resolve_node(dgx).network_note.find("GPUDirect") == std::string::npos);
}
