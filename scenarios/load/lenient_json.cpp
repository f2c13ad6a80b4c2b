// Hjson's comments and commas -> strict JSON, duplicate keys and nesting refused (lenient_json.hpp).
#include "scenarios/load/lenient_json.hpp"

#include <map>

#include <nlohmann/json.hpp>

namespace scenarios {
namespace {

enum class Expect { kKey, kColon, kValue, kAfter };

struct Frame {
  bool object;
  Expect expect;
  std::map<std::string, size_t, std::less<>> keys;  // key, escapes decoded -> offset of its quote
};

// A key as JSON readers see it, escapes decoded ("overlap_c\u006fmm" is overlap_comm): two
// spellings of one key are one key written twice. A key the parser will refuse stays as written.
std::string decoded_key(std::string_view token) {
  if (token.find('\\') == std::string_view::npos) return std::string(token);
  const nlohmann::json k = nlohmann::json::parse(token, nullptr, false);
  if (!k.is_string()) return std::string(token);
  std::string quoted(1, '"');
  quoted += k.get<std::string>();
  quoted += '"';
  return quoted;
}

bool is_delimiter(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ',' || c == ':' || c == '[' || c == ']' || c == '{' ||
         c == '}' || c == '"' || c == '#' || c == '/';
}

}  // namespace

SourcePos place_in(const std::string& file, std::string_view text, size_t offset) {
  SourcePos p{file, 1, 1};
  for (size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n')
      ++p.line, p.col = 1;
    else
      ++p.col;
  }
  return p;
}

StrictJson strict_json(std::string_view text, const std::string& file) {
  StrictJson out;
  out.text.reserve(text.size());
  out.origin.reserve(text.size() + 1);
  auto emit = [&](std::string_view s, size_t from) {
    for (size_t k = 0; k < s.size(); ++k) {
      out.text.push_back(s[k]);
      out.origin.push_back(from + k);
    }
  };
  std::vector<Frame> stack;
  size_t pending_comma = std::string_view::npos;  // a ',' held back: dropped if a bracket closes next
  bool newline_since_value = false;
  // Before a value or a key: the held comma, or the one Hjson lets a line end leave out.
  auto before_item = [&](size_t at) {
    if (stack.empty()) return;
    Frame& f = stack.back();
    if (pending_comma != std::string_view::npos) {
      emit(",", pending_comma);
      pending_comma = std::string_view::npos;
    } else if (f.expect == Expect::kAfter && newline_since_value) {
      emit(",", at);
      f.expect = f.object ? Expect::kKey : Expect::kValue;
    }
  };
  auto value_done = [&] {
    newline_since_value = false;
    if (!stack.empty() && stack.back().expect == Expect::kValue) stack.back().expect = Expect::kAfter;
  };

  size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (c == '\n') newline_since_value = true;
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
      emit(text.substr(i, 1), i);
      ++i;
      continue;
    }
    if (c == '#' || (c == '/' && i + 1 < text.size() && text[i + 1] == '/')) {  // to the end of the line
      while (i < text.size() && text[i] != '\n') ++i;
      emit(" ", i);
      continue;
    }
    if (c == '/' && i + 1 < text.size() && text[i + 1] == '*') {
      const size_t end = text.find("*/", i + 2);
      const size_t stop = end == std::string_view::npos ? text.size() : end + 2;
      for (size_t k = i; k < stop; ++k)
        if (text[k] == '\n') newline_since_value = true;
      if (end == std::string_view::npos)
        throw UserError(place_in(file, text, i), "invalid JSON: unclosed /* comment (expected a closing */)");
      emit(" ", i);
      i = stop;
      continue;
    }
    if (c == ',') {
      if (!stack.empty() && stack.back().expect == Expect::kAfter && pending_comma == std::string_view::npos) {
        pending_comma = i;
        stack.back().expect = stack.back().object ? Expect::kKey : Expect::kValue;
      } else {
        emit(",", i);  // a comma out of place: the JSON parser says so, at its place
      }
      ++i;
      continue;
    }
    if (c == '}' || c == ']') {
      pending_comma = std::string_view::npos;  // a trailing comma
      emit(text.substr(i, 1), i);
      if (!stack.empty()) stack.pop_back();
      value_done();
      ++i;
      continue;
    }
    if (c == ':') {
      emit(":", i);
      if (!stack.empty() && stack.back().expect == Expect::kColon) stack.back().expect = Expect::kValue;
      ++i;
      continue;
    }
    before_item(i);
    if (c == '{' || c == '[') {
      if (static_cast<int>(stack.size()) >= kMaxJsonNesting)
        throw UserError(place_in(file, text, i), "nested more than " + std::to_string(kMaxJsonNesting) +
                                                     " levels deep (expected a DeepSpeed config a few levels deep)");
      emit(text.substr(i, 1), i);
      stack.push_back({c == '{', c == '{' ? Expect::kKey : Expect::kValue, {}});
      newline_since_value = false;
      ++i;
      continue;
    }
    if (c == '"') {
      size_t end = i + 1;
      while (end < text.size() && text[end] != '"' && text[end] != '\n') end += text[end] == '\\' ? 2 : 1;
      end = std::min(end + 1, text.size());
      const std::string_view token = text.substr(i, end - i);
      emit(token, i);
      if (!stack.empty() && stack.back().object && stack.back().expect == Expect::kKey) {
        Frame& f = stack.back();
        const std::string key = decoded_key(token);
        auto [it, inserted] = f.keys.emplace(key, i);
        if (!inserted)
          throw UserError(place_in(file, text, i),
                          "duplicate key " + key + (key == token ? "" : " (written " + std::string(token) + ")") +
                              " in one object, first at " +
                              place_in(file, text, it->second).str() +
                              " (expected each key once: DeepSpeed refuses a duplicate key, JSON readers keep "
                              "the last silently)");
        f.expect = Expect::kColon;
      } else {
        value_done();
      }
      i = end;
      continue;
    }
    size_t end = i;  // a number, true, false, null, or something the JSON parser will refuse
    while (end < text.size() && !is_delimiter(text[end])) ++end;
    if (end == i) ++end;
    emit(text.substr(i, end - i), i);
    value_done();
    i = end;
  }
  out.origin.push_back(text.size());
  return out;
}

}  // namespace scenarios
