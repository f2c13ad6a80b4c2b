// The table of subcommands and `commsim help`: usage, `help CMD` (the command's own --help),
// `help TOPIC`, and "did you mean" for a mistyped command.
#include <cstdio>
#include <string>

#include "scenarios/cli/command.hpp"
#include "scenarios/cli/help/node_keys.hpp"
#include "scenarios/cli/output/result_schema.hpp"
#include "scenarios/load/loader.hpp"

namespace scenarios {

const std::vector<Subcommand>& subcommands() {
  static const std::vector<Subcommand> table = {
      {"run", cmd_run, "simulate one scenario: step time, where it goes, per rank"},
      {"compare", cmd_compare, "several scenarios side by side, with ratios (--set N:K=V for one)"},
      {"sweep", cmd_sweep, "vary keys over values; threads, shards, CSV or JSON lines, --resume"},
      {"plan", cmd_plan, "the best layout and instance for a model, budget and deadline, with its cost"},
      {"nccl-tests", cmd_nccl_tests, "predict nccl-tests output (same table, nccl-tests' flags)"},
      {"calibrate", cmd_calibrate, "fit link parameters to nccl-tests output"},
      {"profile", cmd_profile, "fit compute parameters to a measured profiler trace"},
      {"diff", cmd_diff, "a measured run (trace, nccl-tests, Inspector) against the simulation"},
      {"topo", cmd_topo, "GPU matrix and NCCL's transport per rank pair"},
      {"nccl-log", cmd_nccl_log, "read a real NCCL INFO log and explain it"},
      {"report", cmd_report, "HTML report with plots, Chrome trace, CSV"},
      {"import", cmd_import, "turn a Kubernetes job / DeepSpeed config, or a torchtitan config, into a scenario"},
      {"instances", cmd_instances, "the machines cluster.instance can name (GPUs, NVLink, NICs, price, source)"},
      {"presets", cmd_presets, "the models model.preset can name (shape, parameters, source)"},
      {"params", cmd_params, "the physical parameters [cluster.params] may set"},
      {"completion", cmd_completion, "shell completion script: commsim completion bash|zsh|fish"},
  };
  return table;
}

const std::vector<HelpTopic>& help_topics() {
  static const std::vector<HelpTopic> topics = {
      {"node", "[cluster.node] keys and their defaults, for a machine not in the catalog"},
      {"json", "the machine-readable outputs: docs/result.schema.json, schema_version, units"},
  };
  return topics;
}

namespace {

void usage(std::FILE* out) {
  std::fprintf(out, "commsim %s: a discrete-event simulator of GPU communication cost\n\n", COMMSIM_VERSION);
  std::fprintf(out, "usage: commsim <command> [options]   (commsim help <command> for its options)\n\ncommands:\n");
  for (const auto& s : subcommands()) std::fprintf(out, "  %-11s %s\n", s.name, s.summary);
  std::fprintf(out, "\nhelp topics (commsim help <topic>):\n");
  for (const auto& t : help_topics()) std::fprintf(out, "  %-11s %s\n", t.name, t.summary);
  std::fprintf(out,
               "\nEvery command takes --json (docs/result.schema.json). Errors: one line FILE:LINE:COL: message, "
               "exit 2.\n");
}

const char* kJsonTopic =
    "Every command's --json prints one object (sweep: one per row, as JSON lines) following\n"
    "docs/result.schema.json (JSON Schema draft 2020-12). Every object starts with\n"
    "  schema_version  1, raised when a key is removed or changes meaning\n"
    "  command         the command that printed it (sweep rows: none; they carry index)\n"
    "  inputs          files read, --set overrides as typed, commsim_version\n"
    "Keys name their unit (_s seconds, _us microseconds, _bytes, _bytes_per_s, _gbs GB/s); counts are\n"
    "integers; other numbers carry 9 significant digits; utilisation is a fraction from 0 to 1.\n"
    "run --json, each compare result and each sweep row share the run summary (step_time_s,\n"
    "run_time_s, max_*_s per rank, busiest_link*). From Python: PYTHONPATH=scenarios/python,\n"
    "import commsim (docs/python.md).\n";

// The nearest command, help topic or "help" to a mistyped word, as the user would type it: a help
// topic after `commsim help` ('node' as a command means `commsim help node`).
int unknown(const std::string& word, bool after_help) {
  std::vector<std::string> words;
  for (const auto& s : subcommands()) words.push_back(s.name);
  for (const auto& t : help_topics()) words.push_back(t.name);
  if (!after_help) words.push_back("help");
  std::string near = closest_match(word, words);
  bool topic = false;
  for (const auto& t : help_topics()) topic = topic || near == t.name;
  if (topic && !after_help) near = "commsim help " + near;
  std::fprintf(stderr, "commsim: unknown %s '%s' (%s)\n", after_help ? "command or help topic" : "command",
               word.c_str(), near.empty() ? "see commsim --help" : ("did you mean '" + near + "'?").c_str());
  return 2;
}

const Subcommand* find_command(const std::string& name) {
  for (const auto& s : subcommands())
    if (name == s.name) return &s;
  return nullptr;
}

int help(int argc, char** argv) {
  if (argc < 2 || std::string(argv[1]) == "help") {  // `commsim help help`: the usage, as `commsim help`
    usage(stdout);
    return 0;
  }
  const std::string what = argv[1];
  if (const Subcommand* s = find_command(what)) {
    std::string name = s->name, flag = "--help";
    char* args[] = {name.data(), flag.data(), nullptr};
    return s->run(2, args);
  }
  if (what == "node") {
    std::fputs(node_keys_text().c_str(), stdout);
    return 0;
  }
  if (what == "json") {
    std::fputs(kJsonTopic, stdout);
    return 0;
  }
  return unknown(what, true);
}

}  // namespace

int dispatch(int argc, char** argv) {
  if (argc < 2) {
    usage(stderr);
    return 2;
  }
  const std::string cmd = argv[1];
  if (cmd == "--help" || cmd == "-h") {
    usage(stdout);
    return 0;
  }
  if (cmd == "help") return help(argc - 1, argv + 1);
  if (cmd == "--version" || cmd == "-V") {
    std::printf("commsim %s\n", COMMSIM_VERSION);
    return 0;
  }
  if (const Subcommand* s = find_command(cmd)) return s->run(argc - 1, argv + 1);
  return unknown(cmd, false);
}

}  // namespace scenarios
