#pragma once
// A DeepSpeed config as DeepSpeed reads it. DeepSpeed loads a config file with hjson, refusing a
// key written twice (deepspeed/runtime/config.py, DeepSpeedConfig.__init__:
//   self._param_dict = hjson.load(open(config, "r"),
//                                 object_pairs_hook=dict_raise_error_on_duplicate_keys)
// and deepspeed/runtime/config_utils.py raises "Duplicate key in DeepSpeed config"). Hjson
// (hjson-py's README) takes JSON plus `#`, `//` and `/* */` comments, trailing commas, and commas
// left out at the end of a line. This turns such text into strict JSON for nlohmann (which keeps
// the last of two equal keys silently), with a map back to the original places, and refuses what
// DeepSpeed refuses: a key written twice in one object, with both places. Nesting is bounded too
// (kMaxJsonNesting), far above any DeepSpeed config. Other Hjson forms (unquoted keys and strings,
// ''' blocks) are left for the JSON parser to refuse at their place.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "scenarios/load/loader.hpp"

namespace scenarios {

constexpr int kMaxJsonNesting = 64;

struct StrictJson {
  std::string text;            // strict JSON
  std::vector<size_t> origin;  // origin[i]: offset in the original text of text[i]; one extra at the end
};

// Throws UserError (FILE:LINE:COL) for a duplicate key or nesting deeper than kMaxJsonNesting.
StrictJson strict_json(std::string_view text, const std::string& file);

// FILE:LINE:COL of a byte offset in `text` (columns count bytes, as nlohmann does).
SourcePos place_in(const std::string& file, std::string_view text, size_t offset);

}  // namespace scenarios
