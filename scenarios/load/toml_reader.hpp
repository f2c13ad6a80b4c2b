#pragma once
// Reading TOML nodes against a closed schema: typed getters that turn every mistake into a
// positioned UserError, the position bookkeeping (file nodes and `--set` nodes), and the
// `--set dotted.key=value` merge (set_override.cpp). Internal to scenarios/load/ (only this folder includes toml++).
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include <toml++/toml.h>

#include "scenarios/load/loader.hpp"
#include "scenarios/load/units.hpp"

namespace scenarios::detail {

class TomlReader {
 public:
  TomlReader(LoadedScenario& out, std::string file_name);

  // Where a node or a key was written (`--set` nodes included).
  SourcePos pos(const toml::node& n) const;
  SourcePos key_pos(const toml::key& k, const toml::node& value) const;
  [[noreturn]] void fail(const toml::node& n, const std::string& message) const;
  void record(const std::string& dotted, const toml::node& n);
  bool from_override(const toml::node& n) const { return overrides_.count(&n) > 0; }

  // Applies one `--set KEY=VALUE` (the `ordinal`-th) to `root`.
  void apply_override(toml::table& root, const std::string& arg, int ordinal);

  // Typed reads: `key` is the dotted key, for messages.
  std::string string(const toml::node& n, const std::string& key) const;
  std::string one_of(const toml::node& n, const std::string& key, const std::vector<std::string>& choices) const;
  int64_t integer(const toml::node& n, const std::string& key, int64_t min, int64_t max) const;
  int64_t one_of_int(const toml::node& n, const std::string& key, const std::vector<int64_t>& choices) const;
  bool boolean(const toml::node& n, const std::string& key) const;
  double number(const toml::node& n, const std::string& key) const;  // finite
  int64_t size(const toml::node& n, const std::string& key) const;
  double bandwidth(const toml::node& n, const std::string& key) const;
  double time(const toml::node& n, const std::string& key) const;
  // A count (DeepSpeed bucket sizes: elements, not bytes): number or numeric string.
  double count(const toml::node& n, const std::string& key) const;
  // A value of [cluster.params] (or a profile's [params]) for the parameter `name`: a number in the
  // parameter's registered unit (models/params.hpp), or "3 us" / "25 GB/s" / "50 MB" when that
  // unit is a time, bandwidth or size; a unit of another kind is refused here, naming the one
  // expected. A name not registered is read as written (check_params says "did you mean").
  double param(const toml::node& n, const std::string& key, const std::string& name) const;
  static bool is_auto(const toml::node& n);

  // A closed table: every key must be one of `fields`; each present field's handler runs with
  // its node and dotted key, in the order of `fields` (so output never depends on file order).
  using Handler = std::function<void(const toml::node&, const std::string& dotted)>;
  struct Field {
    std::string name;
    Handler handle;
  };
  void table(const toml::node& n, const std::string& dotted, const std::vector<Field>& fields);
  // An open table whose keys are free names (nccl.env, cluster.params); nested tables are
  // flattened to dotted names ("nvlink.bw"); `each` sees every leaf in file order.
  void open_table(
      const toml::node& n, const std::string& dotted,
      const std::function<void(const std::string& name, const toml::node& value, const SourcePos& key_pos)>& each);

  const std::string& file_name() const { return file_name_; }

 private:
  // A number (QuantityKind::Plain) or a string with a unit, its kind as the unit says.
  Quantity quantity(const toml::node& n, const std::string& key) const;
  // Records where each value nested in a --set value was written (set_override.cpp): `copy` is
  // the node inserted into the scenario, `parsed` the one read from KEY=VALUE with its place.
  void record_nested(const toml::node& copy, const toml::node& parsed, int ordinal);
  struct OverridePos {
    SourcePos key, value;
  };
  LoadedScenario& out_;
  std::string file_name_;
  std::unordered_map<const toml::node*, OverridePos> overrides_;
  std::map<std::string, int> set_keys_;  // override_key -> its --set ordinal: a key set twice is refused
};

std::string type_name(const toml::node& n);
std::string article_type(const toml::node& n);  // "an integer", "a string"
std::string shortest(double v);                 // shortest round-trip decimal
std::string one_line(std::string s);

}  // namespace scenarios::detail
