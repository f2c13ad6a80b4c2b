#pragma once
// Each `commsim` subcommand lives in its own file (cmd_<name>.cpp) and parses its own arguments.
// Exit codes: 0 success, 1 internal failure (and `sweep --fail-on-error` with a failed point),
// 2 user error (one line FILE:LINE:COL: message), 3 not available in this build.
#include <vector>

namespace scenarios {
int cmd_run(int argc, char** argv);
int cmd_compare(int argc, char** argv);
int cmd_sweep(int argc, char** argv);
int cmd_plan(int argc, char** argv);
int cmd_nccl_tests(int argc, char** argv);
int cmd_calibrate(int argc, char** argv);
int cmd_topo(int argc, char** argv);
int cmd_nccl_log(int argc, char** argv);
int cmd_report(int argc, char** argv);
int cmd_import(int argc, char** argv);
int cmd_instances(int argc, char** argv);
int cmd_presets(int argc, char** argv);
int cmd_completion(int argc, char** argv);
int cmd_profile(int argc, char** argv);
int cmd_diff(int argc, char** argv);

struct Subcommand {
  const char* name;
  int (*run)(int, char**);
  const char* summary;
};
// Every subcommand, in the order `commsim --help` lists them.
const std::vector<Subcommand>& subcommands();
// Topics `commsim help TOPIC` explains besides the commands: {name, summary}.
struct HelpTopic {
  const char* name;
  const char* summary;
};
const std::vector<HelpTopic>& help_topics();

// `commsim ARGS...`: the dispatcher main() calls (help, --version, did-you-mean, subcommands).
int dispatch(int argc, char** argv);
int cmd_params(int argc, char** argv);
}  // namespace scenarios
