#pragma once
// What a `--set KEY=VALUE` (or `--vary` value) text means once parsed: the loader reads it as a
// TOML value when it is one (4, 0.5, true, "Ring") and as a plain string otherwise (450 GB/s,
// llama-3-8b). Outputs that record a sweep point use this to print the value with its type.
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>

namespace scenarios {

// A scalar as the loader would read it; arrays and tables stay as their text (RawText).
struct RawText {
  std::string text;
};
using OverrideValue = std::variant<bool, int64_t, double, std::string, RawText>;

OverrideValue parse_override_value(std::string_view text);

// Whether a value text opens a TOML string, array or table (its first non-blank character is a
// quote or a bracket): such a value must parse as TOML, else it is an error at its place (an
// unterminated "abc is not the string `"abc`); any other text that is not TOML is a plain string.
bool opens_toml_value(std::string_view text);

}  // namespace scenarios
