// `--set KEY=VALUE` merged into the scenario's TOML, with the place of every value it holds
// (toml_reader.hpp).
#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/utf8.hpp"
#include "scenarios/load/override_value.hpp"
#include "scenarios/load/toml_nesting.hpp"
#include "scenarios/load/toml_reader.hpp"

namespace scenarios::detail {
namespace {

std::string trim(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t");
  if (a == std::string::npos) return "";
  const size_t b = s.find_last_not_of(" \t");
  return s.substr(a, b - a + 1);
}

// The '=' of --set KEY=VALUE: the first one outside a quoted key part (`"a=b".c=1`); the first
// of all when a quote is left open.
size_t set_equals(const std::string& arg) {
  char quote = 0;
  for (size_t i = 0; i < arg.size(); ++i) {
    const char c = arg[i];
    if (quote) {
      if (c == '\\' && quote == '"')
        ++i;
      else if (c == quote)
        quote = 0;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '=') {
      return i;
    }
  }
  return arg.find('=');
}

struct KeyPart {
  std::string name;
  size_t at = 0;  // offset of the part in the KEY text
};

// KEY's parts, split at the dots outside quotes; a part is bare or quoted as in a file, so
// cluster.params."nvlink.efficiency.simple" has three, the last one holding dots. A quoted part
// is read as TOML reads the string; `bad` gets the offset of one that does not read (or empty).
std::vector<KeyPart> split_key(const std::string& key, std::optional<size_t>& bad) {
  std::vector<KeyPart> parts;
  size_t start = 0;
  char quote = 0;
  for (size_t i = 0; i <= key.size(); ++i) {
    const char c = i < key.size() ? key[i] : '.';
    if (quote && i < key.size()) {
      if (c == '\\' && quote == '"')
        ++i;
      else if (c == quote)
        quote = 0;
      continue;
    }
    if (c == '"' || c == '\'') {
      quote = c;
      continue;
    }
    if (c != '.') continue;
    const std::string raw = key.substr(start, i - start);
    const size_t lead = raw.find_first_not_of(" \t");
    KeyPart part{trim(raw), start + (lead == std::string::npos ? 0 : lead)};
    if (!part.name.empty() && (part.name.front() == '"' || part.name.front() == '\'')) {
      try {
        const toml::table doc = toml::parse("x = " + part.name);
        part.name = doc["x"].value<std::string>().value_or("");
      } catch (const toml::parse_error&) {
        if (!bad) bad = part.at;
      }
    }
    parts.push_back(std::move(part));
    start = i + 1;
    quote = 0;
  }
  return parts;
}

}  // namespace

void TomlReader::apply_override(toml::table& root, const std::string& arg, int ordinal) {
  const SourcePos at_start{"--set", ordinal, 1};
  const size_t eq = set_equals(arg);
  if (eq == std::string::npos)
    throw UserError(at_start, "'" + arg + "' has no '=' (expected KEY=VALUE, such as placement.gpus_per_pod=1)");
  const std::string key = trim(arg.substr(0, eq));
  std::optional<size_t> bad_part;
  const std::vector<KeyPart> parts = split_key(arg.substr(0, eq), bad_part);
  if (bad_part)
    throw UserError({"--set", ordinal, static_cast<int>(*bad_part) + 1},
                    "'" + key +
                        "' has a quoted part that is not a TOML string (expected a key such as "
                        "cluster.params.\"nvlink.efficiency.simple\", quoted as in a scenario file)");
  for (const auto& p : parts)
    if (p.name.empty())
      throw UserError(at_start, "'" + key + "' is not a dotted key (expected a key such as placement.gpus_per_pod)");
  const auto [first, fresh] = set_keys_.emplace(override_key(arg), ordinal);
  if (!fresh)
    throw UserError(at_start, "'" + first->first + "' is set twice, first at --set:" + std::to_string(first->second) +
                                  ":1 (expected each key once, as in a scenario file)");
  const SourcePos value_pos{"--set", ordinal, static_cast<int>(eq) + 2};
  const std::string value = arg.substr(eq + 1);

  // Parse the value as TOML, placed so that its column in the document equals its column in
  // KEY=VALUE; when it is not valid TOML (450 GB/s, llama-3-8b) it is taken as a string.
  std::unique_ptr<toml::node> node;
  std::optional<toml::table> doc;  // kept: toml++ copies no source regions, the nested values' come from it
  const std::string doc_text = "x" + std::string(eq, ' ') + "=" + value;  // doc column = KEY=VALUE column + 1
  if (const auto deep = toml_too_deep(doc_text))
    throw UserError({"--set", ordinal, deep->line == 1 ? deep->col - 1 : static_cast<int>(eq) + 2},
                    "nested more than " + std::to_string(kMaxTomlNesting) +
                        " levels deep (expected a value such as 1, \"450 GB/s\" or [1, 2])");
  if (const size_t bad = models::first_invalid_utf8(arg); bad != models::kValidUtf8)
    throw UserError({"--set", ordinal, static_cast<int>(bad) + 1},
                    "a byte that is not UTF-8 text (expected UTF-8, as in a scenario file)");
  try {
    doc = toml::parse(std::string_view(doc_text), std::string_view("--set"));
    if (auto* v = doc->get("x")) node = toml::impl::make_node(*v);
  } catch (const toml::parse_error& e) {
    if (opens_toml_value(value)) {  // a quote or bracket left open: not a plain string
      const char open = trim(value).front();
      throw UserError(value_pos, open == '"' || open == '\''
                                     ? std::string("unterminated string: no closing ") + open +
                                           " (expected a closed string such as \"Ring\", or a value without "
                                           "quotes such as 450 GB/s)"
                                     : "not a TOML " + std::string(open == '[' ? "list" : "table") + ": " +
                                           std::string(e.description()) +
                                           " (expected a list such as [1, 2] or a table such as {a = 1})");
    }
  }
  if (!node) node = std::make_unique<toml::value<std::string>>(trim(value));

  toml::table* tbl = &root;
  std::string walked;
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    walked += (walked.empty() ? "" : ".") + parts[i].name;
    toml::node* next = tbl->get(parts[i].name);
    if (!next) {
      auto [it, inserted] = tbl->insert(parts[i].name, toml::table{});
      next = &it->second;
      overrides_[next] = {at_start, at_start};
    }
    if (!next->is_table())
      throw UserError(at_start,
                      "'" + walked + "' is " + article_type(*next) + ", not a table (expected a key inside a table)");
    tbl = next->as_table();
  }
  auto [it, inserted] = tbl->insert_or_assign(parts.back().name, std::move(*node));
  const SourcePos last_key{"--set", ordinal, static_cast<int>(parts.back().at) + 1};
  overrides_[&it->second] = {last_key, value_pos};
  if (const toml::node* parsed = doc ? doc->get("x") : nullptr) record_nested(it->second, *parsed, ordinal);
}

