// What NCCL's tuner sees of a communicator (CommPlan::view, models/collectives/comm_plan.hpp).
#include <catch2/catch.hpp>

#include <numeric>
#include <string>
#include <vector>

#include "models/collectives/comm_plan.hpp"
#include "models/hw/gpu.hpp"
#include "models/hw/instance.hpp"
#include "models/world/world.hpp"
#include "sim/flow_network.hpp"
#include "sim/simulator.hpp"

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
