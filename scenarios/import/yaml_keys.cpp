// Duplicate keys, self-referencing aliases and alias bombs, from the parser's events (yaml_keys.hpp).
#include "scenarios/import/yaml_keys.hpp"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/mark.h>
#include <yaml-cpp/parser.h>

#include <algorithm>
#include <map>
#include <sstream>
#include <vector>

#include "scenarios/load/loader.hpp"

namespace scenarios {
namespace {

class StructureCheck final : public YAML::EventHandler {
 public:
  explicit StructureCheck(std::string file) : file_(std::move(file)) {}

  void OnDocumentStart(const YAML::Mark&) override {
    stack_.clear();
    sizes_.clear();  // anchors belong to their document
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& m, YAML::anchor_t anchor) override { leaf(m, anchor, nullptr); }
  void OnScalar(const YAML::Mark& m, const std::string&, YAML::anchor_t anchor, const std::string& value) override {
    leaf(m, anchor, &value);
  }
  void OnAlias(const YAML::Mark& m, YAML::anchor_t anchor) override {
    begin(m, nullptr);
    const auto it = sizes_.find(anchor);
    if (it == sizes_.end()) return;  // an undefined alias: the real load reports it
    if (it->second == kOpen)
      throw UserError(at(m), "YAML: an alias inside the node its anchor names (expected an alias to a node defined "
                             "before it: a node cannot contain itself)");
    alias_nodes_ = std::min<std::uint64_t>(alias_nodes_ + it->second, kSaturated);
    if (alias_nodes_ > kMaxAliasNodes)
      throw UserError(at(m), "YAML: aliases expand to more than " + std::to_string(kMaxAliasNodes) +
                                 " nodes (expected a Kubernetes job: a few hundred nodes, aliases used a few times)");
    add(it->second);
  }
  void OnSequenceStart(const YAML::Mark& m, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    open(m, anchor, false);
  }
  void OnSequenceEnd() override { close(); }
  void OnMapStart(const YAML::Mark& m, const std::string&, YAML::anchor_t anchor, YAML::EmitterStyle::value) override {
    open(m, anchor, true);
  }
  void OnMapEnd() override { close(); }

 private:
  static constexpr std::uint64_t kOpen = ~std::uint64_t{0};
  static constexpr std::uint64_t kSaturated = std::uint64_t{1} << 62;

  struct Frame {
    bool map = false;
    bool next_is_key = true;          // a mapping's events alternate key, value
    YAML::anchor_t anchor = 0;
    std::uint64_t nodes = 1;          // this node and everything under it, aliases expanded
    std::map<std::string, SourcePos> keys;
  };

  SourcePos at(const YAML::Mark& m) const {
    return m.line < 0 ? SourcePos{file_, 1, 1} : SourcePos{file_, m.line + 1, m.column + 1};
  }
  // A node starts: as a key or a value of the mapping around it. Returns whether it is a key.
  bool begin(const YAML::Mark&, const std::string*) {
    if (stack_.empty() || !stack_.back().map) return false;
    Frame& f = stack_.back();
    const bool key = f.next_is_key;
    f.next_is_key = !f.next_is_key;
    return key;
  }
  void add(std::uint64_t nodes) {
    if (!stack_.empty()) stack_.back().nodes = std::min(stack_.back().nodes + nodes, kSaturated);
  }
  void leaf(const YAML::Mark& m, YAML::anchor_t anchor, const std::string* value) {
    if (begin(m, value) && value) {
      const SourcePos here = at(m);
      auto [it, inserted] = stack_.back().keys.emplace(*value, here);
      if (!inserted)
        throw UserError(here, "duplicate key '" + *value + "' in one mapping, first at " + it->second.str() +
                                  " (expected each key once: Kubernetes refuses a key defined twice)");
    }
    if (anchor) sizes_[anchor] = 1;
    add(1);
  }
  void open(const YAML::Mark& m, YAML::anchor_t anchor, bool map) {
    begin(m, nullptr);
    if (anchor) sizes_[anchor] = kOpen;
    Frame f;
    f.map = map;
    f.anchor = anchor;
    stack_.push_back(std::move(f));
  }
  void close() {
    if (stack_.empty()) return;
    const Frame f = std::move(stack_.back());
    stack_.pop_back();
    if (f.anchor) sizes_[f.anchor] = f.nodes;
    add(f.nodes);
  }

  std::string file_;
  std::vector<Frame> stack_;
  std::map<YAML::anchor_t, std::uint64_t> sizes_;  // anchor -> its node's expanded size (kOpen while open)
  std::uint64_t alias_nodes_ = 0;                  // nodes the aliases of the whole file add
};

}  // namespace

void check_yaml_structure(const std::string& text, const std::string& file_name) {
  std::istringstream in(text);
  YAML::Parser parser(in);
  StructureCheck check(file_name);
  try {
    while (parser.HandleNextDocument(check)) {
    }
  } catch (const YAML::Exception&) {
    // a syntax error: the real load reports it with its own message
  }
}

}  // namespace scenarios
