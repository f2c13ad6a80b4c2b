// [[stragglers]] link = "..." (models/world/link_stragglers.hpp): every link whose name matches
// keeps bandwidth_factor f of its capacity and takes latency_factor g times its latency.
//   C' = f C: a ring whose narrowest link is the slowed one moves its bytes at f times the rate,
//             so the all-reduce's bandwidth term, T(S) = a + b S, has slope b' = b / f;
//   L' = g L: a collective edge crossing the link gains (g - 1) L of hop latency.
#include <catch2/catch.hpp>

#include "models/comm_plan/comm_plan.hpp"
#include "models/error.hpp"
#include "models/run/run.hpp"
#include "models/spec.hpp"
#include "models/topology/fabric.hpp"
#include "models/world/link_stragglers.hpp"
#include "models/world/world.hpp"
#include "sim/flow_network.hpp"
#include "sim/simulator.hpp"

using namespace models;

namespace {
ScenarioSpec ring_on_link_stragglers(const std::string& instance, int nodes, int64_t bytes) {
  ScenarioSpec s;
  s.cluster.instance = instance;
  s.cluster.nodes = nodes;
  s.collective = CollectiveSpec{"all_reduce", bytes, 1};
  s.nccl_env = {{"NCCL_ALGO", "Ring"}, {"NCCL_PROTO", "Simple"}};
  return s;
}
StragglerSpec slow_link(const std::string& pattern, double f, double g = 1) {
  StragglerSpec st;
  st.link = pattern;
  st.bandwidth_factor = f;
  st.latency_factor = g;
  return st;
}
// The all-reduce's slope over two sizes (seconds per byte): the latency terms cancel.
double slope(ScenarioSpec s) {
  const int64_t a = int64_t{1} << 28, b = int64_t{1} << 30;
  s.collective->bytes = a;
  const double ta = run_scenario(s).step_time_s;
  s.collective->bytes = b;
  const double tb = run_scenario(s).step_time_s;
  return (tb - ta) / static_cast<double>(b - a);
}
}  // namespace

TEST_CASE("link stragglers: a pattern matches link names, '*' any run, '?' one character", "[models]") {
  CHECK(link_name_matches("node1/gpu3/nvlink.tx", "node1/gpu3/nvlink.tx"));
  CHECK_FALSE(link_name_matches("node1/gpu3/nvlink.tx", "node1/gpu3/nvlink.rx"));
  CHECK(link_name_matches("node1/gpu3/nvlink.*", "node1/gpu3/nvlink.rx"));
  CHECK(link_name_matches("node1/*/pcie.up", "node1/gpu0/pcie.up"));
  CHECK(link_name_matches("node1/*/pcie.up", "node1/pcisw2/pcie.up"));
  CHECK_FALSE(link_name_matches("node1/*/pcie.up", "node10/gpu0/pcie.up"));
  CHECK(link_name_matches("fabric/pod?/up", "fabric/pod7/up"));
  CHECK_FALSE(link_name_matches("fabric/pod?/up", "fabric/pod12/up"));
  CHECK(link_name_matches("*", "anything"));
  CHECK(link_name_matches("**nic*.tx", "node0/nic0-1.tx"));
  CHECK_FALSE(link_name_matches("node0/nic0", "node0/nic0.tx"));
}

TEST_CASE("link stragglers: capacity and latency scaled, raw bandwidth with them, only on matching links", "[models]") {
  ScenarioSpec s = ring_on_link_stragglers("p4d.24xlarge", 2, 1 << 20);
  s.cluster.fabric.topology = "fat_tree";
  s.cluster.fabric.pod_nodes = 1;
  sim::Simulator sim;
  sim::FlowNetwork plain(sim), slow(sim);
  auto w0 = World::build(s, plain);
  s.stragglers.push_back(slow_link("node1/gpu3/nvlink.tx", 0.5, 3));
  s.stragglers.push_back(slow_link("fabric/pod0/up", 0.25, 2));
  auto w1 = World::build(s, slow);
  REQUIRE(plain.link_count() == slow.link_count());
  int changed = 0;
  for (uint32_t l = 0; l < plain.link_count(); ++l) {
    const sim::LinkId id{l};
    const std::string name(plain.link_name(id));
    INFO(name);
    const double f = name == "node1/gpu3/nvlink.tx" ? 0.5 : name == "fabric/pod0/up" ? 0.25 : 1;
    const double g = name == "node1/gpu3/nvlink.tx" ? 3 : name == "fabric/pod0/up" ? 2 : 1;
    changed += f != 1;
    CHECK(slow.link_capacity(id) == Approx(f * plain.link_capacity(id)));
    CHECK(w1->raw_capacity(id, slow) == Approx(f * w0->raw_capacity(id, plain)));
    CHECK(slow.link_latency(id).seconds() == Approx(g * plain.link_latency(id).seconds()));
    // The collectives' hop latency hears of a node link's excess (fabric links count their own).
    const double added = name == "node1/gpu3/nvlink.tx" ? 2 * plain.link_latency(id).seconds()
                         : name == "fabric/pod0/up"     ? plain.link_latency(id).seconds()
                                                        : 0.0;
    CHECK(w1->added_latency_s(id) == Approx(added).margin(1e-15));
  }
  CHECK(changed == 2);
  // Rank 0 -> rank 8 (node 0's GPU 0 to node 1's GPU 0) crosses pod 0's uplink: one switch hop
  // of latency L before, 2 L after; rank 11 -> 12 on node 1 crosses GPU 3's slowed NVLink port.
  const auto e0 = collectives::make_edge(*w0, plain, 0, 8), e1 = collectives::make_edge(*w1, slow, 0, 8);
  const double hop = w0->fabric()->switch_latency_s();
  CHECK(e1.fabric_latency_s - e0.fabric_latency_s == Approx(hop));
  const auto n0 = collectives::make_edge(*w0, plain, 11, 12), n1 = collectives::make_edge(*w1, slow, 11, 12);
  CHECK(n1.raw_bandwidth == Approx(0.5 * n0.raw_bandwidth));
  CHECK(n1.fabric_latency_s - n0.fabric_latency_s > 0);
}

