#include "scenarios/import/scenario_writer.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace scenarios {
namespace {

// The contract's table order; any other table goes after these, in first-use order.
const std::vector<std::string> kOrder = {"",      "cluster",  "placement", "nccl", "nccl.env",
                                         "model", "training", "parallel",  "zero", "collective"};

std::string key_text(const std::string& k) {
  bool bare = !k.empty() && std::all_of(k.begin(), k.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
  });
  return bare ? k : toml_quote(k);
}

}  // namespace

std::string toml_value_text(const TomlScalar& v) {
  if (auto s = std::get_if<std::string>(&v)) return toml_quote(*s);
  if (auto i = std::get_if<long long>(&v)) return std::to_string(*i);
  if (auto b = std::get_if<bool>(&v)) return *b ? "true" : "false";
  double d = std::get<double>(v);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", d);
  std::string s = buf;
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";  // a TOML float, not an integer
  return s;
}

std::string toml_quote(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (c < 0x20 || c == 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

ScenarioWriter::Table& ScenarioWriter::table(const std::string& name) {
  for (auto& t : tables_)
    if (t.name == name) return t;
  tables_.push_back({name, {}, {}});
  return tables_.back();
}

void ScenarioWriter::set(const std::string& table_name, const std::string& key, TomlScalar value,
                         const std::string& comment) {
  Table& t = table(table_name);
  for (auto& e : t.entries)
    if (e.key == key) {
      e.value = std::move(value);
      e.comment = comment;
      return;
    }
  t.entries.push_back({key, std::move(value), comment});
}

void ScenarioWriter::note(const std::string& table_name, const std::string& line) {
  table(table_name).notes.push_back(line);
}

bool ScenarioWriter::has(const std::string& table_name, const std::string& key) const {
  for (const auto& t : tables_)
    if (t.name == table_name)
      for (const auto& e : t.entries)
        if (e.key == key) return true;
  return false;
}

std::string ScenarioWriter::str() const {
  std::ostringstream out;
  for (const auto& h : header_) out << "# " << h << "\n";
  std::vector<const Table*> order;
  for (const auto& name : kOrder)
    for (const auto& t : tables_)
      if (t.name == name) order.push_back(&t);
  for (const auto& t : tables_)
    if (std::find(kOrder.begin(), kOrder.end(), t.name) == kOrder.end()) order.push_back(&t);
  bool first = header_.empty();
  for (const Table* t : order) {
    if (!first) out << "\n";
    first = false;
    if (!t->name.empty()) out << "[" << t->name << "]\n";
    for (auto n : t->notes) {
      std::replace(n.begin(), n.end(), '\n', ' ');
      out << "# " << n << "\n";
    }
    for (const auto& e : t->entries) {
      out << key_text(e.key) << " = " << toml_value_text(e.value);
      if (!e.comment.empty()) {
        std::string c = e.comment;
        std::replace(c.begin(), c.end(), '\n', ' ');  // a comment must stay on its line
        out << "  # " << c;
      }
      out << "\n";
    }
  }
  return out.str();
}

}  // namespace scenarios
