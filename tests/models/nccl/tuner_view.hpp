#pragma once
// NCCL's tuner's view of every GPU of `nodes` catalog machines in one communicator (the view a
// collective over all of them is tuned with), for the tuner plugins' tests.
#include <string>
#include <vector>

#include "models/comm_plan/comm_plan.hpp"
#include "models/nccl/tuning.hpp"
#include "models/world/world.hpp"
#include "sim/flow_network.hpp"
#include "sim/simulator.hpp"

namespace tuner_test {

inline models::nccl::CommView whole_cluster_view(const std::string& instance, int nodes) {
  models::ScenarioSpec spec;
  spec.cluster.instance = instance;
  spec.cluster.nodes = nodes;
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  auto world = models::World::build(spec, net);
  std::vector<int> ranks(world->size());
  for (int r = 0; r < world->size(); ++r) ranks[r] = r;
  return models::collectives::build_plan(*world, net, ranks).view;
}

}  // namespace tuner_test
