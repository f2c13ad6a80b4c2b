#pragma once
// A bound on TOML nesting, checked before toml++ sees the text: toml++ 3.3 parses nested arrays,
// inline tables and dotted keys recursively, and a 64 KB line of `[[[[...`, `{a={a={...` or
// `a.a.a.a... = 1` (32,000 levels) overflows the stack (a crash, not an error). No scenario or
// profile needs more than a handful of levels; this cheap scan of the raw text (strings and
// comments skipped) counts open brackets plus the dots of the key being read.
#include <optional>
#include <string_view>

namespace scenarios::detail {

constexpr int kMaxTomlNesting = 64;

struct TextPlace {
  int line = 1, col = 1;  // 1-based; columns count UTF-8 characters, as toml++ does
};

// Where the text first goes deeper than kMaxTomlNesting levels, or nullopt.
std::optional<TextPlace> toml_too_deep(std::string_view text);

}  // namespace scenarios::detail
