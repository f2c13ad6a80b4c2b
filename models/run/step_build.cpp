// The one pipeline to a step ready to simulate (step_build.hpp).
#include "models/run/step_build.hpp"

#include "models/nccl/env.hpp"
#include "models/nccl/example_tuner.hpp"
#include "models/nccl/tuner_tables.hpp"
#include "models/run/mixed_gpus.hpp"
#include "models/run/ram_budget.hpp"
#include "models/run/stragglers.hpp"
#include "models/topology/placement.hpp"
#include "models/topology/resolve.hpp"

namespace models {

std::optional<BuiltStep> build_step(const ScenarioSpec& spec, sim::Simulator& sim, sim::FlowNetwork& net,
                                    const RunOptions& options, WallBudget& budget, const ClusterSlot& slot,
                                    bool run_notes) {
  // Refuse what would not fit before anything big is built: the ranks come from the placement
  // alone (the node's GPU count), the operations from the scenario (ram_budget.hpp).
  check_ram_budget(
      spec, topology::make_placement(spec.cluster, spec.placement, topology::resolve_node(spec.cluster).gpus).size(),
      options.full);
  BuiltStep s;
  // Scenario -> World: placement, topology, NCCL's transports, the links (and [nccl.env], parsed once).
  s.world = World::build(spec, net, slot);
  if (budget.spent("building the world (placement, transports, links)")) return std::nullopt;
  // -> the collective engine on that World.
  s.engine = collectives::make_collective_engine(sim, net, *s.world, spec);
  if (budget.spent("building the collective engine")) return std::nullopt;
  // -> what every rank runs (the layout is validated there, once).
  s.plan = workload::plan_step(spec, *s.world);
  give_ranks_their_gpus(spec, *s.world, s.plan);  // [[cluster.groups]] of other GPUs: each rank on its own
  if (run_notes) {
    for (auto& note : nccl::unmodelled_nccl_env_notes(spec.nccl_env)) s.plan.notes.push_back(std::move(note));
    if (spec.nccl_version > 0) s.plan.notes.push_back(nccl::nccl_version_note(spec.nccl_version));
    if (auto note = nccl::collnet_note(spec.nccl_env, spec.cluster.fabric.sharp))
      s.plan.notes.push_back(std::move(*note));
    if (auto note = nccl::example_tuner_note(spec.nccl_env, spec.nccl_version))
      s.plan.notes.push_back(std::move(*note));
    // What the network plugin set that the scenario did not (hw::NodeSpec::net_plugin_env): a
    // user comparing with a run of an older plugin sees which values differ.
    std::string plugin;
    for (const auto& [name, value] : s.world->node().net_plugin_env)
      if (!spec.nccl_env.count(name)) plugin += (plugin.empty() ? "" : ", ") + name + "=" + value;
    if (!plugin.empty())
      s.plan.notes.push_back("NCCL environment aws-ofi-nccl (1.16 on) sets on " + s.world->node().name +
                             ", applied under [nccl.env]: " + plugin);
    if (std::string note = s.world->network_note(); !note.empty()) s.plan.notes.push_back(std::move(note));
    if (std::string note = s.world->nvlink_note(); !note.empty()) s.plan.notes.push_back(std::move(note));
  }
  apply_stragglers(spec, *s.world, s.plan.ranks);  // [[stragglers]]: slower compute on listed ranks/nodes
  for (std::size_t r = 0; r < options.rank_compute_scale.size() && r < s.plan.ranks.size(); ++r)
    s.plan.ranks[r].compute_scale *= options.rank_compute_scale[r];  // a variability sample (variability.hpp)
  if (budget.spent("writing every rank's step program")) return std::nullopt;
  // -> the GPU memory each rank needs (a layout that does not fit still runs, flagged).
  s.memory = estimate_step_memory(spec, *s.world, s.plan, *s.engine);
  if (budget.spent("estimating every rank's memory")) return std::nullopt;
  return s;
}

WallBudget::Progress setup_progress(const RunOptions& options) {
  if (!options.progress) return {};
  return [&options](std::string_view stage) { options.progress(stage, -1); };
}

}  // namespace models
