// The communicator plan's steps (comm_plan.cpp, graph_search.cpp) on the rig of rig.hpp and on a
// catalog instance: NCCL nodes, ring order, the tuner's view (compute capability from the
// catalog), rings per NIC group, tree sets.
#include <catch2/catch.hpp>

#include <map>
#include <numeric>
#include <set>
#include <string>

#include "models/comm_plan/comm_plan.hpp"
#include "models/hw/gpu.hpp"
#include "models/hw/instance.hpp"
#include "models/nccl/tuner_tables.hpp"
#include "tests/models/collectives/rig.hpp"

using namespace collectives_test;

namespace {
std::vector<int> plan_ranks(const World& w) {
  std::vector<int> r;
  for (int i = 0; i < w.size(); ++i) r.push_back(i);
  return r;
}
}  // namespace

TEST_CASE("comm plan: one NVSwitch node is one NCCL node, one ring, 12 channels x 30 GB/s on H200", "[nccl]") {
  // H200: 450 GB/s = 18 NVLink links of 25 GB/s, which NCCL rates at 20.6 GB/s each (topo.h):
  // 370.8 GB/s, so the fastest speed that still gives 12 channels is 30 GB/s (as logged on
  // 4 x H200: scenarios/validation/h200x4/measured/nccl-tests/ar_g4_info.txt).
  Rig rig(1, 4, 450e9, 50e9);
  const CommPlan plan = build_plan(rig.world, rig.net, plan_ranks(rig.world));
  CHECK(plan.view.nnodes == 1);
  CHECK(plan.view.intra_nvlink);
  CHECK(plan.view.bw_intra_gbs == 30);
  CHECK(plan.view.graph_channels == 12);
  CHECK(plan.ring == std::vector<int>{0, 1, 2, 3});
  REQUIRE(plan.rings.size() == 1);
  CHECK(plan.rings[0].size() == 4);
  REQUIRE(plan.trees.size() == 1);
  CHECK(plan.trees[0].chain_up.size() == 3);  // a chain of 4 GPUs
  CHECK(plan.trees[0].up[0].empty());         // no node to cross
  CHECK(plan.ring_merged.size() == 4);
}

TEST_CASE("comm plan: across nodes the network is rated at NIC speed, one graph channel per NIC", "[nccl]") {
  Rig rig(2, 4, 450e9, 12.5e9);
  const CommPlan plan = build_plan(rig.world, rig.net, plan_ranks(rig.world));
  CHECK(plan.view.nnodes == 2);
  CHECK(plan.view.bw_inter_gbs == Approx(12.5));
  CHECK(plan.view.graph_channels == 1);  // one NIC per node
  CHECK(plan.node_of == std::vector<int>{0, 0, 0, 0, 1, 1, 1, 1});
  REQUIRE(plan.rings.size() == 1);  // one NIC group: one ring
  // The ring leaves each node once: edges 3->4 and 7->0 cross the NICs.
  CHECK(plan.rings[0][3].link_class == LinkClass::IB);
  CHECK(plan.rings[0][7].link_class == LinkClass::IB);
  // Double binary tree over 2 leaders: tree 0 has 1 -> 0, tree 1 mirrors it (0 -> 1).
  REQUIRE(plan.trees.size() == 1);
  REQUIRE(plan.trees[0].up[0].size() == 1);
  CHECK(plan.trees[0].up[0][0].from == 4);
  CHECK(plan.trees[0].up[0][0].to == 0);
  CHECK(plan.trees[0].up[1][0].from == 0);
  CHECK(plan.trees[0].up[1][0].to == 4);
}

