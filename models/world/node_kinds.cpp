// The kinds of node a World holds (node_kinds.hpp states the model).
#include "models/world/node_kinds.hpp"

#include "models/error.hpp"
#include "models/hw/instance.hpp"
#include "models/topology/resolve.hpp"

namespace models {

NodeKinds::NodeKinds(const ScenarioSpec& spec) {
  const auto& groups = spec.cluster.groups;
  std::vector<hw::NodeSpec> nodes;
  if (groups.empty()) {
    nodes.push_back(topology::resolve_node(spec.cluster));
  } else {
    int total = 0;
    for (std::size_t i = 0; i < groups.size(); ++i) {
      const std::string key = "cluster.groups." + std::to_string(i);
      if (groups[i].nodes < 1)
        throw SpecError(key + ".nodes", key + ".nodes: " + std::to_string(groups[i].nodes) + " (expected at least 1)");
      ClusterSpec one = spec.cluster;
      one.groups.clear();
      one.node.reset();
      one.instance = groups[i].instance;
      hw::NodeSpec n;
      try {
        n = topology::resolve_node(one);
      } catch (const SpecError& e) {
        throw SpecError(key + ".instance", key + ".instance: " + e.what());
      }
      const hw::NodeSpec& first = nodes.empty() ? n : nodes.front();
      if (n.gpus != first.gpus)
        throw SpecError(key + ".instance", key + ".instance: " + n.name + " has " + std::to_string(n.gpus) +
                                               " GPUs per node, " + first.name + " " + std::to_string(first.gpus) +
                                               " (expected the same GPU count in every group: one placement)");
      if (n.nic_kind != first.nic_kind)
        throw SpecError(key + ".instance", key + ".instance: " + n.name + " has " + hw::nic_kind_name(n.nic_kind) +
                                               " NICs, " + first.name + " " + hw::nic_kind_name(first.nic_kind) +
                                               " (expected one network kind between all nodes)");
      for (int j = 0; j < groups[i].nodes; ++j) kind_of_node_.push_back(static_cast<int>(i));
      total += groups[i].nodes;
      groups_text_ += (i ? " + " : "") + std::to_string(groups[i].nodes) + " x " + n.name;
      nodes.push_back(std::move(n));
    }
    if (total != spec.cluster.nodes)
      throw SpecError("cluster.nodes", "cluster.nodes: " + std::to_string(spec.cluster.nodes) +
                                           " but the groups hold " + std::to_string(total) +
                                           " nodes (expected the sum of [[cluster.groups]] nodes)");
  }
  for (auto& n : nodes) kinds_.push_back(std::make_unique<NodeKind>(std::move(n)));
}

topology::Placement NodeKinds::place(const ScenarioSpec& spec) const {
  return topology::make_placement(spec.cluster, spec.placement, kinds_.front()->node.gpus);
}

void NodeKinds::build_transports(const PlacementSpec& placement, const topology::Placement& layout,
                                 const nccl::NcclEnv& env) {
  for (auto& k : kinds_) k->transports.emplace(k->node, k->graph, placement, layout, env);
}

}  // namespace models
