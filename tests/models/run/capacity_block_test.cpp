// How many instances a Capacity Block holds (models/run/cost.hpp capacity_block_caveat): AWS sells
// at most 64 instances a block and 256 across one account's blocks (EC2 user guide, "Capacity
// Blocks for ML"). Up to 64 nothing is said; beyond, the blocks the instances take (the $ the same:
// one rate per instance); beyond 256 in all, that AWS sells no such set. UltraServers, sold by the
// UltraServer, and nodes billed by the second are not counted.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include "models/run/cost.hpp"
#include "models/run/run.hpp"

namespace {
models::ScenarioSpec nodes_of(const std::string& instance, int nodes) {
  models::ScenarioSpec s;
  s.cluster.instance = instance;
  s.cluster.nodes = nodes;
  return s;
}
const std::string kBlocks65 =
    "p5e.48xlarge: 65 instances at a Capacity Block rate take 2 Capacity Blocks (one holds at most 64 instances: AWS "
    "EC2 user guide, \"Capacity Blocks for ML\"), each a reservation bought on its own, subject to its own capacity; "
    "the $ is the same rate per instance, but AWS says a block's instances are placed close together, not that "
    "several blocks are";
}  // namespace

TEST_CASE("capacity block: up to 64 instances is one block, more take several at the same rate", "[models]") {
  CHECK(models::capacity_block_caveat(nodes_of("p5e.48xlarge", 64)).empty());
  CHECK(models::capacity_block_caveat(nodes_of("p5e.48xlarge", 65)) == kBlocks65);
  // On-demand nodes are billed by the second: no block, however many.
  CHECK(models::capacity_block_caveat(nodes_of("p5.48xlarge", 200)).empty());
  // A price file's own block rate counts as the catalog's does.
  models::ScenarioSpec mine = nodes_of("p5.48xlarge", 130);
  mine.cluster.prices["p5.48xlarge"] = {39.33, "mine.toml:2:1", "capacity block"};
  CHECK(models::capacity_block_caveat(mine).rfind("p5.48xlarge: 130 instances at a Capacity Block rate take 3 "
                                                  "Capacity Blocks",
                                                  0) == 0);
  // An UltraServer is one node of 18 instances, sold by the UltraServer: not counted in instances.
  CHECK(models::capacity_block_caveat(nodes_of("u-p6e-gb200x72", 8)).empty());
}

TEST_CASE("capacity block: more than 256 instances across blocks is more than AWS sells one account", "[models]") {
  const std::string over =
      "300 instances at Capacity Block rates are more than the 256 one account may hold across Capacity Blocks (AWS "
      "EC2 user guide, \"Capacity Blocks for ML\"): AWS does not sell this cluster as Capacity Blocks, and its $ "
      "prices it as if it did";
  const std::string caveat = models::capacity_block_caveat(nodes_of("p5e.48xlarge", 300));
  CHECK(caveat.rfind("p5e.48xlarge: 300 instances at a Capacity Block rate take 5 Capacity Blocks", 0) == 0);
  CHECK(caveat.find("; " + over) != std::string::npos);
  // Counted over the groups sold as blocks, each type's blocks apart: 200 x p5e (4 blocks) and
  // 50 x p4d at the file's block rate (one block) are 250, within 256; the on-demand p5 group is
  // not counted.
  models::ScenarioSpec s;
  s.cluster.groups = {{"p5e.48xlarge", 200}, {"p5.48xlarge", 100}, {"p4d.24xlarge", 50}};
  s.cluster.instance = "p5e.48xlarge";
  s.cluster.nodes = 350;
  s.cluster.prices["p4d.24xlarge"] = {20, "mine.toml:2:1", "capacity block"};
  const std::string mixed = models::capacity_block_caveat(s);
  CHECK(mixed.rfind("p5e.48xlarge: 200 instances at a Capacity Block rate take 4 Capacity Blocks", 0) == 0);
  CHECK(mixed.find("p4d.24xlarge") == std::string::npos);                           // 50: one block
  CHECK(mixed.find("p5.48xlarge:") == std::string::npos);                           // on demand
  CHECK(mixed.find("250 instances at Capacity Block rates") == std::string::npos);  // 250 <= 256
}

TEST_CASE("capacity block: a run on more instances than a block holds says so beside its cost", "[models]") {
  models::ScenarioSpec s = nodes_of("p5e.48xlarge", 65);
  s.collective = models::CollectiveSpec{"all_reduce", 1 << 20, 1};
  const models::RunResult r = models::run_scenario(s, {});
  REQUIRE(r.cost.known);
  CHECK(std::find(r.caveats.begin(), r.caveats.end(), kBlocks65) != r.caveats.end());
  CHECK(std::find(r.notes.begin(), r.notes.end(), kBlocks65) != r.notes.end());
}