TEST_CASE("comm plan: one ring per NIC group, each leaving a node through a different GPU (p5, 2 nodes)", "[nccl]") {
  ScenarioSpec spec;
  spec.cluster.instance = "p5.48xlarge";
  spec.cluster.nodes = 2;
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  auto world = World::build(spec, net);
  const CommPlan plan = build_plan(*world, net, plan_ranks(*world));
  CHECK(plan.view.graph_channels == 8);  // node 0's GPUs leave it by 8 NIC groups
  REQUIRE(plan.rings.size() == 8);
  REQUIRE(plan.trees.size() == 8);
  std::set<int> leaving;
  for (const auto& ring : plan.rings)
    for (const Edge& e : ring)
      if (world->rank(e.from).node == 0 && world->rank(e.to).node == 1) {
        leaving.insert(e.from);
        CHECK(e.rings_sharing == 1);  // a NIC carries only the ring that leaves by it
      }
  CHECK(leaving.size() == 8);
}

TEST_CASE("comm plan: without P2P and SHM every GPU is its own NCCL node (ncclTopoTrimSystem)", "[nccl]") {
  ScenarioSpec spec;
  spec.cluster.instance = "p5.48xlarge";
  spec.nccl_env = {{"NCCL_P2P_DISABLE", "1"}, {"NCCL_SHM_DISABLE", "1"}};
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  auto world = World::build(spec, net);
  const CommPlan plan = build_plan(*world, net, plan_ranks(*world));
  CHECK(plan.view.nnodes == 8);
  CHECK(plan.view.nranks == 8);
  CHECK(plan.node_of == std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7});
  REQUIRE(plan.trees.size() == 1);
  CHECK(plan.trees[0].chain_up.empty());   // one GPU per node: no chain
  CHECK(plan.trees[0].up[0].size() == 7);  // a binary tree over 8 leaders
}

TEST_CASE("comm plan: the tuner's compute capability is the catalog's, on every instance", "[nccl]") {
  const std::string instance = GENERATE(from_range(models::hw::instance_names()));
  models::ScenarioSpec spec;
  spec.cluster.instance = instance;
  sim::Simulator simulator;
  sim::FlowNetwork net(simulator);
  const auto world = models::World::build(spec, net);
  if (world->size() < 2) return;  // no communicator to plan on a one-GPU node
  std::vector<int> ranks(world->size());
  std::iota(ranks.begin(), ranks.end(), 0);
  const auto plan = models::collectives::build_plan(*world, net, ranks);
  INFO(instance << " (" << world->gpu_name() << ")");
  CHECK(plan.view.sm == models::hw::find_gpu(world->gpu_name()).sm);
}

TEST_CASE("comm plan: A100 is SM80, not SM86 as its name once suggested (A10 matched first)", "[nccl]") {
  models::ScenarioSpec spec;
  spec.cluster.instance = "p4d.24xlarge";
  sim::Simulator simulator;
  sim::FlowNetwork net(simulator);
  const auto world = models::World::build(spec, net);
  REQUIRE(world->gpu_name() == "A100-40GB");
  std::vector<int> ranks(world->size());
  std::iota(ranks.begin(), ranks.end(), 0);
  CHECK(models::collectives::build_plan(*world, net, ranks).view.sm == 80);
}

