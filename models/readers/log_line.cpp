#include "models/readers/log_line.hpp"

#include <cctype>
#include <charconv>
#include <regex>

#include "models/parse_error.hpp"

namespace models::readers {
namespace {

// host:pid:tid [dev] <optional function:line>   (the host may have program output glued before it)
const std::regex& prefix_regex() {
  // A host name has no ':' or brackets, which keeps launcher tags ("[default0]:") out of it.
  static const std::regex re(R"(([^\s:\[\]]+):(\d+):(\d+) \[([^\]\s]*)\]\s*(.*?)\s*$)");
  return re;
}
// The leading part of a glued host token that is a table value, e.g. "-1" in "-1vm".
const std::regex& glued_value_regex() {
  static const std::regex re(R"(^(-?[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?|N/A)([A-Za-z].*)$)");
  return re;
}

int to_int_or(const std::string& s, int fallback) {
  int v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return (ec == std::errc() && p == s.data() + s.size()) ? v : fallback;
}

bool is_level(std::string_view s) { return s == "INFO" || s == "WARN" || s == "TRACE" || s == "ERROR"; }

}  // namespace

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view l = text.substr(start, end - start);
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    lines.push_back(l);
    start = end + 1;
  }
  return lines;
}

void check_text(std::string_view text, const std::string& file) {
  int line = 1, col = 1;
  for (unsigned char c : text) {
    if (c == '\n') {
      ++line;
      col = 1;
      continue;
    }
    if (c == 0 || (c < 0x20 && c != '\t' && c != '\r' && c != 0x1b) || c == 0x7f)
      throw ParseError(file, line, col,
                       "binary data in a text log (byte 0x" + std::string(1, "0123456789abcdef"[c >> 4]) +
                           std::string(1, "0123456789abcdef"[c & 15]) + "); expected text");
    ++col;
  }
}

std::optional<LogLine> split_nccl_line(std::string_view line, int line_no) {
  // Find "NCCL <LEVEL> " at the start of the line or after a space.
  size_t pos = 0;
  for (;;) {
    pos = line.find("NCCL ", pos);
    if (pos == std::string_view::npos) return std::nullopt;
    if (pos == 0 || line[pos - 1] == ' ' || line[pos - 1] == '\t') {
      size_t lv_end = line.find_first_of(" \t", pos + 5);
      std::string_view lv = line.substr(pos + 5, (lv_end == std::string_view::npos ? line.size() : lv_end) - pos - 5);
      if (is_level(lv)) break;
    }
    pos += 5;
  }
  LogLine out;
  out.line = line_no;
  size_t lv_start = pos + 5;
  size_t lv_end = line.find_first_of(" \t", lv_start);
  if (lv_end == std::string_view::npos) lv_end = line.size();
  out.level = std::string(line.substr(lv_start, lv_end - lv_start));
  size_t text_start = lv_end < line.size() ? lv_end + 1 : line.size();
  out.text = line.substr(text_start);
  out.text_col = static_cast<int>(text_start) + 1;

  std::string_view head = line.substr(0, pos);
  // The prefix sits right before "NCCL": look at the last kPrefixWindow bytes only. This bounds
  // the regex's work (libstdc++'s matcher recurses per character) on arbitrarily long lines.
  constexpr size_t kPrefixWindow = 512;
  const size_t skip = head.size() > kPrefixWindow ? head.size() - kPrefixWindow : 0;
  std::string head_s(head.substr(skip));
  std::smatch m;
  if (std::regex_search(head_s, m, prefix_regex())) {
    std::string host = m[1].str();
    size_t before_len = skip + static_cast<size_t>(m.position(0));
    std::smatch g;
    if (std::regex_match(host, g, glued_value_regex())) {
      before_len += g[1].length();
      host = g[2].str();
    }
    out.before = head.substr(0, before_len);
    out.host = host;
    out.pid = to_int_or(m[2].str(), -1);
    out.tid = to_int_or(m[3].str(), -1);
    out.dev = m[4].str();
    size_t where_pos = skip + static_cast<size_t>(m.position(5));
    out.where = head.substr(where_pos, static_cast<size_t>(m.length(5)));
  } else {
    out.before = head;
  }
  return out;
}

}  // namespace models::readers
