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
