#pragma once
// ScenarioWriter: how the importers (nccl-log, k8s) write a scenario TOML that `commsim run`
// loads. Tables come out in the order of the scenario contract (docs/design.md), keys in the
// order they were set, each with an optional comment saying where the value came from, so the
// user can read why the scenario looks the way it does.
#include <string>
#include <variant>
#include <vector>

namespace scenarios {

using TomlScalar = std::variant<std::string, long long, double, bool>;

class ScenarioWriter {
 public:
  // A comment line at the top of the file.
  void header(const std::string& line) { header_.push_back(line); }
  // table "" is the top level; "nccl.env" is written as [nccl.env]. Setting a key twice keeps
  // the last value.
  void set(const std::string& table, const std::string& key, TomlScalar value, const std::string& comment = "");
  // A comment line inside a table (written before its keys).
  void note(const std::string& table, const std::string& line);
  bool has(const std::string& table, const std::string& key) const;
  std::string str() const;

 private:
  struct Entry {
    std::string key;
    TomlScalar value;
    std::string comment;
  };
  struct Table {
    std::string name;
    std::vector<std::string> notes;
    std::vector<Entry> entries;
  };
  Table& table(const std::string& name);
  std::vector<std::string> header_;
  std::vector<Table> tables_;
};

// TOML basic string with escapes ("a\"b").
std::string toml_quote(const std::string& s);
// A value as TOML writes it ("text", 4, true, 0.5).
std::string toml_value_text(const TomlScalar& v);

}  // namespace scenarios
