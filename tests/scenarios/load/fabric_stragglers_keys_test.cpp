// The fabric, NIC and straggler scenario keys read into the spec: [cluster.fabric], placement.nics_per_pod and
// [[stragglers]] (scenarios/examples/p4d_2node_straggler.toml), with --set on them.
#include <catch2/catch.hpp>

#include "scenarios/load/loader.hpp"

TEST_CASE("loader: [cluster.fabric], nics_per_pod and [[stragglers]] fill the spec", "[scenarios]") {
  const auto loaded =
      scenarios::load_scenario(std::string(COMMSIM_SOURCE_DIR) + "/scenarios/examples/p4d_2node_straggler.toml",
                               {"cluster.fabric.oversubscription=4", "cluster.fabric.spreading=\"ecmp\""});
  const auto& s = loaded.spec;
  CHECK(s.cluster.fabric.topology == "fat_tree");
  CHECK(s.cluster.fabric.pod_nodes == 1);
  CHECK(s.cluster.fabric.oversubscription == 4);  // --set wins
  CHECK(s.cluster.fabric.spreading == "ecmp");
  CHECK(s.placement.nics_per_pod == 4);
  REQUIRE(s.stragglers.size() == 1);
  CHECK(s.stragglers[0].ranks == std::vector<int>{5});
  CHECK_FALSE(s.stragglers[0].node.has_value());
  CHECK(s.stragglers[0].compute_slowdown == 1.3);
  CHECK(s.stragglers[0].nic_bandwidth_factor == 1);
}

TEST_CASE("loader: a node straggler with a NIC factor and fabric units", "[scenarios]") {
  const auto loaded = scenarios::load_scenario_text(R"(
[cluster]
instance = "p5.48xlarge"
nodes = 4
[cluster.fabric]
topology = "rail"
uplinks = 8
uplink_bandwidth = "400 Gb/s"
switch_latency = "600 ns"
[[stragglers]]
node = 1
nic_bandwidth_factor = 0.5
[collective]
op = "all_reduce"
bytes = "1 GiB"
)",
                                                    "inline.toml");
  const auto& s = loaded.spec;
  CHECK(s.cluster.fabric.uplinks == 8);
  CHECK(s.cluster.fabric.uplink_bytes_per_s == Approx(50e9));
  REQUIRE(s.cluster.fabric.switch_latency_s.has_value());
  CHECK(*s.cluster.fabric.switch_latency_s == Approx(600e-9));
  REQUIRE(s.stragglers.size() == 1);
  CHECK(s.stragglers[0].node == 1);
  CHECK(s.stragglers[0].nic_bandwidth_factor == 0.5);
}

TEST_CASE("loader: link stragglers, a third fabric tier and [[cluster.groups]] fill the spec", "[scenarios]") {
  const auto loaded = scenarios::load_scenario_text(R"(
[[cluster.groups]]
instance = "p5.48xlarge"
nodes = 2
[[cluster.groups]]
instance = "p4d.24xlarge"
nodes = 3
[cluster.fabric]
topology = "fat_tree"
pod_nodes = 1
superpod_nodes = 2
superpod_oversubscription = 7
[[stragglers]]
link = "fabric/pod*/up"
bandwidth_factor = 0.25
latency_factor = 3
[collective]
op = "all_reduce"
bytes = "1 GiB"
)",
                                                    "inline.toml");
  const auto& s = loaded.spec;
  REQUIRE(s.cluster.groups.size() == 2);
  CHECK(s.cluster.groups[1].instance == "p4d.24xlarge");
  CHECK(s.cluster.groups[1].nodes == 3);
  CHECK(s.cluster.instance == "p5.48xlarge");  // the first group's, for what reads one machine
  CHECK(s.cluster.nodes == 5);                 // the groups' sum
  CHECK(s.cluster.fabric.superpod_nodes == 2);
  CHECK(s.cluster.fabric.superpod_oversubscription == 7);
  REQUIRE(s.stragglers.size() == 1);
  CHECK(s.stragglers[0].link == "fabric/pod*/up");
  CHECK(s.stragglers[0].bandwidth_factor == 0.25);
  CHECK(s.stragglers[0].latency_factor == 3);
  CHECK(s.stragglers[0].ranks.empty());
  // The shipped examples load.
  for (const char* f : {"mixed_p5_p4d.toml", "allreduce_fat_tree_3tier.toml"})
    CHECK_NOTHROW(scenarios::load_scenario(std::string(COMMSIM_SOURCE_DIR) + "/scenarios/examples/" + f));
}

// A [[stragglers]] entry given with --set is positioned in the option, value by value: an error
// found once the World is built (a node the cluster lacks) names the --set, not the file's 1:1.
TEST_CASE("loader: the values of a --set [[stragglers]] list are positioned in the option", "[scenarios]") {
  const std::string set = "stragglers=[{node = 99, compute_slowdown = 1.1}]";
  const auto loaded = scenarios::load_scenario(
      std::string(COMMSIM_SOURCE_DIR) + "/scenarios/examples/goodput_weak_scaling.toml", {"cluster.nodes=2", set});
  CHECK(loaded.position_of("stragglers").str() == "--set:2:12");
  CHECK(loaded.position_of("stragglers.0").str() == "--set:2:13");
  CHECK(loaded.position_of("stragglers.0.node").str() == "--set:2:" + std::to_string(set.find("99") + 1));
  CHECK(loaded.position_of("stragglers.0.compute_slowdown").str() == "--set:2:" + std::to_string(set.find("1.1") + 1));
  const models::SpecError e("stragglers.0.node", "stragglers.0.node: 99 (expected a node in 0..1)");
  CHECK(std::string(loaded.to_user_error(e).what()) ==
        "--set:2:" + std::to_string(set.find("99") + 1) + ": stragglers.0.node: 99 (expected a node in 0..1)");
}
