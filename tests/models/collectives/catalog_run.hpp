#pragma once
// For the collective tests on catalog instances (nvls_test, collnet_test): NCCL's view of the
// whole World's communicator, and one collective over every rank with the FlowNetwork's byte
// audit on (the algorithm's delivery checked against its closed form), with its time, NCCL's
// choice and, per link kind, the most bytes one link carried.
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "models/collectives/collective.hpp"
#include "models/comm_plan/comm_plan.hpp"
#include "models/spec.hpp"
#include "models/world/world.hpp"
#include "sim/flow_network.hpp"
#include "sim/simulator.hpp"

namespace collectives_test {

inline models::nccl::CommView view_of(const models::ScenarioSpec& spec) {
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  auto world = models::World::build(spec, net);
  std::vector<int> ranks(world->size());
  for (int r = 0; r < world->size(); ++r) ranks[r] = r;
  return models::collectives::build_plan(*world, net, ranks, 0).view;
}

struct CatalogRun {
  double t = -1;
  models::collectives::CollectiveRecord rec;
  std::map<std::string, double> max_bytes;  // per link kind, the most bytes one link carried
};

inline CatalogRun audited_run(const models::ScenarioSpec& spec, models::nccl::CollOp op, int64_t S) {
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  net.set_audit(true);
  auto world = models::World::build(spec, net);
  auto engine = models::collectives::make_collective_engine(sim, net, *world, spec);
  models::collectives::Group g;
  for (int r = 0; r < world->size(); ++r) g.ranks.push_back(r);
  CatalogRun out;
  engine->launch(g, op, S, [&](const models::collectives::CollectiveRecord& r) {
    out.t = r.end_s - r.start_s;
    out.rec = r;
  });
  sim.run();
  net.settle_blocks();
  for (std::size_t i = 0; i < net.link_count(); ++i) {
    const sim::LinkId l{static_cast<uint32_t>(i)};
    double& m = out.max_bytes[std::string(net.link_kind(l))];
    m = std::max(m, net.link_bytes(l));
  }
  return out;
}

}  // namespace collectives_test
