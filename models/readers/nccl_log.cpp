// parse_nccl_log: reads a real NCCL debug log line by line. Each NCCL message is dispatched on
// its first words (cheap string checks) and only then matched with a regex, so a 1 MB log of
// several ranks parses in milliseconds. Key lines (transports, communicators, timings) that
// start right but do not match are reported with their line and column: that is what a log cut
// in the middle of a line, or garbled, looks like.
// The parser's shared pieces are declared in nccl_log_parser.hpp; the NCCL messages themselves
// are read in nccl_log_messages.cpp.
#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <sstream>

#include "models/parse_error.hpp"
#include "models/readers/log_line.hpp"
#include "models/readers/nccl_log.hpp"
#include "models/readers/nccl_log_parser.hpp"
#include "models/utf8.hpp"

namespace models::readers {
namespace nccl_log_detail {

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool contains(std::string_view s, std::string_view p) { return s.find(p) != std::string_view::npos; }

std::string_view trim(std::string_view s) {
  size_t b = s.find_first_not_of(" \t");
  if (b == std::string_view::npos) return {};
  size_t e = s.find_last_not_of(" \t");
  return s.substr(b, e - b + 1);
}

int to_int(const std::string& s) {
  long long v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || v > 1 << 30 || v < -(1 << 30)) return -1;
  return static_cast<int>(v);
}
long long to_ll(const std::string& s) {
  long long v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() ? v : -1;
}
double to_double(const std::string& s) { return std::strtod(s.c_str(), nullptr); }

std::vector<std::string> split_cells(std::string_view s) {
  std::vector<std::string> cells;
  size_t start = 0;
  while (start <= s.size()) {
    size_t bar = s.find('|', start);
    std::string_view cell = s.substr(start, (bar == std::string_view::npos ? s.size() : bar) - start);
    cells.emplace_back(trim(cell));
    if (bar == std::string_view::npos) break;
    start = bar + 1;
  }
  while (!cells.empty() && cells.back().empty()) cells.pop_back();
  return cells;
}

std::vector<std::string> words(std::string_view s) {
  std::vector<std::string> w;
  std::istringstream in{std::string(s)};
  for (std::string x; in >> x;) w.push_back(x);
  return w;
}

// NET/<plugin>/<dev>[/GDRDMA][/Shared] -> NET/<plugin>[/GDRDMA]; others as logged.
std::string transport_kind(const std::string& via) {
  if (!starts_with(via, "NET/")) return via;
  std::vector<std::string> parts;
  size_t s = 0;
  while (s <= via.size()) {
    size_t e = via.find('/', s);
    parts.push_back(via.substr(s, (e == std::string::npos ? via.size() : e) - s));
    if (e == std::string::npos) break;
    s = e + 1;
  }
  std::string kind = "NET/" + (parts.size() > 1 ? parts[1] : std::string("?"));
  for (size_t i = 2; i < parts.size(); ++i)
    if (parts[i] == "GDRDMA") kind += "/GDRDMA";
  return kind;
}

const Regexes& rx() {
  static const Regexes r;
  return r;
}

NcclLogReport LogParser::run() {
  // A UTF-8 byte-order mark (a log saved by a Windows editor) is not part of the first line.
  if (text_.substr(0, 3) == "\xEF\xBB\xBF") text_.remove_prefix(3);
  check_text(text_, rep_.source);
  auto lines = split_lines(text_);
  for (size_t i = 0; i < lines.size(); ++i) line(lines[i], static_cast<int>(i) + 1);
  if (rep_.nccl_lines == 0)
    throw ParseError(rep_.source, 1, 1,
                     "no NCCL message found (expected lines like 'host:pid:tid [dev] NCCL INFO ...'; "
                     "was the job run with NCCL_DEBUG=INFO?)");
  finish();
  return std::move(rep_);
}

void LogParser::bad(const LogLine& l, const std::string& expected) {
  throw ParseError(
      rep_.source, l.line, l.text_col,
      "NCCL line cut short or garbled: '" + std::string(l.text.substr(0, 80)) + "' (expected " + expected + ")");
}

void LogParser::line(std::string_view raw, int no) {
  auto ll = split_nccl_line(raw, no);
  if (!ll) {
    other(raw);
    return;
  }
  ++rep_.nccl_lines;
  matrix_open_ = false;
  if (!ll->host.empty()) {
    hosts_.insert(ll->host);
    procs_.insert(ll->host + ":" + std::to_string(ll->pid));
    if (std::find(rep_.hosts.begin(), rep_.hosts.end(), ll->host) == rep_.hosts.end()) rep_.hosts.push_back(ll->host);
  }
  if (ll->level == "WARN") {
    rep_.warnings.emplace_back(trim(ll->text));
    std::string_view t = ll->text;
    if (starts_with(t, "NET/OFI") && (contains(t, "failed") || contains(t, "Unable"))) plugin_failure(*ll);
    return;
  }
  message(*ll);
}

void LogParser::plugin_failure(const LogLine& l) {
  rep_.plugin_failed = true;
  rep_.plugin_failure.emplace_back(trim(l.text));
}

// Program output: the Enabled matrix rows (printed without prefix) and trainer lines.
void LogParser::other(std::string_view raw) {
  ++rep_.other_lines;
  std::string_view t = trim(raw);
  if (matrix_open_) {
    if (t.empty() || !contains(t, "|")) {
      matrix_open_ = false;
    } else {
      matrix_row(t);
      return;
    }
  }
  trainer(t);
}

void LogParser::matrix_row(std::string_view t) {
  auto cells = split_cells(t);
  if (cells.size() < 3) return;
  if (cells[0] == "Function") {
    matrix_protos_ = words(cells[1]);
    matrix_algos_ = words(cells[2]);
    return;
  }
  if (matrix_done_) return;
  LogEnabledRow row;
  row.function = cells[0];
  auto p = words(cells[1]), a = words(cells[2]);
  for (size_t i = 0; i < p.size() && i < matrix_protos_.size(); ++i) row.protos[matrix_protos_[i]] = p[i] == "1";
  for (size_t i = 0; i < a.size() && i < matrix_algos_.size(); ++i) row.algos[matrix_algos_[i]] = a[i] == "1";
  rep_.enabled.push_back(std::move(row));
}

void LogParser::trainer(std::string_view t) {
  auto number_after = [&](std::string_view key) -> std::optional<long long> {
    if (!starts_with(t, key)) return std::nullopt;
    std::string digits;
    for (char c : t.substr(key.size()))
      if (c >= '0' && c <= '9')
        digits += c;
      else if (c != ',' && c != ' ')
        break;
    if (digits.empty() || digits.size() > 15) return std::nullopt;
    return to_ll(digits);
  };
  if (auto v = number_after("Number of trainable parameters ="))
    rep_.trainable_parameters = *v;
  else if (auto v = number_after("Instantaneous batch size per device ="))
    rep_.micro_batch = static_cast<int>(*v);
  else if (auto v = number_after("Gradient Accumulation steps ="))
    rep_.grad_accum = static_cast<int>(*v);
  else if (auto v = number_after("Total optimization steps ="))
    rep_.total_steps = static_cast<int>(*v);
  else if (starts_with(t, "Stage 3 initialize"))
    rep_.deepspeed_zero3 = true;
  // "Detected ZeRO Offload and non-DeepSpeed optimizers" (DeepSpeed's optimizer offload);
  // "DeepSpeedZeRoOffload initialize" is printed by every stage-3 run and says nothing.
  else if (starts_with(t, "Detected ZeRO Offload"))
    rep_.deepspeed_offload = true;
}

void LogParser::add_env(std::string name, std::string value, std::string source, int line) {
  for (const auto& e : rep_.env)
    if (e.name == name) return;
  rep_.env.push_back({std::move(name), std::move(value), std::move(source), line});
}

// Older NCCL versions (logs before 2.20) print no nNodes/localRanks: when a log has only "Init COMPLETE" lines,
// the main communicator's node layout is read from the hosts of its ranks (NCCL counts a node
// per host hash, i.e. per host name as seen in the prefix: two pods of one machine are two
// nodes, as in the nNodes of later versions). That needs every rank's line, with its host.
void LogParser::comms_from_init_complete() {
  int nranks = 0;
  for (const auto& c : completes_) nranks = std::max(nranks, c.nranks);
  std::map<std::string, std::set<int>> ranks_on;  // host -> ranks of the main communicator
  std::set<int> seen;
  for (const auto& c : completes_)
    if (c.nranks == nranks && !c.host.empty() && c.rank >= 0 && c.rank < nranks && seen.insert(c.rank).second)
      ranks_on[c.host].insert(c.rank);
  rep_.node_layout_from_hosts = true;
  if (static_cast<int>(seen.size()) == nranks) {
    for (auto& c : completes_) {
      auto host = ranks_on.find(c.host);
      if (c.nranks != nranks || host == ranks_on.end() || !host->second.count(c.rank)) continue;
      c.nnodes = static_cast<int>(ranks_on.size());
      c.local_ranks = static_cast<int>(host->second.size());
      c.local_rank = static_cast<int>(std::distance(host->second.begin(), host->second.find(c.rank)));
    }
  }
  rep_.comms = std::move(completes_);
  rep_.ranks_seen = static_cast<int>(seen.size());
}

void LogParser::finish() {
  if (rep_.comms.empty() && !completes_.empty()) comms_from_init_complete();
  rep_.processes = static_cast<int>(procs_.size());
  for (const auto& c : rep_.comms)
    if (c.nranks > rep_.nranks) {
      rep_.nranks = c.nranks;
      rep_.nnodes = c.nnodes;
      rep_.local_ranks = c.local_ranks;
    }
}

}  // namespace nccl_log_detail

// A log is another program's output: bytes that are not UTF-8 (a host name) are read as Latin-1.
NcclLogReport parse_nccl_log(std::string_view text, const std::string& source) {
  const std::string decoded = utf8_text(text);
  return nccl_log_detail::LogParser(decoded, source).run();
}

NcclLogReport parse_nccl_log_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ParseError(path, 1, 1, "cannot open the file");
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_nccl_log(ss.str(), path);
}

}  // namespace models::readers
