#pragma once
// Where a value of a JSON document sits, for errors at FILE:LINE:COL: nlohmann::json keeps no
// positions, so a reader that finds a value wrong (a missing key, a string where a number belongs)
// names it by its JSON path ("traceEvents[12].dur") and this scanner finds the line and column where
// that value (or the deepest object on the path that exists) starts in the text. Syntax errors come
// from nlohmann's byte offset. Shared by the JSON readers of this folder (Kineto traces, nccl-tests
// -J output, NCCL Inspector's JSON lines).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

namespace models::readers {

// One step of a path: an object key or an array index.
using JsonStep = std::variant<std::string, std::size_t>;
using JsonPath = std::vector<JsonStep>;

// "traceEvents[12].dur" (keys joined by '.', indices in brackets; "" for the root).
std::string json_path_text(const JsonPath& path);

// 1-based line and column of the value at `path` in `text` (a valid JSON document), or of the
// deepest value on the path that exists; {1, 1} for the root.
struct JsonPlace {
  int line = 1, col = 1;
};
JsonPlace json_place(std::string_view text, const JsonPath& path);

// Parses `text` as one JSON document. A syntax error throws models::ParseError at the line and
// column of the offending byte; `first_line` shifts the line (a JSON-lines file's line number).
// A number past double's range (valid JSON, "1e999") is refused the same way, at the number.
nlohmann::json parse_json_text(std::string_view text, const std::string& file, int first_line = 1);

// nlohmann throws out_of_range.406 "number overflow parsing '<token>'" for a number past double's
// range, with no offset: the token and its first offset in `text` (npos when not found).
struct OverflowNumber {
  std::string token;
  std::size_t offset = std::string_view::npos;
};
OverflowNumber overflow_number(std::string_view text, const std::string& what);

// Throws models::ParseError at the place of `path` in `text`: "PATH: message".
[[noreturn]] void json_fail(std::string_view text, const std::string& file, const JsonPath& path,
                            const std::string& message, int first_line = 1);

// Typed access that fails at the value's place: the member `key` of the object at `path`.
struct JsonDoc {
  std::string_view text;
  std::string file;
  int first_line = 1;
  [[noreturn]] void fail(const JsonPath& path, const std::string& message) const {
    json_fail(text, file, path, message, first_line);
  }
  const nlohmann::json& member(const nlohmann::json& obj, const JsonPath& path, const std::string& key) const;
  double number(const nlohmann::json& obj, const JsonPath& path, const std::string& key) const;
  // A whole number in [lo, hi].
  int64_t integer(const nlohmann::json& obj, const JsonPath& path, const std::string& key, int64_t lo, int64_t hi) const;
  std::string string(const nlohmann::json& obj, const JsonPath& path, const std::string& key) const;
  const nlohmann::json& array(const nlohmann::json& obj, const JsonPath& path, const std::string& key) const;
  const nlohmann::json& object(const nlohmann::json& obj, const JsonPath& path, const std::string& key) const;
};

// `path` with one more step.
JsonPath json_child(JsonPath path, JsonStep step);

}  // namespace models::readers
