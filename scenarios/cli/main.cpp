// commsim: the command. Dispatches to one subcommand per file (scenarios/cli/cmd_*.cpp).
#include <cstdio>
#include <cstring>
#include <string>

#include "scenarios/cli/command.hpp"

namespace {
struct Subcommand {
  const char* name;
  int (*run)(int, char**);
  const char* summary;
};
constexpr Subcommand kSubcommands[] = {
    {"run", scenarios::cmd_run, "simulate one scenario: step time, where it goes, per rank"},
    {"compare", scenarios::cmd_compare, "several scenarios side by side, with ratios"},
    {"sweep", scenarios::cmd_sweep, "vary keys over values; threads, shards, CSV"},
    {"nccl-tests", scenarios::cmd_nccl_tests, "predict nccl-tests output (same table format)"},
    {"calibrate", scenarios::cmd_calibrate, "fit link parameters to nccl-tests output"},
    {"topo", scenarios::cmd_topo, "GPU matrix and NCCL's transport per rank pair"},
    {"nccl-log", scenarios::cmd_nccl_log, "read a real NCCL INFO log and explain it"},
    {"report", scenarios::cmd_report, "HTML report with plots, Chrome trace, CSV"},
    {"import", scenarios::cmd_import, "turn a Kubernetes job / DeepSpeed config into a scenario"},
    {"params", scenarios::cmd_params, "the physical parameters [cluster.params] may set"},
};

void usage(std::FILE* out) {
  std::fprintf(out, "commsim %s: a discrete-event simulator of GPU communication cost\n\n", COMMSIM_VERSION);
  std::fprintf(out, "usage: commsim <command> [options]   (commsim <command> --help for its options)\n\ncommands:\n");
  for (const auto& s : kSubcommands) std::fprintf(out, "  %-11s %s\n", s.name, s.summary);
}
}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    usage(stderr);
    return 2;
  }
  const std::string cmd = argv[1];
  if (cmd == "--help" || cmd == "-h" || cmd == "help") {
    usage(stdout);
    return 0;
  }
  if (cmd == "--version" || cmd == "-V") {
    std::printf("commsim %s\n", COMMSIM_VERSION);
    return 0;
  }
  for (const auto& s : kSubcommands)
    if (cmd == s.name) return s.run(argc - 1, argv + 1);
  std::fprintf(stderr, "commsim: unknown command '%s' (see commsim --help)\n", cmd.c_str());
  return 2;
}