// The set orbits (docs/scale-design.md, after status item 6): the tree sets are one
// double binary tree with the node leader rotated one local GPU per set, and the NVLSTree port
// flows rotate the same way, so moving every set one on (set r's edge i to set r+1's edge i, the
// rank at local position j to j+1) maps the tree's and NVLSTree's edges onto themselves: every
// link gets one image (a bijection of the links they use), with the same capacity, and every
// edge's image has the same class, bandwidth, sharing and latency. A fold that keeps one set on
// folded links, one per link orbit, rests on this.
TEST_CASE("comm plan: rotating every node's GPUs one on maps the tree sets and NVLSTree's port edges onto themselves",
          "[nccl]") {
  for (const char* instance : {"p5.48xlarge", "p5en.48xlarge"}) {
    INFO(instance);
    ScenarioSpec spec;
    spec.cluster.instance = instance;
    spec.cluster.nodes = 24;  // not a power of two: the heap tree is uneven
    sim::Simulator sim;
    sim::FlowNetwork net(sim);
    auto world = World::build(spec, net);
    const CommPlan plan = build_plan(*world, net, plan_ranks(*world), kPlanTrees | kPlanNvlsTree);
    const int sets = static_cast<int>(plan.trees.size());
    REQUIRE(sets == 8);
    REQUIRE(plan.view.nvls);
    std::map<uint32_t, uint32_t> image, preimage;
    int mismatches = 0;
    auto map_edge = [&](const Edge& a, const Edge& b) {
      if (a.path.size() != b.path.size() || a.link_class != b.link_class || a.raw_bandwidth != b.raw_bandwidth ||
          a.rings_sharing != b.rings_sharing || a.p2p_read != b.p2p_read || a.fabric_latency_s != b.fabric_latency_s) {
        ++mismatches;
        return;
      }
      for (std::size_t j = 0; j < a.path.size(); ++j) {
        const auto [i1, fresh1] = image.try_emplace(a.path[j].index, b.path[j].index);
        const auto [i2, fresh2] = preimage.try_emplace(b.path[j].index, a.path[j].index);
        if (i1->second != b.path[j].index || i2->second != a.path[j].index ||
            net.link_capacity(a.path[j]) != net.link_capacity(b.path[j]))
          ++mismatches;
      }
    };
    for (int r = 0; r < sets; ++r) {
      const auto &a = plan.trees[r], &b = plan.trees[(r + 1) % sets];
      for (int t = 0; t < 2; ++t) {
        REQUIRE(a.up[t].size() == b.up[t].size());
        for (std::size_t i = 0; i < a.up[t].size(); ++i) {
          map_edge(a.up[t][i], b.up[t][i]);
          map_edge(a.down[t][i], b.down[t][i]);
        }
      }
      REQUIRE(a.chain_up.size() == b.chain_up.size());
      for (std::size_t i = 0; i < a.chain_up.size(); ++i) {
        map_edge(a.chain_up[i], b.chain_up[i]);
        map_edge(a.chain_down[i], b.chain_down[i]);
      }
    }
    const int ppn = static_cast<int>(plan.members.front().size());
    REQUIRE(plan.nvls_switch.size() == 2 * plan.members.size() * ppn);  // per rank: to and from the switch
    for (std::size_t k = 0; k < plan.members.size(); ++k)
      for (int j = 0; j < ppn; ++j)
        for (int d = 0; d < 2; ++d) {
          const auto& a = plan.nvls_switch[(k * ppn + j) * 2 + d];
          const auto& b = plan.nvls_switch[(k * ppn + (j + 1) % ppn) * 2 + d];
          CHECK(a.bytes_frac == b.bytes_frac);
          map_edge(a.edge, b.edge);
        }
    CHECK(mismatches == 0);
    CHECK(image.size() == preimage.size());
    CHECK(image.size() == static_cast<std::size_t>(spec.cluster.nodes) * 48);  // 16 ports, 32 PCIe/NIC links per node
  }
}

namespace {
// `nodes` one-GPU nodes of `instance` under NCCL `version`, the world communicator's tuner view.
struct OneGpuNodes {
  models::nccl::CommView view;
  models::nccl::TuningEnv env;
};
OneGpuNodes one_gpu_nodes(const char* instance, int nodes, int version,
                          std::map<std::string, std::string> nccl_env = {}) {
  models::ScenarioSpec spec;
  spec.cluster.instance = instance;
  spec.cluster.nodes = nodes;
  spec.placement.gpus_per_pod = 1;
  spec.nccl_env = std::move(nccl_env);
  spec.nccl_version = version;
  sim::Simulator simulator;
  sim::FlowNetwork net(simulator);
  const auto world = models::World::build(spec, net);
  REQUIRE(world->size() == nodes);
  std::vector<int> ranks(world->size());
  std::iota(ranks.begin(), ranks.end(), 0);
  return {models::collectives::build_plan(*world, net, ranks).view, world->nccl_env().tuning};
}
}  // namespace

