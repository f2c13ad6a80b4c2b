#pragma once
// JSON as text, for every --json output and sweep row: one line (indent -1) or indented. Every
// string should be UTF-8 already (models/utf8.hpp, where inputs become text); a byte that is not
// is written as U+FFFD rather than ending the command (nlohmann's dump throws on it, which
// aborted `sweep --json` from a worker thread).
#include <string>

#include <nlohmann/json.hpp>

namespace scenarios {

template <class JsonType>
std::string json_text(const JsonType& j, int indent = -1) {
  return j.dump(indent, ' ', false, JsonType::error_handler_t::replace);
}

}  // namespace scenarios
