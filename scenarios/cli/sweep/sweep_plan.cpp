// Sweep points, shards and --vary parsing.
#include "scenarios/cli/sweep/sweep_plan.hpp"

#include <charconv>

#include "scenarios/load/deepspeed_config.hpp"

namespace scenarios {

VaryAxis parse_vary(const std::string& text, int ordinal) {
  const size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0)
    throw UserError({"--vary", ordinal, 1},
                    "'" + text + "' is not KEY=V1,V2,... (expected e.g. placement.gpus_per_pod=1,2,4)");
  VaryAxis axis;
  axis.key = text.substr(0, eq);
  size_t start = eq + 1;
  int depth = 0;
  char quote = 0;
  for (size_t i = eq + 1; i <= text.size(); ++i) {
    const char c = i < text.size() ? text[i] : ',';
    if (quote) {
      if (i == text.size())
        throw UserError({"--vary", ordinal, static_cast<int>(start) + 1},
                        "unclosed quote in '" + text + "' (expected a closing " + std::string(1, quote) + ")");
      // In a basic string ("...") a backslash escapes the next character (TOML: \" is a quote
      // inside the string); a literal string ('...') has no escapes.
      if (quote == '"' && c == '\\' && i + 1 < text.size())
        ++i;
      else if (c == quote)
        quote = 0;
      continue;
    }
    // A quote opens a string where TOML's would: at the start of a value or inside a list or
    // table; in a bare word (it's, 5'11) it is a letter, as --set takes it.
    const bool value_start = text.find_first_not_of(" \t", start) == i;
    if ((c == '"' || c == '\'') && (depth > 0 || value_start))
      quote = c;
    else if (c == '[' || c == '{')
      ++depth;
    else if ((c == ']' || c == '}') && depth > 0)
      --depth;
    else if (c == ',' && (depth == 0 || i == text.size())) {
      const std::string v = text.substr(start, i - start);
      if (v.empty() || v.find_first_not_of(" \t") == std::string::npos)
        throw UserError({"--vary", ordinal, static_cast<int>(start) + 1},
                        "empty value in '" + text + "' (expected V1,V2,... without empty items)");
      axis.values.push_back(v);
      axis.value_columns.push_back(static_cast<int>(start) + 1);
      start = i + 1;
    }
  }
  return axis;
}

void refuse_repeated_vary_keys(const std::vector<VaryAxis>& axes, const std::vector<std::string>& sets) {
  auto canonical = [](std::string key) {
    // cluster."nodes" and cluster. nodes are cluster.nodes: a part may be quoted or spaced as in a file.
    std::string plain;
    for (char c : key)
      if (c != '"' && c != '\'' && c != ' ' && c != '\t') plain += c;
    key = plain;
    if (key.rfind("zero.", 0) == 0) key = "zero." + canonical_zero_key(key.substr(5));
    return key;
  };
  for (size_t later = 1; later < axes.size(); ++later)
    for (size_t first = 0; first < later; ++first)
      if (canonical(axes[first].key) == canonical(axes[later].key))
        throw UserError({"--vary", static_cast<int>(later) + 1, 1},
                        "'" + canonical(axes[later].key) + "' is varied twice, first at --vary:" +
                            std::to_string(first + 1) + ":1 (expected each key in one --vary, with all its values)");
  // A --set of a varied key would be overridden by every point while each row still lists it.
  for (size_t s = 0; s < sets.size(); ++s) {
    const std::string key = canonical(sets[s].substr(0, sets[s].find('=')));
    for (size_t a = 0; a < axes.size(); ++a)
      if (canonical(axes[a].key) == key)
        throw UserError({"--set", static_cast<int>(s) + 1, 1},
                        "'" + key + "' is both set and varied (--vary:" + std::to_string(a + 1) +
                            ":1), and every point would take the varied value (expected one of the two)");
  }
}

size_t sweep_size(const std::vector<VaryAxis>& axes) {
  size_t total = 1;
  for (size_t a = 0; a < axes.size(); ++a) {
    total *= axes[a].values.size();
    if (total > 10000000)
      throw UserError({"--vary", static_cast<int>(a) + 1, 1},
                      "the sweep has more than 10 million points (expected fewer values, or several sweeps)");
  }
  return total;
}

SweepPoint sweep_point(const std::vector<VaryAxis>& axes, size_t index) {
  SweepPoint p;
  p.index = index;
  p.values.resize(axes.size());
  for (size_t a = axes.size(); a-- > 0;) {  // last axis varies fastest
    const size_t n = axes[a].values.size();
    p.values[a] = axes[a].values[index % n];
    index /= n;
  }
  return p;
}

Shard parse_shard(const std::string& text) {
  const size_t slash = text.find('/');
  Shard s;
  auto parse = [&](size_t from, size_t to, size_t& out) {
    auto [ptr, ec] = std::from_chars(text.data() + from, text.data() + to, out);
    return ec == std::errc() && ptr == text.data() + to && to > from;
  };
  if (slash == std::string::npos || !parse(0, slash, s.index) || !parse(slash + 1, text.size(), s.count) ||
      s.count == 0)
    throw UserError({"--shard", 1, 1}, "'" + text + "' is not a shard (expected i/N with 0 <= i < N, e.g. 0/4)");
  if (s.index >= s.count)
    throw UserError({"--shard", 1, 1},
                    "shard " + text + " is out of range (expected i/N with 0 <= i < N; shards count from 0)");
  return s;
}

std::pair<size_t, size_t> shard_range(size_t total, const Shard& s) {
  // Balanced contiguous blocks: shard i gets [floor(total*i/N), floor(total*(i+1)/N)).
  const auto cut = [&](size_t i) { return static_cast<size_t>((static_cast<unsigned __int128>(total) * i) / s.count); };
  return {cut(s.index), cut(s.index + 1)};
}

}  // namespace scenarios
