// commsim topo SCENARIO.toml [--set K=V]... [--max-ranks N] [--json]: the node's GPU matrix
// (nvidia-smi topo -m style), the transport NCCL would log per rank pair, and the P2P channels
// per pair; --json gives the same as one object (docs/result.schema.json, "topo").
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "models/error.hpp"
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
    std::string text;
    try {
      // The World run builds from this scenario, rendered (one picture: text and JSON alike).
      sim::Simulator sim;
      sim::FlowNetwork net(sim);
      const std::unique_ptr<models::World> world = models::World::build(scenario.spec, net);
      text = json ? dump_json(topo_json(*world, scenario.spec, max_ranks, scenario_inputs(scenario, sets)))
                  : models::render_topo(*world, scenario.spec, max_ranks);
    } catch (const models::SpecError& e) {
      throw scenario.to_user_error(e);
    }
    std::fputs(text.c_str(), stdout);
    return 0;
  });
}

}  // namespace scenarios
