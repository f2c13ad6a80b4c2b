// TOML text -> plain values with their places (toml_document.hpp).
#include <algorithm>
#include <sstream>

#include "scenarios/load/table_loader.hpp"
#include "scenarios/load/toml_document.hpp"

namespace scenarios {
namespace {

SourcePos place_of(const toml::source_region& r, const std::string& file_name) {
  return {file_name, std::max(1, static_cast<int>(r.begin.line)), std::max(1, static_cast<int>(r.begin.column))};
}

void collect(const toml::table& table, const std::string& prefix, const std::string& file_name,
             std::map<std::string, TomlValue>& out) {
  for (const auto& [k, node] : table) {
    const std::string dotted = prefix.empty() ? std::string(k.str()) : prefix + "." + std::string(k.str());
    if (const auto* sub = node.as_table()) {
      collect(*sub, dotted, file_name, out);
      continue;
    }
    TomlValue v;
    v.type = detail::article_type(node);
    v.key_at = place_of(k.source(), file_name);
    v.value_at = place_of(node.source(), file_name);
    if (const auto* s = node.as_string()) {
      v.kind = TomlValue::Kind::String;
      v.text = s->get();
    } else if (const auto* i = node.as_integer()) {
      v.kind = TomlValue::Kind::Integer;
      v.integer = i->get();
      v.number = static_cast<double>(v.integer);
      v.text = std::to_string(v.integer);
    } else if (const auto* f = node.as_floating_point()) {
      v.kind = TomlValue::Kind::Float;
      v.number = f->get();
      v.text = detail::shortest(v.number);
    } else if (const auto* b = node.as_boolean()) {
      v.kind = TomlValue::Kind::Boolean;
      v.boolean = b->get();
      v.text = v.boolean ? "true" : "false";
    } else if (const auto* a = node.as_array()) {
      v.kind = TomlValue::Kind::Array;
      v.all_strings = true;
      for (const auto& e : *a) {
        if (const auto* es = e.as_string())
          v.strings.push_back(es->get());
        else
          v.all_strings = false;
      }
      std::ostringstream os;
      os << *a;
      v.text = detail::one_line(os.str());
    } else {
      v.text = "(" + detail::type_name(node) + ")";
    }
    out.emplace(dotted, std::move(v));
  }
}

}  // namespace

std::map<std::string, TomlValue> toml_values(std::string_view text, const std::string& file_name) {
  const toml::table root = detail::parse_toml(text, file_name);
  std::map<std::string, TomlValue> out;
  collect(root, "", file_name, out);
  return out;
}

}  // namespace scenarios