// A value nested in a --set value (an inline table in `stragglers=[{node = 99}]`) is where it
// was written in KEY=VALUE: the parsed document's column less the one its "x" key adds, so an
// error found once the scenario is read (a node the cluster lacks) points into the option.
void TomlReader::record_nested(const toml::node& copy, const toml::node& parsed, int ordinal) {
  const auto at = [ordinal](const toml::source_region& src) {
    return SourcePos{"--set", ordinal, std::max(1, static_cast<int>(src.begin.column) - 1)};
  };
  if (const toml::array* list = copy.as_array()) {
    const toml::array* original = parsed.as_array();
    for (size_t i = 0; original && i < list->size() && i < original->size(); ++i) {
      const SourcePos value = at(original->get(i)->source());
      overrides_[list->get(i)] = {value, value};
      record_nested(*list->get(i), *original->get(i), ordinal);
    }
  } else if (const toml::table* table = copy.as_table()) {
    const toml::table* original = parsed.as_table();
    if (!original) return;
    for (const auto& [key, value] : *table) {
      const auto found = original->find(key.str());
      if (found == original->end()) continue;
      overrides_[&value] = {at(found->first.source()), at(found->second.source())};
      record_nested(value, found->second, ordinal);
    }
  }
}

}  // namespace scenarios::detail

namespace scenarios {

std::vector<std::string> override_key_parts(const std::string& set) {
  std::optional<size_t> bad;
  std::vector<std::string> parts;
  for (const auto& p : detail::split_key(set.substr(0, detail::set_equals(set)), bad)) parts.push_back(p.name);
  return parts;
}

std::string override_key(const std::string& set) {
  std::string key;
  for (const auto& p : override_key_parts(set)) key += (key.empty() ? "" : ".") + p;
  return key;
}

}  // namespace scenarios