TEST_CASE("link stragglers: one GPU's NVLink port at 1/4 makes a one-node ring's bandwidth term 4x", "[models]") {
  // p4d, 8 GPUs on NVSwitch: the ring's every edge leaves one GPU's port; the slowed port is the
  // narrowest link of its edge, which then moves at f of the others' rate, and the ring ends with
  // its slowest edge: b' = b / f.
  ScenarioSpec s = ring_on_link_stragglers("p4d.24xlarge", 1, 1 << 28);
  const double even = slope(s);
  s.stragglers.push_back(slow_link("node0/gpu3/nvlink.tx", 0.25));
  const double slow = slope(s);
  CHECK(slow == Approx(even / 0.25).epsilon(1e-3));
}

TEST_CASE("link stragglers: a fabric uplink at half rate: the ring's closed form 2(n-1)/n S / (f C_pod)", "[models]") {
  // p4d x 2 (n = 16), fat-tree with one node per pod, full bisection: pod 0's uplink carries
  // C_pod = 4 x 12.5 GB/s, node 0's four rings leaving it (tests/models/collectives/
  // fabric_ring_test.cpp). At f = 1/2 the four rings share f C_pod, below each ring edge's cap,
  // so the bytes crossing it, 2(n-1)/n S in all, set the slope: b' = 2(n-1)/n / (f C_pod).
  ScenarioSpec s = ring_on_link_stragglers("p4d.24xlarge", 2, 1 << 28);
  s.cluster.fabric.topology = "fat_tree";
  s.cluster.fabric.pod_nodes = 1;
  const double c_pod = 4 * 12.5e9, n = 16;
  const double even = slope(s);
  CHECK(even > 2 * (n - 1) / n / c_pod);  // at full bisection the EFAs' flow caps bind, below C_pod
  s.stragglers.push_back(slow_link("fabric/pod0/up", 0.5));
  CHECK(slope(s) == Approx(2 * (n - 1) / n / (0.5 * c_pod)).epsilon(1e-3));
  // The ring crosses pod 0's downlink as well (the other direction): slowing it instead costs
  // the same, and both at once ("fabric/pod0/*") no more than one.
  s.stragglers = {slow_link("fabric/pod0/down", 0.5)};
  CHECK(slope(s) == Approx(2 * (n - 1) / n / (0.5 * c_pod)).epsilon(1e-3));
  s.stragglers = {slow_link("fabric/pod0/*", 0.5)};
  CHECK(slope(s) == Approx(2 * (n - 1) / n / (0.5 * c_pod)).epsilon(1e-3));
}

TEST_CASE("link stragglers: a pattern that names no link is an error naming the closest links", "[models]") {
  ScenarioSpec s = ring_on_link_stragglers("p4d.24xlarge", 2, 1 << 20);
  s.stragglers.push_back(slow_link("node1/gpu9/nvlink.tx", 0.5));
  try {
    run_scenario(s);
    FAIL("expected a SpecError");
  } catch (const SpecError& e) {
    CHECK(e.key() == "stragglers.0.link");
    CHECK_THAT(e.what(), Catch::Contains("no link matches 'node1/gpu9/nvlink.tx'"));
    CHECK_THAT(e.what(), Catch::Contains("did you mean node1/gpu"));
  }
  s.stragglers = {slow_link("fabric/pod0/up", 0.5)};  // the default fabric has no shared link
  try {
    run_scenario(s);
    FAIL("expected a SpecError");
  } catch (const SpecError& e) {
    CHECK(e.key() == "stragglers.0.link");
  }
  s.stragglers = {slow_link("node0/nic0.tx", 1.5)};
  try {
    run_scenario(s);
    FAIL("expected a SpecError");
  } catch (const SpecError& e) {
    CHECK(e.key() == "stragglers.0.bandwidth_factor");
  }
}
