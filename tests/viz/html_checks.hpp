#pragma once
// Checks on a page's or chart's text shared by the viz tests: counting a tag, and finding a
// non-finite number that leaked into the drawing.
#include <regex>
#include <string>

namespace viz_test {

inline size_t count_of(const std::string& hay, const std::string& needle) {
  size_t n = 0;
  for (size_t p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + needle.size())) ++n;
  return n;
}

// The page without its charts' download links (base64 data: URIs of the same SVG, checked in plain
// form): std::regex recurses per character and overflows the stack on such a long attribute, and
// base64 may spell "nan" or "http" by chance.
inline std::string without_data_uris(std::string s) {
  for (size_t at; (at = s.find("data:image/svg+xml;base64,")) != std::string::npos;) s.erase(at, s.find('"', at) - at);
  return s;
}

// Any attribute or text holding nan/inf means a non-finite number leaked into the drawing.
inline bool has_non_finite(const std::string& s) {
  static const std::regex kBad(R"((="[^"]*\b(nan|inf)\b)|(>\s*-?(nan|inf)\s*<))", std::regex::icase);
  return std::regex_search(without_data_uris(s), kBad);
}

}  // namespace viz_test
