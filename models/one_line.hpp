#pragma once
// One line of text for an error message. The error contract is one line, `FILE:LINE:COL: message`,
// and messages quote what users wrote (a key, a value, a file name), which may hold a line break.
// The error types (error.hpp, parse_error.hpp, scenarios/load/loader.hpp's UserError) pass every
// message through this, so no message can break its line whatever it quotes: line breaks, tabs and
// other control characters become escapes as C writes them (\n, \r, \t, \x1b), and so do the
// Unicode line breaks a terminal or an editor may honour (U+0085, U+2028, U+2029 as \u2028).
// Applying it twice changes nothing (a backslash is kept as it is).
#include <string>
#include <string_view>

namespace models {

inline std::string one_line(std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    const auto next = [&](size_t k) { return i + k < text.size() ? static_cast<unsigned char>(text[i + k]) : 0; };
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c == 0x7f) {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else if (c == 0xc2 && next(1) == 0x85) {  // U+0085, next line
      out += "\\u0085";
      i += 1;
    } else if (c == 0xe2 && next(1) == 0x80 && (next(2) == 0xa8 || next(2) == 0xa9)) {  // U+2028, U+2029
      out += next(2) == 0xa8 ? "\\u2028" : "\\u2029";
      i += 2;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

}  // namespace models
