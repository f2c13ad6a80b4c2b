// Each rank's compute on its own node's GPU (mixed_gpus.hpp).
#include "models/run/mixed_gpus.hpp"

#include <map>
#include <string>

#include "sim/check.hpp"

namespace models {

void give_ranks_their_gpus(const ScenarioSpec& spec, const World& world, workload::StepPlan& plan) {
  if (!world.mixed() || spec.collective) return;
  const std::string& first = world.node().gpu.name;
  std::map<std::string, workload::StepPlan> other;  // by GPU name: the step priced on it
  std::map<std::string, int> offset;                // its programs' index in plan.programs
  for (int r = 0; r < world.size() && r < static_cast<int>(plan.ranks.size()); ++r) {
    const hw::NodeSpec& node = world.node_of(world.rank(r).node);
    if (node.gpu.name == first) continue;
    auto it = other.find(node.gpu.name);
    if (it == other.end()) {
      workload::StepPlan p = workload::plan_step(spec, world, &node);
      SIM_CHECK(p.programs.size() == plan.programs.size() && p.ranks.size() == plan.ranks.size() &&
                    p.groups.size() == plan.groups.size(),
                "a step planned on another GPU has another shape");
      offset[node.gpu.name] = static_cast<int>(plan.programs.size());
      for (auto& prog : p.programs) plan.programs.push_back(prog);
      plan.notes.push_back("mixed GPUs: ranks on " + node.name + " nodes compute on their " + node.gpu.name + " (" +
                           p.notes.back() + ")");
      it = other.emplace(node.gpu.name, std::move(p)).first;
    }
    plan.ranks[r].program = it->second.ranks[r].program + offset[node.gpu.name];
  }
}

}  // namespace models
