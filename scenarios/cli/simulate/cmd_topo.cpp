// commsim topo SCENARIO.toml [--set K=V]... [--max-ranks N] [--json]: the node's GPU matrix
// (nvidia-smi topo -m style), the transport NCCL would log per rank pair, and the P2P channels
// per pair; --json gives the same as one object (docs/result.schema.json, "topo").
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "models/comm_plan/comm_plan.hpp"
#include "models/comm_plan/p2p_channels.hpp"
#include "models/error.hpp"
#include "models/nccl/env.hpp"
#include "models/nccl/example_tuner.hpp"
#include "models/nccl/tuning.hpp"
#include "models/run/layout_line.hpp"
#include "models/world/topo_text.hpp"
#include "scenarios/cli/cli_support.hpp"
#include "scenarios/cli/command.hpp"
#include "scenarios/cli/output/topo_json.hpp"
#include "sim/flow_network.hpp"
#include "sim/simulator.hpp"

namespace scenarios {

int cmd_topo(int argc, char** argv) {
  CLI::App app{"Show the topology and the transport NCCL would pick between every pair of ranks.", "commsim topo"};
  std::string path;
  std::vector<std::string> sets;
  int max_ranks = 16;
  bool json = false;
  app.add_option("scenario", path, "scenario file (TOML)")->required()->type_name("SCENARIO.toml");
  add_set_option(app, sets);
  app.add_option("--max-ranks", max_ranks, "list every pair up to this many ranks (default 16)")
      ->check(whole_number(1, 1 << 30));
  app.add_flag("--json", json, "print one JSON object (docs/result.schema.json) instead of the text");
  if (const int rc = parse_cli(app, argc, argv); rc >= 0) return rc;
  return guarded([&] {
    const LoadedScenario scenario = load_scenario(path, sets);
    std::vector<std::string> env_notes = models::nccl::unmodelled_nccl_env_notes(scenario.spec.nccl_env);
    if (auto n = models::nccl::collnet_note(scenario.spec.nccl_env, scenario.spec.cluster.fabric.sharp))
      env_notes.push_back(std::move(*n));
    if (auto n = models::nccl::example_tuner_note(scenario.spec.nccl_env, scenario.spec.nccl_version))
      env_notes.push_back(std::move(*n));
    std::string text;
    try {
      // The World run builds from this scenario, rendered (one picture: text and JSON alike).
      sim::Simulator sim;
      sim::FlowNetwork net(sim);
      const std::unique_ptr<models::World> world = models::World::build(scenario.spec, net);
      // Channels per peer as the simulation opens them: the world communicator's P2P channels
      // (its collective channels, pow2Up) and its one count per peer, the smallest over all its
      // peers (comm_plan/p2p_channels, as point_to_point.cpp takes it), for NVLink and network
      // peers alike.
      std::vector<int> everyone(static_cast<std::size_t>(world->size()));
      for (int r = 0; r < world->size(); ++r) everyone[static_cast<std::size_t>(r)] = r;
      const models::collectives::CommPlan plan = models::collectives::build_plan(*world, net, everyone, 0);
      const int comm_channels = models::nccl::coll_channels(plan.view, world->nccl_env().tuning);
      const int per_peer = models::collectives::p2p_channels(comm_channels, plan.p2p_topo_per_peer,
                                                             plan.view.nnodes > 1, plan.p2p_all_nvlink)
                               .per_peer;
      if (json) {
        Json j = topo_json(*world, scenario.spec, max_ranks, scenario_inputs(scenario, sets), per_peer);
        // What it lays out, as every --json output states it (models/run/layout_line.hpp).
        const models::LayoutSummary layout = models::describe_layout(scenario.spec);
        j["gpus"] = layout.gpus;
        j["nodes"] = layout.nodes;
        j["pods"] = layout.pods;
        j["layout"] = layout.line;
        j["notes"] = env_notes;
        text = dump_json(std::move(j));
      } else {
        text = models::render_topo(*world, scenario.spec, max_ranks, per_peer);
      }
    } catch (const models::SpecError& e) {
      throw scenario.to_user_error(e);
    }
    std::fputs(text.c_str(), stdout);
    // The notes run prints about the NCCL environment (models/nccl/env.hpp), on stderr as there
    // (in the JSON as "notes").
    if (!json)
      for (const auto& n : env_notes) std::fprintf(stderr, "commsim topo: note: %s\n", n.c_str());
    return 0;
  });
}

}  // namespace scenarios
