// The TOML nesting bound (toml_nesting.hpp): one pass over the raw text.
#include "scenarios/load/toml_nesting.hpp"

namespace scenarios::detail {

std::optional<TextPlace> toml_too_deep(std::string_view text) {
  enum class In { kCode, kComment, kBasic, kLiteral, kMultiBasic, kMultiLiteral };
  In in = In::kCode;
  int brackets = 0;  // open [ and { (arrays, inline tables, table headers)
  int dots = 0;      // dots of the dotted key (or header) being read, since the last separator
  TextPlace at;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const TextPlace here = at;
    if (c == '\n')
      ++at.line, at.col = 1;
    else if ((static_cast<unsigned char>(c) & 0xC0) != 0x80)
      ++at.col;
    auto starts = [&](std::string_view s) { return text.substr(i, s.size()) == s; };
    switch (in) {
      case In::kComment:
        if (c == '\n') in = In::kCode;
        continue;
      case In::kBasic:
        if (c == '\\' && i + 1 < text.size() && text[i + 1] != '\n') {
          ++i, ++at.col;
        } else if (c == '"' || c == '\n') {
          in = In::kCode;
        }
        continue;
      case In::kLiteral:
        if (c == '\'' || c == '\n') in = In::kCode;
        continue;
      case In::kMultiBasic:
        if (c == '\\' && i + 1 < text.size()) {
          if (text[i + 1] == '\n')
            ++at.line, at.col = 1;
          else
            ++at.col;
          ++i;
        } else if (starts("\"\"\"")) {
          i += 2, at.col += 2, in = In::kCode;
        }
        continue;
      case In::kMultiLiteral:
        if (starts("'''")) i += 2, at.col += 2, in = In::kCode;
        continue;
      case In::kCode: break;
    }
    switch (c) {
      case '#': in = In::kComment; break;
      case '"':
        if (starts("\"\"\"")) {
          i += 2, at.col += 2, in = In::kMultiBasic;
        } else {
          in = In::kBasic;
        }
        break;
      case '\'':
        if (starts("'''")) {
          i += 2, at.col += 2, in = In::kMultiLiteral;
        } else {
          in = In::kLiteral;
        }
        break;
      case '[':
      case '{':
        dots = 0;
        if (++brackets > kMaxTomlNesting) return here;
        break;
      case ']':
      case '}':
        dots = 0;
        if (brackets > 0) --brackets;
        break;
      case '.':
        if (brackets + ++dots > kMaxTomlNesting) return here;
        break;
      case '=':
      case ',':
      case '\n': dots = 0; break;
      default: break;
    }
  }
  return std::nullopt;
}

}  // namespace scenarios::detail
