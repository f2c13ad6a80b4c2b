// TOML text to a toml::table, with errors as the loader reports them (table_loader.hpp).
#include <algorithm>
#include <functional>
#include <tuple>

#include "scenarios/load/table_loader.hpp"
#include "scenarios/load/toml_nesting.hpp"

namespace scenarios::detail {
namespace {

// The key a line defines, as written: `a."b.c" = 1` -> a."b.c"; `[x.y]` or `[[x.y]]` -> x.y.
std::string key_on_line(std::string_view text, int line) {
  size_t start = 0;
  for (int l = 1; l < line && start != std::string_view::npos; ++l) {
    start = text.find('\n', start);
    if (start != std::string_view::npos) ++start;
  }
  if (start == std::string_view::npos) return "";
  std::string_view s = text.substr(start, text.find('\n', start) - start);
  const size_t a = s.find_first_not_of(" \t");
  if (a == std::string_view::npos) return "";
  s = s.substr(a);
  size_t end = 0;
  char quote = 0;
  const bool header = s.front() == '[';
  for (; end < s.size(); ++end) {
    if (quote) {
      if (s[end] == quote) quote = 0;
    } else if (s[end] == '"' || s[end] == '\'') {
      quote = s[end];
    } else if (header ? s[end] == ']' && end > 0 && s[end - 1] != '[' : s[end] == '=') {
      break;
    }
  }
  std::string key(s.substr(0, end));
  while (!key.empty() && (key.front() == '[' || key.front() == ' ')) key.erase(key.begin());
  while (!key.empty() && (key.back() == ' ' || key.back() == '\t')) key.pop_back();
  return key;
}

// The last part of a dotted key, unquoted: a."b.c" -> b.c.
std::string last_part(const std::string& key) {
  size_t from = 0;
  char quote = 0;
  for (size_t i = 0; i < key.size(); ++i) {
    if (quote) {
      if (key[i] == quote) quote = 0;
    } else if (key[i] == '"' || key[i] == '\'') {
      quote = key[i];
    } else if (key[i] == '.') {
      from = i + 1;
    }
  }
  std::string part = key.substr(from);
  while (!part.empty() && part.front() == ' ') part.erase(part.begin());
  if (part.size() >= 2 && (part.front() == '"' || part.front() == '\'') && part.back() == part.front())
    part = part.substr(1, part.size() - 2);
  return part;
}

// toml++ reports a key or table defined twice at the second place only (and its message can
// garble the key): the first is the latest key of that name in the text before the error's line
// (valid TOML up to there). Empty when it cannot be told.
std::string first_written(std::string_view text, int error_line, const std::string& name,
                          const std::string& file_name) {
  size_t cut = 0;
  for (int line = 1; line < error_line && cut != std::string_view::npos; ++line) {
    cut = text.find('\n', cut);
    if (cut != std::string_view::npos) ++cut;
  }
  if (name.empty() || cut == std::string_view::npos || cut == 0) return "";
  toml::table before;
  try {
    before = toml::parse(text.substr(0, cut), std::string_view(file_name));
  } catch (const toml::parse_error&) {
    return "";
  }
  SourcePos best{file_name, 0, 0};
  std::function<void(const toml::node&)> walk = [&](const toml::node& n) {
    if (const auto* t = n.as_table()) {
      for (auto&& [k, v] : *t) {
        const auto& b = k.source().begin;
        if (k.str() == name && b.line > 0 && std::tie(b.line, b.column) > std::tie(best.line, best.col))
          best = {file_name, static_cast<int>(b.line), static_cast<int>(b.column)};
        walk(v);
      }
    } else if (const auto* a = n.as_array()) {
      for (const auto& v : *a) walk(v);
    }
  };
  walk(before);
  return best.line > 0 ? best.str() : "";
}

}  // namespace

toml::table parse_toml(std::string_view text, const std::string& file_name) {
  if (const auto deep = detail::toml_too_deep(text))
    throw UserError({file_name, deep->line, deep->col},
                    "nested more than " + std::to_string(detail::kMaxTomlNesting) +
                        " levels deep (expected tables, arrays and dotted keys a few levels deep)");
  try {
    return toml::parse(text, std::string_view(file_name));
  } catch (const toml::parse_error& e) {
    const auto& b = e.source().begin;
    const int line = std::max(1, static_cast<int>(b.line)), col = std::max(1, static_cast<int>(b.column));
    const std::string what = detail::one_line(std::string(e.description()));
    const std::string key = key_on_line(text, line);
    if (what.find("cannot redefine existing") != std::string::npos && !key.empty()) {
      const std::string first = first_written(text, line, last_part(key), file_name);
      throw UserError({file_name, line, col}, "invalid TOML: '" + key + "' is defined twice" +
                                                  (first.empty() ? "" : ", first at " + first) +
                                                  " (expected each key and table once)");
    }
    throw UserError({file_name, line, col}, "invalid TOML: " + what + " (expected TOML, https://toml.io/en/v1.0.0)");
  }
}

}  // namespace scenarios::detail
