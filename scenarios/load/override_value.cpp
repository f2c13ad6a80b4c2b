// A --set value parsed the way TomlReader::apply_override parses it (TOML, else a string).
#include "scenarios/load/override_value.hpp"

#include <toml++/toml.h>

namespace scenarios {

namespace {
std::string trim(std::string_view s) {
  const size_t b = s.find_first_not_of(" \t");
  if (b == std::string_view::npos) return "";
  const size_t e = s.find_last_not_of(" \t");
  return std::string(s.substr(b, e - b + 1));
}
}  // namespace

bool opens_toml_value(std::string_view text) {
  const size_t b = text.find_first_not_of(" \t");
  return b != std::string_view::npos && std::string_view("\"'[{").find(text[b]) != std::string_view::npos;
}

OverrideValue parse_override_value(std::string_view text) {
  try {
    const std::string doc_text = "x=" + std::string(text);
    toml::table doc = toml::parse(std::string_view(doc_text), std::string_view("--set"));
    if (const toml::node* v = doc.get("x")) {
      if (const auto* b = v->as_boolean()) return b->get();
      if (const auto* i = v->as_integer()) return static_cast<int64_t>(i->get());
      if (const auto* d = v->as_floating_point()) return d->get();
      if (const auto* s = v->as_string()) return s->get();
      return RawText{trim(text)};
    }
  } catch (const toml::parse_error&) {
  }
  return trim(text);
}

}  // namespace scenarios
