#include "models/readers/json_place.hpp"

#include <cctype>
#include <cmath>

#include "models/parse_error.hpp"

namespace models::readers {

std::string json_path_text(const JsonPath& path) {
  std::string s;
  for (const auto& st : path) {
    if (const auto* k = std::get_if<std::string>(&st)) {
      if (!s.empty()) s += '.';
      s += *k;
    } else {
      s += "[" + std::to_string(std::get<std::size_t>(st)) + "]";
    }
  }
  return s;
}

JsonPath json_child(JsonPath path, JsonStep step) {
  path.push_back(std::move(step));
  return path;
}

namespace {

// A forward scanner over valid JSON text that keeps the line and column.
struct JsonScan {
  std::string_view t;
  std::size_t i = 0;
  int line = 1, col = 1;
  bool done() const { return i >= t.size(); }
  void advance() {
    if (t[i] == '\n') {
      ++line, col = 1;
    } else if ((static_cast<unsigned char>(t[i]) & 0xC0) != 0x80) {
      ++col;
    }
    ++i;
  }
  void space() {
    while (!done() && std::isspace(static_cast<unsigned char>(t[i]))) advance();
  }
  std::string string_token() {  // at '"'
    std::string s;
    advance();
    while (!done() && t[i] != '"') {
      if (t[i] == '\\' && i + 1 < t.size()) {
        advance();
        s += t[i] == 'n' ? '\n' : t[i];
      } else {
        s += t[i];
      }
      advance();
    }
    if (!done()) advance();
    return s;
  }
  void skip_value() {
    space();
    if (done()) return;
    if (t[i] == '"') {
      string_token();
      return;
    }
    if (t[i] == '{' || t[i] == '[') {
      int depth = 0;
      do {
        if (t[i] == '"') {
          string_token();
          continue;
        }
        if (t[i] == '{' || t[i] == '[') ++depth;
        if (t[i] == '}' || t[i] == ']') --depth;
        advance();
      } while (!done() && depth > 0);
      return;
    }
    while (!done() && t[i] != ',' && t[i] != '}' && t[i] != ']' && !std::isspace(static_cast<unsigned char>(t[i])))
      advance();
  }
  // At a value: moves to the start of its child `step`; false when there is none.
  bool enter(const JsonStep& step) {
    space();
    if (done()) return false;
    if (const auto* key = std::get_if<std::string>(&step)) {
      if (t[i] != '{') return false;
      advance();
      for (;;) {
        space();
        if (done() || t[i] != '"') return false;
        const std::string k = string_token();
        space();
        if (done() || t[i] != ':') return false;
        advance();
        space();
        if (k == *key) return true;
        skip_value();
        space();
        if (done() || t[i] != ',') return false;
        advance();
      }
    }
    if (t[i] != '[') return false;
    advance();
    const std::size_t want = std::get<std::size_t>(step);
    for (std::size_t n = 0;; ++n) {
      space();
      if (done() || t[i] == ']') return false;
      if (n == want) return true;
      skip_value();
      space();
      if (done() || t[i] != ',') return false;
      advance();
    }
  }
};

}  // namespace

JsonPlace json_place(std::string_view text, const JsonPath& path) {
  JsonScan s{text};
  s.space();
  JsonPlace best{s.line, s.col};
  for (const auto& step : path) {
    JsonScan next = s;
    if (!next.enter(step)) break;
    s = next;
    best = {s.line, s.col};
  }
  return best;
}

nlohmann::json parse_json_text(std::string_view text, const std::string& file, int first_line) {
  try {
    return nlohmann::json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::parse_error& e) {
    // e.byte: 1-based offset of the byte where parsing stopped.
    const std::size_t at = e.byte == 0 ? 0 : std::min<std::size_t>(e.byte - 1, text.size());
    JsonScan s{text};
    while (s.i < at) s.advance();
    std::string what = e.what();
    const auto cut = what.find("parse error");
    if (cut != std::string::npos) what = what.substr(cut);
    throw ParseError(file, s.line + first_line - 1, s.col, "not valid JSON (" + what + ")");
  } catch (const nlohmann::json::out_of_range& e) {
    const OverflowNumber n = overflow_number(text, e.what());
    JsonScan s{text};
    if (n.offset != std::string_view::npos)
      while (s.i < n.offset) s.advance();
    throw ParseError(file, s.line + first_line - 1, s.col,
                     "number " + (n.token.empty() ? std::string("out of range") : n.token) +
                         " is too large (expected a finite number)");
  }
}

OverflowNumber overflow_number(std::string_view text, const std::string& what) {
  OverflowNumber out;
  const std::size_t q1 = what.find('\'');
  const std::size_t q2 = q1 == std::string::npos ? q1 : what.find('\'', q1 + 1);
  if (q2 == std::string::npos) return out;
  out.token = what.substr(q1 + 1, q2 - q1 - 1);
  if (!out.token.empty()) out.offset = text.find(out.token);
  return out;
}

void json_fail(std::string_view text, const std::string& file, const JsonPath& path, const std::string& message,
               int first_line) {
  const JsonPlace p = json_place(text, path);
  const std::string where = json_path_text(path);
  throw ParseError(file, p.line + first_line - 1, p.col, (where.empty() ? "" : where + ": ") + message);
}

const nlohmann::json& JsonDoc::member(const nlohmann::json& obj, const JsonPath& path, const std::string& key) const {
  if (!obj.is_object()) fail(path, "expected an object");
  const auto it = obj.find(key);
  if (it == obj.end()) fail(path, "no \"" + key + "\" member");
  return *it;
}

double JsonDoc::number(const nlohmann::json& obj, const JsonPath& path, const std::string& key) const {
  const auto& v = member(obj, path, key);
  if (!v.is_number()) fail(json_child(path, key), "expected a number, found " + std::string(v.type_name()));
  return v.get<double>();
}

int64_t JsonDoc::integer(const nlohmann::json& obj, const JsonPath& path, const std::string& key, int64_t lo,
                         int64_t hi) const {
  const double v = number(obj, path, key);
  if (!(v >= double(lo) && v <= double(hi)) || v != std::floor(v))
    fail(json_child(path, key), "expected a whole number from " + std::to_string(lo) + " to " + std::to_string(hi));
  return static_cast<int64_t>(v);
}

std::string JsonDoc::string(const nlohmann::json& obj, const JsonPath& path, const std::string& key) const {
  const auto& v = member(obj, path, key);
  if (!v.is_string()) fail(json_child(path, key), "expected a string, found " + std::string(v.type_name()));
  return v.get<std::string>();
}

const nlohmann::json& JsonDoc::array(const nlohmann::json& obj, const JsonPath& path, const std::string& key) const {
  const auto& v = member(obj, path, key);
  if (!v.is_array()) fail(json_child(path, key), "expected an array, found " + std::string(v.type_name()));
  return v;
}

const nlohmann::json& JsonDoc::object(const nlohmann::json& obj, const JsonPath& path, const std::string& key) const {
  const auto& v = member(obj, path, key);
  if (!v.is_object()) fail(json_child(path, key), "expected an object, found " + std::string(v.type_name()));
  return v;
}

}  // namespace models::readers