TEST_CASE("comm plan: GPUDirect-TCPX's device-offload plugin keeps PAT off by default in NCCL 2.23 only", "[nccl]") {
  using models::nccl::Algo;
  using models::nccl::CollOp;
  using models::nccl::nccl_version_number;
  // ncclPatEnable (2.23 src/graph/tuning.cc): "PAT doesn't support net device offload", read from
  // comm->netDeviceType, which 2.23's topo.cc sets from the plugin (TCPX: NCCL_NET_DEVICE_UNPACK)
  // and which nothing sets from 2.24 on (it stays NCCL_NET_DEVICE_HOST).
  const int v23 = nccl_version_number(23, 4), v24 = nccl_version_number(24, 3);
  const int64_t S = 65536;  // 64 KiB: PAT's log-depth latency wins on 16 one-GPU nodes where it is on
  // The catalog's A3 High runs Google's TCPX environment, NCCL_ALGO=Ring; the rule shows where
  // NCCL may choose between rings and PAT.
  const std::map<std::string, std::string> ring_or_pat = {{"NCCL_ALGO", "Ring,PAT"}};
  const OneGpuNodes tcpx23 = one_gpu_nodes("a3-highgpu-8g", 16, v23, ring_or_pat);
  CHECK(tcpx23.view.nnodes == 16);
  CHECK(tcpx23.view.net_device_unpack);
  CHECK_FALSE(models::nccl::pat_enabled(tcpx23.view, tcpx23.env));
  CHECK(models::nccl::choose(tcpx23.view, tcpx23.env, CollOp::AllGather, S).algo == Algo::Ring);
  models::nccl::CommView host23 = tcpx23.view;  // the same view over a host plugin: PAT
  host23.net_device_unpack = false;
  CHECK(models::nccl::choose(host23, tcpx23.env, CollOp::AllGather, S).algo == Algo::PAT);
  // NCCL_PAT_ENABLE=1 forces it, as ncclPatEnable returns the variable before its checks.
  const OneGpuNodes forced =
      one_gpu_nodes("a3-highgpu-8g", 16, v23, {{"NCCL_PAT_ENABLE", "1"}, {"NCCL_ALGO", "Ring,PAT"}});
  CHECK(models::nccl::pat_enabled(forced.view, forced.env));
  // 2.24 and the default release: the check reads host, PAT as on any plugin.
  for (const int version : {v24, 0}) {
    const OneGpuNodes tcpx = one_gpu_nodes("a3-highgpu-8g", 16, version, ring_or_pat);
    CHECK(tcpx.view.net_device_unpack);
    CHECK(models::nccl::pat_enabled(tcpx.view, tcpx.env));
  }
  const OneGpuNodes tcpx24 = one_gpu_nodes("a3-highgpu-8g", 16, v24, ring_or_pat);
  CHECK(models::nccl::choose(tcpx24.view, tcpx24.env, CollOp::AllGather, S).algo == Algo::PAT);
  // A host plugin under 2.23: TCPXO (A3 Mega), and TCPX's machine with NCCL_NET=Socket.
  const OneGpuNodes tcpxo23 = one_gpu_nodes("a3-megagpu-8g", 16, v23);
  CHECK_FALSE(tcpxo23.view.net_device_unpack);
  CHECK(models::nccl::pat_enabled(tcpxo23.view, tcpxo23.env));
  CHECK(models::nccl::choose(tcpxo23.view, tcpxo23.env, CollOp::AllGather, S).algo == Algo::PAT);
  const OneGpuNodes socket23 =
      one_gpu_nodes("a3-highgpu-8g", 16, v23, {{"NCCL_NET", "Socket"}, {"NCCL_ALGO", "Ring,PAT"}});
  CHECK_FALSE(socket23.view.net_device_unpack);
  CHECK(models::nccl::pat_enabled(socket23.view, socket23.env));
}
