// Typed, positioned reads of TOML nodes against the closed scenario schema.
#include "scenarios/load/toml_reader.hpp"

#include <charconv>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <sstream>
#include <tuple>

#include "models/params.hpp"
#include "models/utf8.hpp"
#include "scenarios/load/override_value.hpp"
#include "scenarios/load/toml_nesting.hpp"
#include "scenarios/load/units.hpp"

namespace scenarios::detail {
namespace {

// The node as TOML would print it, shortened, for "got a string \"4\"".
std::string shown(const toml::node& n) {
  if (n.is_table() || n.is_array()) return "";
  if (n.is_string()) {
    std::string r = one_line(n.as_string()->get());
    if (r.size() > 40) r = r.substr(0, 37) + "...";
    return " \"" + r + "\"";
  }
  std::ostringstream s;
  n.visit([&](auto&& v) { s << v; });
  std::string r = one_line(s.str());
  if (r.size() > 40) r = r.substr(0, 37) + "...";
  return " " + r;
}

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

std::string type_name(const toml::node& n) {
  switch (n.type()) {
    case toml::node_type::table: return "table";
    case toml::node_type::array: return "array";
    case toml::node_type::string: return "string";
    case toml::node_type::integer: return "integer";
    case toml::node_type::floating_point: return "float";
    case toml::node_type::boolean: return "boolean";
    case toml::node_type::date: return "date";
    case toml::node_type::time: return "time of day";
    case toml::node_type::date_time: return "date-time";
    default: return "value";
  }
}

std::string article_type(const toml::node& n) {
  const std::string t = type_name(n);
  const bool vowel = !t.empty() && std::string("aeiou").find(t[0]) != std::string::npos;
  return std::string(vowel ? "an " : "a ") + t;
}

std::string shortest(double v) {
  char buf[64];
  auto [ptr, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return ec == std::errc() ? std::string(buf, ptr) : std::to_string(v);
}

std::string one_line(std::string s) {
  for (char& c : s)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  return s;
}

TomlReader::TomlReader(LoadedScenario& out, std::string file_name) : out_(out), file_name_(std::move(file_name)) {}

SourcePos TomlReader::pos(const toml::node& n) const {
  if (auto it = overrides_.find(&n); it != overrides_.end()) return it->second.value;
  const auto& src = n.source();
  if (src.begin.line == 0) return {file_name_, 1, 1};
  return {src.path ? *src.path : file_name_, static_cast<int>(src.begin.line), static_cast<int>(src.begin.column)};
}

SourcePos TomlReader::key_pos(const toml::key& k, const toml::node& value) const {
  if (auto it = overrides_.find(&value); it != overrides_.end()) return it->second.key;
  const auto& src = k.source();
  if (src.begin.line == 0) return pos(value);
  return {src.path ? *src.path : file_name_, static_cast<int>(src.begin.line), static_cast<int>(src.begin.column)};
}

void TomlReader::fail(const toml::node& n, const std::string& message) const { throw UserError(pos(n), message); }

void TomlReader::record(const std::string& dotted, const toml::node& n) { out_.positions[dotted] = pos(n); }

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
  const std::string doc_text = "x" + std::string(eq, ' ') + "=" + value;  // doc column = KEY=VALUE column + 1
  if (const auto deep = toml_too_deep(doc_text))
    throw UserError({"--set", ordinal, deep->line == 1 ? deep->col - 1 : static_cast<int>(eq) + 2},
                    "nested more than " + std::to_string(kMaxTomlNesting) +
                        " levels deep (expected a value such as 1, \"450 GB/s\" or [1, 2])");
  if (const size_t bad = models::first_invalid_utf8(arg); bad != models::kValidUtf8)
    throw UserError({"--set", ordinal, static_cast<int>(bad) + 1},
                    "a byte that is not UTF-8 text (expected UTF-8, as in a scenario file)");
  try {
    toml::table doc = toml::parse(std::string_view(doc_text), std::string_view("--set"));
    if (auto* v = doc.get("x")) node = toml::impl::make_node(*v);
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
}

std::string TomlReader::string(const toml::node& n, const std::string& key) const {
  if (!n.is_string()) fail(n, key + ": got " + article_type(n) + shown(n) + " (expected a string)");
  return n.as_string()->get();
}

std::string TomlReader::one_of(const toml::node& n, const std::string& key,
                               const std::vector<std::string>& choices) const {
  const std::string v = string(n, key);
  for (const auto& c : choices)
    if (v == c) return v;
  std::string list;
  for (const auto& c : choices) list += (list.empty() ? "" : ", ") + c;
  const std::string near = closest_match(v, choices);
  fail(n, key + ": unknown value \"" + v + "\" (" +
              (near.empty() ? "expected one of: " + list : "did you mean '" + near + "'?") + ")");
}

int64_t TomlReader::integer(const toml::node& n, const std::string& key, int64_t min, int64_t max) const {
  if (!n.is_integer()) fail(n, key + ": got " + article_type(n) + shown(n) + " (expected an integer)");
  const int64_t v = n.as_integer()->get();
  if (v < min || v > max)
    fail(n, key + ": " + std::to_string(v) + " is out of range (expected an integer from " + std::to_string(min) +
                " to " + std::to_string(max) + ")");
  return v;
}

int64_t TomlReader::one_of_int(const toml::node& n, const std::string& key, const std::vector<int64_t>& choices) const {
  if (!n.is_integer()) fail(n, key + ": got " + article_type(n) + shown(n) + " (expected an integer)");
  const int64_t v = n.as_integer()->get();
  std::string list;
  for (int64_t c : choices) {
    if (v == c) return v;
    list += (list.empty() ? "" : ", ") + std::to_string(c);
  }
  fail(n, key + ": " + std::to_string(v) + " is not allowed (expected one of: " + list + ")");
}

bool TomlReader::boolean(const toml::node& n, const std::string& key) const {
  if (!n.is_boolean()) fail(n, key + ": got " + article_type(n) + shown(n) + " (expected true or false)");
  return n.as_boolean()->get();
}

double TomlReader::number(const toml::node& n, const std::string& key) const {
  double v = 0;
  if (n.is_integer())
    v = static_cast<double>(n.as_integer()->get());
  else if (n.is_floating_point())
    v = n.as_floating_point()->get();
  else
    fail(n, key + ": got " + article_type(n) + shown(n) + " (expected a number)");
  if (!std::isfinite(v)) fail(n, key + ": " + shortest(v) + " is not a finite number (expected a finite number)");
  return v;
}

// Quantities accept numbers (in the key's base unit) and strings with units.
#define COMMSIM_QUANTITY(method, from_number, from_text, expected_text)                 \
  try {                                                                                 \
    if (n.is_integer()) return from_number(static_cast<double>(n.as_integer()->get())); \
    if (n.is_floating_point()) return from_number(n.as_floating_point()->get());        \
    if (n.is_string()) return from_text(n.as_string()->get());                          \
  } catch (const UnitError& e) {                                                        \
    fail(n, key + ": " + e.what());                                                     \
  }                                                                                     \
  fail(n, key + ": got " + article_type(n) + shown(n) + " (expected " expected_text ")");

int64_t TomlReader::size(const toml::node& n, const std::string& key) const {
  auto from_text = [](const std::string& t) { return parse_size_bytes(t); };
  auto from_number = [](double v) { return size_from_number(v); };
  COMMSIM_QUANTITY(size, from_number, from_text, "a size such as \"50 MB\" or an integer number of bytes")
}

double TomlReader::bandwidth(const toml::node& n, const std::string& key) const {
  auto from_text = [](const std::string& t) { return parse_bandwidth_bytes_per_s(t); };
  COMMSIM_QUANTITY(bandwidth, bandwidth_from_number, from_text, "a bandwidth such as \"450 GB/s\" or \"100 Gb/s\"")
}

double TomlReader::time(const toml::node& n, const std::string& key) const {
  auto from_text = [](const std::string& t) { return parse_time_seconds(t); };
  COMMSIM_QUANTITY(time, time_from_number, from_text, "a time such as \"2 us\" or \"1.5 ms\"")
}

double TomlReader::count(const toml::node& n, const std::string& key) const {
  auto from_text = [](const std::string& t) { return parse_count(t); };
  auto from_number = [](double v) {
    if (!std::isfinite(v) || v < 0) throw UnitError("not a count (expected a finite number >= 0)");
    return v;
  };
  COMMSIM_QUANTITY(count, from_number, from_text, "a number of elements such as 5e7, or \"auto\"")
}

Quantity TomlReader::quantity(const toml::node& n, const std::string& key) const {
  auto from_text = [](const std::string& t) { return parse_any_quantity(t); };
  auto from_number = [](double v) {
    if (!std::isfinite(v)) throw UnitError("not a finite number (expected a finite number)");
    return Quantity{QuantityKind::Plain, v};
  };
  COMMSIM_QUANTITY(quantity, from_number, from_text, "a number, or a quantity such as \"3 us\" or \"25 GB/s\"")
}
#undef COMMSIM_QUANTITY

namespace {

const char* kind_noun(QuantityKind k) {
  switch (k) {
    case QuantityKind::Time: return "time";
    case QuantityKind::Bandwidth: return "bandwidth";
    case QuantityKind::Size: return "size";
    case QuantityKind::Plain: return "plain number";
  }
  return "quantity";
}

}  // namespace

double TomlReader::param(const toml::node& n, const std::string& key, const std::string& name) const {
  const Quantity q = quantity(n, key);
  const models::ParamSpec* p = models::find_param(name);
  if (!p || q.kind == QuantityKind::Plain) return q.value;  // a plain number is in the registered unit
  using U = models::ParamUnit;
  const QuantityKind want = p->unit == U::Seconds          ? QuantityKind::Time
                            : p->unit == U::BytesPerSecond ? QuantityKind::Bandwidth
                            : p->unit == U::Bytes          ? QuantityKind::Size
                                                           : QuantityKind::Plain;
  if (q.kind == want) return q.value;
  std::string expected;
  switch (want) {
    case QuantityKind::Time: expected = "a time such as \"5 us\", or a number of seconds"; break;
    case QuantityKind::Bandwidth: expected = "a bandwidth such as \"25 GB/s\", or a number of bytes/s"; break;
    case QuantityKind::Size: expected = "a size such as \"1 GiB\", or a number of bytes"; break;
    case QuantityKind::Plain:
      expected =
          std::string("a number without a unit, a ") + models::param_unit_noun(p->unit) +
          (p->unit == U::Fraction || p->unit == U::Factor ? std::string()
                                                          : std::string(" in ") + models::param_unit_symbol(p->unit)) +
          " within " + p->range.text();
      break;
  }
  fail(n, key + ": " + shown(n).substr(1) + " is a " + kind_noun(q.kind) + ", but " + name + " is a " +
              models::param_unit_noun(p->unit) + " (expected " + expected + ")");
}

bool TomlReader::is_auto(const toml::node& n) { return n.is_string() && n.as_string()->get() == "auto"; }

void TomlReader::table(const toml::node& n, const std::string& dotted, const std::vector<Field>& fields) {
  if (!n.is_table()) fail(n, dotted + ": got " + article_type(n) + shown(n) + " (expected a table)");
  if (!dotted.empty()) record(dotted, n);
  const toml::table& tbl = *n.as_table();
  std::vector<std::string> names;
  for (const auto& f : fields) names.push_back(f.name);
  // The table is sorted by key; report the unknown key written first in the file.
  const toml::key* bad_key = nullptr;
  const toml::node* bad_value = nullptr;
  for (auto&& [k, v] : tbl) {
    bool known = false;
    for (const auto& f : fields) known = known || f.name == k.str();
    if (known) continue;
    const SourcePos p = key_pos(k, v);
    if (bad_key) {
      const SourcePos q = key_pos(*bad_key, *bad_value);
      if (std::tie(q.file, q.line, q.col) <= std::tie(p.file, p.line, p.col)) continue;
    }
    bad_key = &k;
    bad_value = &v;
  }
  if (bad_key) {
    const std::string name(bad_key->str());
    const std::string where = dotted.empty() ? "at the top level" : "in [" + dotted + "]";
    const std::string near = closest_match(name, names);
    std::string expected;
    if (!near.empty()) {
      expected = "did you mean '" + near + "'?";
    } else {
      expected = "expected one of: ";
      for (size_t i = 0; i < names.size(); ++i) expected += (i ? ", " : "") + names[i];
    }
    throw UserError(key_pos(*bad_key, *bad_value), "unknown key '" + name + "' " + where + " (" + expected + ")");
  }
  for (const auto& f : fields) {
    if (const toml::node* child = tbl.get(f.name)) {
      const std::string key = dotted.empty() ? f.name : dotted + "." + f.name;
      record(key, *child);
      try {
        f.handle(*child, key);
      } catch (const UserError& e) {
        // A value where a table is expected is often a near key's ("cluster.node = 4" for
        // cluster.nodes): name it.
        const std::string tail = " (expected a table)";
        const std::string& m = e.message();
        if (child->is_table() || m.size() < tail.size() || m.compare(m.size() - tail.size(), tail.size(), tail) != 0)
          throw;
        std::vector<std::string> others;
        for (const auto& g : fields)
          if (g.name != f.name) others.push_back(g.name);
        const std::string near = closest_match(f.name, others);
        if (near.empty()) throw;
        throw UserError(e.pos(), m.substr(0, m.size() - tail.size()) + " (expected a table; did you mean '" +
                                     (dotted.empty() ? near : dotted + "." + near) + "'?)");
      }
    }
  }
}

void TomlReader::open_table(const toml::node& n, const std::string& dotted,
                            const std::function<void(const std::string&, const toml::node&, const SourcePos&)>& each) {
  if (!n.is_table()) fail(n, dotted + ": got " + article_type(n) + shown(n) + " (expected a table)");
  record(dotted, n);
  struct Leaf {
    std::string name;
    const toml::node* value;
    SourcePos at;
  };
  std::vector<Leaf> leaves;
  std::function<void(const toml::table&, const std::string&)> walk = [&](const toml::table& t,
                                                                         const std::string& prefix) {
    for (auto&& [k, v] : t) {
      const std::string name = prefix + std::string(k.str());
      if (v.is_table())
        walk(*v.as_table(), name + ".");
      else
        leaves.push_back({name, &v, key_pos(k, v)});
    }
  };
  walk(*n.as_table(), "");
  // `"nvlink.bw" = 1` and `nvlink.bw = 1` are two keys to TOML but one name here: written twice
  // in files it is an error; a --set of it wins over the file (the last --set over earlier ones).
  std::map<std::string, size_t> chosen;
  for (size_t i = 0; i < leaves.size(); ++i) {
    auto [it, inserted] = chosen.emplace(leaves[i].name, i);
    if (inserted) continue;
    const Leaf& a = leaves[it->second];
    const Leaf& b = leaves[i];
    const bool a_set = from_override(*a.value), b_set = from_override(*b.value);
    if (a_set || b_set) {
      if (b_set && (!a_set || b.at.line > a.at.line)) it->second = i;
      continue;
    }
    const bool a_first = std::tie(a.at.file, a.at.line, a.at.col) < std::tie(b.at.file, b.at.line, b.at.col);
    const Leaf& first = a_first ? a : b;
    const Leaf& second = a_first ? b : a;
    throw UserError(second.at, dotted + "." + second.name + ": written twice, first at " + first.at.str() +
                                   " (expected each name once; \"a.b\" = 1 and a.b = 1 are the same name)");
  }
  for (size_t i = 0; i < leaves.size(); ++i) {
    if (chosen.at(leaves[i].name) != i) continue;
    record(dotted + "." + leaves[i].name, *leaves[i].value);
    each(leaves[i].name, *leaves[i].value, leaves[i].at);
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
