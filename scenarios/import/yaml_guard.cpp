#include "scenarios/import/yaml_guard.hpp"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/parser.h>

#include <sstream>

namespace scenarios {

namespace {

// Records where each document starts; nothing else is kept (the real load builds the nodes).
class DocumentStarts final : public YAML::EventHandler {
 public:
  YAML::Mark last;
  bool started = false;
  void OnDocumentStart(const YAML::Mark& mark) override {
    last = mark;
    started = true;
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
};

}  // namespace

void check_yaml_terminates(const std::string& text, const std::string& file_name) {
  std::istringstream in(text);
  YAML::Parser parser(in);
  DocumentStarts events;
  bool have_prev = false;
  YAML::Mark prev;
  try {
    // A stream of n bytes has at most n + 1 documents; more turns than that is the loop too.
    for (std::size_t turn = 0; turn <= text.size() + 1; ++turn) {
      events.started = false;
      if (!parser.HandleNextDocument(events)) return;
      if (!events.started) return;
      const YAML::Mark at = events.last;
      if (have_prev && at.pos == prev.pos) {
        const std::size_t pos = at.pos >= 0 ? static_cast<std::size_t>(at.pos) : 0;
        const char ch = pos < text.size() ? text[pos] : ' ';
        throw UserError({file_name, at.line + 1, at.column + 1},
                        std::string("YAML: unexpected '") + ch +
                            "' where a value should start (expected a value: quote it, or remove the stray character)");
      }
      prev = at;
      have_prev = true;
    }
    throw UserError({file_name, prev.line + 1, prev.column + 1},
                    "YAML: the parser does not advance here (expected a value)");
  } catch (const YAML::Exception&) {
    return;  // a syntax error: the real load reports it with its own message
  }
}

}  // namespace scenarios
