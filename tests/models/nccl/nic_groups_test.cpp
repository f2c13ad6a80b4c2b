// NIC assignment on one node (models/nccl/nic_groups.hpp): which NICs a pod sees, which a GPU
// sends through. Rigs: p4d.24xlarge (8 A100, 4 EFA, one per pair of GPUs under a PCIe switch)
// and p5.48xlarge (8 H100, 32 EFA, four per GPU).
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "models/error.hpp"
#include "models/nccl/nic_groups.hpp"
#include "models/topology/resolve.hpp"

using models::nccl::assign_nics;
using models::nccl::NicAssignment;

namespace {
struct Node {
  models::hw::NodeSpec spec;
  models::topology::NodeGraph graph;
  explicit Node(const std::string& instance)
      : spec(models::topology::resolve_node([&] {
          models::ClusterSpec c;
          c.instance = instance;
          return c;
        }())),
        graph(spec) {}
};
}  // namespace

TEST_CASE("nic groups: one pod sees every NIC, each GPU sends through the NICs nearest to it", "[nccl]") {
  const Node p4d("p4d.24xlarge");
  REQUIRE(p4d.graph.nics() == 4);
  const NicAssignment a = assign_nics(p4d.graph, {1, 1, 8});
  REQUIRE(a.pod_nics.size() == 1);
  CHECK(a.pod_nics[0] == std::vector<int>{0, 1, 2, 3});
  CHECK(a.groups.size() == 4);  // one EFA per pair of GPUs
  for (int g = 0; g < 8; ++g) {
    INFO("GPU " << g);
    REQUIRE(a.gpu_group[g] >= 0);
    CHECK(a.groups[a.gpu_group[g]].nics.size() == 1);
    CHECK(a.gpu_group[g] == a.gpu_group[g ^ 1]);                         // GPUs 2k and 2k+1 share their switch's EFA
    CHECK(a.gpu_nic_label[g] == a.groups[a.gpu_group[g]].nics.front());  // the pod sees all: label = index
  }
  const Node p5("p5.48xlarge");
  REQUIRE(p5.graph.nics() == 32);
  const NicAssignment b = assign_nics(p5.graph, {1, 1, 8});
  CHECK(b.groups.size() == 8);
  for (int g = 0; g < 8; ++g) CHECK(b.groups[b.gpu_group[g]].nics.size() == 4);
}

TEST_CASE("nic groups: GPUs under one switch with as many NICs each take their own", "[nccl]") {
  // DGX A100: two GPUs and two HDR NICs under each PCIe switch. NCCL pairs each GPU with a NIC of
  // its own (ncclTopoGetLocalNet), so all eight NICs carry rings, not one of each pair.
  const Node dgx("dgx-a100");
  REQUIRE(dgx.graph.nics() == 8);
  const NicAssignment a = assign_nics(dgx.graph, {1, 1, 8});
  CHECK(a.groups.size() == 8);
  std::set<int> used;
  for (int g = 0; g < 8; ++g) {
    INFO("GPU " << g);
    REQUIRE(a.gpu_group[g] >= 0);
    const std::vector<int>& nics = a.groups[a.gpu_group[g]].nics;
    REQUIRE(nics.size() == 1);
    CHECK(dgx.graph.nic_switch(nics[0]) == dgx.graph.gpu_switch(g));  // its own switch's NIC
    used.insert(nics[0]);
  }
  CHECK(used.size() == 8);
}

TEST_CASE("nic groups: pods get NICs of their own while there are enough, then share", "[nccl]") {
  const Node p4d("p4d.24xlarge");
  // seeds/000: 4 pods x 1 GPU, each pod asks for one EFA: four different EFAs, each seen as dev 0.
  const NicAssignment four = assign_nics(p4d.graph, {1, 4, 1});
  std::set<int> held;
  for (int pod = 0; pod < 4; ++pod) {
    INFO("pod " << pod);
    REQUIRE(four.pod_nics[pod].size() == 1);
    held.insert(four.pod_nics[pod][0]);
    CHECK(four.gpu_nic_label[pod] == 0);
  }
  CHECK(held.size() == 4);
  // 8 pods x 1 GPU, 4 EFAs: no pod can hold one alone; each uses the one next to its GPU.
  const NicAssignment eight = assign_nics(p4d.graph, {1, 8, 1});
  for (int pod = 0; pod < 8; ++pod) {
    REQUIRE(eight.pod_nics[pod].size() == 1);
    CHECK(eight.pod_nics[pod] == eight.pod_nics[pod ^ 1]);
  }
}

TEST_CASE("nic groups: placement.nics_per_pod, a p5 pod holding 1 EFA sends every GPU through it", "[nccl]") {
  const Node p5("p5.48xlarge");
  const NicAssignment one = assign_nics(p5.graph, {1, 1, 8}, 1);
  REQUIRE(one.pod_nics[0].size() == 1);
  REQUIRE(one.groups.size() == 1);
  for (int g = 0; g < 8; ++g) CHECK(one.gpu_group[g] == 0);
  // 4 EFAs: taken round-robin over the GPUs, each the closest left: GPUs 0-3 each get their own.
  const NicAssignment four = assign_nics(p5.graph, {1, 1, 8}, 4);
  REQUIRE(four.pod_nics[0].size() == 4);
  std::set<int> switches;
  for (int n : four.pod_nics[0]) switches.insert(p5.graph.nic_switch(n));
  CHECK(switches.size() == 4);
  // More than the node has: an error naming the key.
  try {
    assign_nics(p5.graph, {1, 2, 4}, 17);
    FAIL("expected a SpecError");
  } catch (const models::SpecError& e) {
    CHECK(e.key() == "placement.nics_per_pod");
  }
}
