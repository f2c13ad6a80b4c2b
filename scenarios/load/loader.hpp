#pragma once
// The scenario loader: a TOML file (plus `--set dotted.key=value` overrides, a calibration
// profile and a DeepSpeed JSON it may name) becomes a models::ScenarioSpec. The schema is
// closed: an unknown key is an error with a "did you mean". Every user error is a UserError
// whose what() is the one line `FILE:LINE:COL: message (what was expected)`.
//
// The loader remembers where each dotted key was written, so a models::SpecError raised later
// ("placement.gpus_per_pod: 8 GPUs per pod but the node has 4") is reported at that place.
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "models/error.hpp"
#include "models/one_line.hpp"
#include "models/spec.hpp"

namespace scenarios {

// A place in a file. For `--set` overrides the file is "--set", the line is the ordinal of the
// override (1 for the first) and the column counts in its `KEY=VALUE` text.
struct SourcePos {
  std::string file;
  int line = 1;
  int col = 1;
  std::string str() const { return file + ":" + std::to_string(line) + ":" + std::to_string(col); }
};

// what() is one line whatever the message or the file name quote (models/one_line.hpp).
class UserError : public std::runtime_error {
 public:
  UserError(SourcePos pos, const std::string& message)
      : std::runtime_error(models::one_line(pos.str()) + ": " + models::one_line(message)),
        pos_(std::move(pos)),
        message_(models::one_line(message)) {}
  const SourcePos& pos() const { return pos_; }
  const std::string& message() const { return message_; }  // without the position

 private:
  SourcePos pos_;
  std::string message_;
};

struct LoadedScenario {
  models::ScenarioSpec spec;
  // Dotted key -> where its value was written ("placement.gpus_per_pod", "nccl.env.NCCL_ALGO",
  // "cluster.params.nvlink.bw", "zero.reduce_bucket_size" may point into the DeepSpeed JSON).
  // Tables are recorded too ("placement" -> its header).
  std::map<std::string, SourcePos> positions;
  // Every file the scenario was read from, in order: the scenario itself, then its calibration
  // profile, DeepSpeed JSON, topology file and NCCL tuner config where it names them (what outputs record as inputs;
  // a command refuses to write over any of them).
  std::vector<std::string> files;
  // The DeepSpeed JSON the scenario names (deepspeed_config), as it was read; empty: none.
  std::string deepspeed_config;

  // Where `dotted_key` was written; else its closest written parent table; else file:1:1.
  SourcePos position_of(std::string_view dotted_key) const;
  // A models::SpecError as the user sees it: positioned at the key it names.
  UserError to_user_error(const models::SpecError& error) const;
};

// Loads `path`; `overrides` are the `--set` arguments ("placement.gpus_per_pod=1"), applied in
// order after the file. Paths inside the file (cluster.profile, deepspeed_config,
// cluster.node.topo_file) are relative to the file's folder; paths given with --set are
// relative to the current directory. Throws UserError.
LoadedScenario load_scenario(const std::string& path, const std::vector<std::string>& overrides = {});

// The key of one `--set KEY=VALUE` as the loader reads it: its parts joined with '.', a quoted
// part unquoted, spaces around parts dropped (cluster."nodes" and cluster. nodes are cluster.nodes;
// cluster.params."a.b" is cluster.params.a.b, as [cluster.params] reads both). A key given twice in one list of
// overrides is refused by the loader: a file refuses a key twice, and the last would otherwise win without a word.
std::string override_key(const std::string& set);
// Its parts, unquoted: cluster.params."a.b" is {cluster, params, a.b}.
std::vector<std::string> override_key_parts(const std::string& set);

// The same from text already in memory (tests, fuzzers); `file_name` is used in messages and
// `base_dir` for relative paths.
LoadedScenario load_scenario_text(std::string_view text, const std::string& file_name,
                                  const std::vector<std::string>& overrides = {}, const std::string& base_dir = ".");

// "did you mean" support: the candidate closest to `word` by edit distance, or "" when none is
// close enough to be a plausible typo.
std::string closest_match(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace scenarios
