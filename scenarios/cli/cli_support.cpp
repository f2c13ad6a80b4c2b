// Shared plumbing of the `commsim` subcommands: argument errors, user errors, running a scenario.
#include "scenarios/cli/cli_support.hpp"

#include <cstdio>

#include "models/parse_error.hpp"
#include "sim/time.hpp"

namespace scenarios {

int parse_cli(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::string what = e.what();
    for (char& c : what)
      if (c == '\n') c = ' ';
    std::fprintf(stderr, "%s: %s (see %s --help)\n", app.get_name().c_str(), what.c_str(), app.get_name().c_str());
    return 2;
  }
  return -1;
}

void add_set_option(CLI::App& app, std::vector<std::string>& sets) {
  app.add_option("--set", sets, "override a scenario key, e.g. --set placement.gpus_per_pod=1 (repeatable)")
      ->type_name("KEY=VALUE")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
}

int guarded(const std::function<int()>& body) {
  try {
    return body();
  } catch (const UserError& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  } catch (const models::ParseError& e) {  // a user's nccl-tests output, log or YAML: FILE:LINE:COL
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "commsim: internal error: %s\n", e.what());
    return 1;
  }
}

models::RunResult run_loaded(const LoadedScenario& scenario, const models::RunOptions& options) {
  try {
    return models::run_scenario(scenario.spec, options);
  } catch (const models::SpecError& e) {
    throw scenario.to_user_error(e);
  } catch (const sim::Overflow& e) {
    throw UserError({scenario.spec.source_file, 1, 1},
                    std::string(e.what()) + " (expected sizes and times the 64-bit picosecond clock can hold)");
  }
}

}  // namespace scenarios
