#pragma once
// Shell completion scripts for `commsim completion bash|zsh|fish`, built from the commands'
// own option lists (each command prints them when given --commsim-list-options), so a new
// option is completed without touching this file. Values are completed where they are a closed
// set: --op (collectives), -d (data types), -o (reductions), --instance, --model, and files for
// scenarios (*.toml) and other paths.
#include <map>
#include <string>
#include <vector>

namespace scenarios {

struct CompletionOption {
  std::vector<std::string> names;  // "-b", "--minbytes"
  std::string type;                // empty for a flag
  bool repeatable = false;
  std::string description;
};
struct CompletionCommand {
  std::string name, summary;
  std::vector<CompletionOption> options;
  std::vector<std::string> positional_types;  // "SCENARIO.toml", ...
  std::vector<CompletionCommand> subcommands;
};

// Parses what `commsim CMD --commsim-list-options` prints (cli_support.cpp).
CompletionCommand parse_option_list(const std::string& name, const std::string& summary, const std::string& text);

// Value sets by option name ("--op" -> collectives) and for `help` / `completion` arguments.
using ValueSets = std::map<std::string, std::vector<std::string>>;

std::string bash_completion(const std::vector<CompletionCommand>& commands, const ValueSets& values);
std::string zsh_completion(const std::vector<CompletionCommand>& commands, const ValueSets& values);
std::string fish_completion(const std::vector<CompletionCommand>& commands, const ValueSets& values);

}  // namespace scenarios
