// parse_nccl_log: reads a real NCCL debug log line by line. Each NCCL message is dispatched on
// its first words (cheap string checks) and only then matched with a regex, so a 1 MB log of
// several ranks parses in milliseconds. Key lines (transports, communicators, timings) that
// start right but do not match are reported with their line and column: that is what a log cut
// in the middle of a line, or garbled, looks like.
#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <tuple>

#include "models/parse_error.hpp"
#include "models/utf8.hpp"
#include "models/readers/log_line.hpp"
#include "models/readers/nccl_log.hpp"

namespace models::readers {
namespace {

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

struct Regexes {
  std::regex transport{
      R"(^Channel (\d+)(?:/(\d+))? : (\d+)\[([^\]]*)\] -> (\d+)\[([^\]]*)\](?: \[(send|receive)\])? via (\S.*?)\s*$)"};
  std::regex ring{R"(^Channel (\d+)/(\d+) :((?: +-?\d+)+)\s*$)"};
  std::regex comm{R"(^comm (0x[0-9a-fA-F]+) rank (\d+) nRanks (\d+) nNodes (\d+) localRanks (\d+) localRank (\d+)\b)"};
  // Every version since 2.4 (the only communicator line in older versions; later ones prefix the
  // function: "ncclCommInitRankConfig comm 0x... rank 0 nranks 4 cudaDev 0 nvmlDev 0 busId ...").
  std::regex init_complete{R"(\bcomm (0x[0-9a-fA-F]+) rank (\d+) nranks (\d+) cudaDev (\d+)\b.* - Init COMPLETE\b)"};
  std::regex channels{
      R"(^(\d+) coll channels, (?:(\d+) collnet channels, )?(?:(\d+) nvls channels, )?(\d+) p2p channels, (\d+) p2p channels per peer)"};
  std::regex tree_entry{R"(\[(\d+)\] (-?\d+)/(-?\d+)/(-?\d+)->(-?\d+)->(-?\d+))"};
  std::regex init_timing{R"(^Init timings - (\w+): rank (\d+) nranks (\d+) total ([0-9.]+) \((.*)\)\s*$)"};
  std::regex part{R"((\w+) ([0-9.]+))"};
  std::regex bootstrap{R"(^Bootstrap timings total ([0-9.]+) \(.*?recv ([0-9.]+))"};
  std::regex env_set{R"(^(NCCL_\w+) set by environment to (.*?)\s*$)"};
  std::regex env_added{R"(^NET/OFI Adding (\w+)=(\S*) to environment)"};
  std::regex gdr{R"(^Connected all rings.*\bGDR (\d+))"};
  std::regex algo_choice{
      R"(^(\w+): (\d+) Bytes -> Algo (\w+) proto (\w+)(?: channel\{Lo\.\.Hi\}=\{(\d+)\.\.(\d+)\})?)"};
  std::regex cell{R"(^\s*([0-9.]+)\s*/\s*([0-9.]+)\s*$)"};
};

const Regexes& rx() {
  static const Regexes r;
  return r;
}

class LogParser {
 public:
  LogParser(std::string_view text, std::string source) : text_(text) { rep_.source = std::move(source); }

  NcclLogReport run() {
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

 private:
  [[noreturn]] void bad(const LogLine& l, const std::string& expected) {
    throw ParseError(
        rep_.source, l.line, l.text_col,
        "NCCL line cut short or garbled: '" + std::string(l.text.substr(0, 80)) + "' (expected " + expected + ")");
  }

  void line(std::string_view raw, int no) {
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

  void plugin_failure(const LogLine& l) {
    rep_.plugin_failed = true;
    rep_.plugin_failure.emplace_back(trim(l.text));
  }

  // Program output: the Enabled matrix rows (printed without prefix) and trainer lines.
  void other(std::string_view raw) {
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

  void matrix_row(std::string_view t) {
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

  void trainer(std::string_view t) {
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

  void add_env(std::string name, std::string value, std::string source, int line) {
    for (const auto& e : rep_.env)
      if (e.name == name) return;
    rep_.env.push_back({std::move(name), std::move(value), std::move(source), line});
  }

  void message(const LogLine& l) {
    // No NCCL message we read is longer than a few KB (a Trees line of 64 channels is ~1.5 KB);
    // longer ones are not interpreted, which also bounds the recursive std::regex matcher.
    constexpr size_t kMaxMessage = 8192;
    if (l.text.size() > kMaxMessage) return;
    const std::string text(trim(l.text));
    std::string_view t = text;
    std::smatch m;
    const auto& r = rx();
    if (tuning_open_ && !(contains(t, "|") && !starts_with(t, "Algorithm"))) tuning_open_ = false;

    if (starts_with(t, "Channel ")) {
      if (contains(t, " via ")) {
        if (!std::regex_match(text, m, r.transport))
          bad(l, "'Channel NN/N : R[D] -> R[D] [send|receive] via TRANSPORT'");
        LogTransport tr;
        tr.channel = to_int(m[1]);
        tr.from_rank = to_int(m[3]);
        tr.from_dev = m[4];
        tr.to_rank = to_int(m[5]);
        tr.to_dev = m[6];
        tr.direction = m[7];
        tr.via = m[8];
        tr.kind = transport_kind(tr.via);
        tr.line = l.line;
        auto key = std::make_tuple(tr.channel, tr.from_rank, tr.to_rank, tr.direction, tr.via);
        if (transport_seen_.insert(key).second) {
          ++rep_.transport_kinds[tr.kind];
          rep_.transports.push_back(std::move(tr));
        }
      } else if (std::regex_match(text, m, r.ring)) {
        int ch = to_int(m[1]);
        if (ring_seen_.insert(ch).second) {
          LogRing ring;
          ring.channel = ch;
          ring.nchannels = to_int(m[2]);
          for (auto& w : words(m[3].str())) ring.ranks.push_back(to_int(w));
          rep_.rings.push_back(std::move(ring));
        }
      }
      return;
    }
    if (starts_with(t, "comm 0x") && contains(t, " nRanks")) {
      if (!std::regex_search(text, m, r.comm)) bad(l, "'comm 0x... rank R nRanks N nNodes M localRanks L localRank K'");
      LogComm c{l.host, l.pid, m[1], to_int(m[2]), to_int(m[3]), to_int(m[4]), to_int(m[5]), to_int(m[6]), l.line};
      rep_.comms.push_back(std::move(c));
      return;
    }
    if (contains(t, " - Init COMPLETE") && contains(t, " nranks ")) {
      if (!std::regex_search(text, m, r.init_complete))
        bad(l, "'comm 0x... rank R nranks N cudaDev D ... - Init COMPLETE'");
      completes_.push_back({l.host, l.pid, m[1], to_int(m[2]), to_int(m[3]), 0, 0, 0, l.line});
      return;
    }
    if (contains(t, " coll channels, ")) {
      if (!std::regex_search(text, m, r.channels)) bad(l, "'N coll channels, ..., N p2p channels per peer'");
      LogChannels c;
      c.coll = to_int(m[1]);
      c.collnet = m[2].matched ? to_int(m[2]) : 0;
      c.nvls = m[3].matched ? to_int(m[3]) : 0;
      c.p2p = to_int(m[4]);
      c.p2p_per_peer = to_int(m[5]);
      c.line = l.line;
      rep_.channels.push_back(c);
      return;
    }
    if (starts_with(t, "Trees ")) {
      for (auto it = std::sregex_iterator(text.begin(), text.end(), r.tree_entry); it != std::sregex_iterator(); ++it) {
        const auto& e = *it;
        LogTree tr;
        tr.channel = to_int(e[1]);
        for (int k = 2; k <= 4; ++k)
          if (to_int(e[k]) >= 0) tr.down.push_back(to_int(e[k]));
        tr.rank = to_int(e[5]);
        tr.up = to_int(e[6]);
        if (tree_seen_.insert({tr.channel, tr.rank}).second) rep_.trees.push_back(std::move(tr));
      }
      return;
    }
    if (starts_with(t, "Init timings")) {
      if (!std::regex_match(text, m, r.init_timing))
        bad(l, "'Init timings - FUNC: rank R nranks N total T (part T, ...)'");
      LogInitTiming it;
      it.function = m[1];
      it.rank = to_int(m[2]);
      it.nranks = to_int(m[3]);
      it.total_s = to_double(m[4]);
      std::string parts = m[5];
      for (auto p = std::sregex_iterator(parts.begin(), parts.end(), r.part); p != std::sregex_iterator(); ++p)
        it.parts_s[(*p)[1]] = to_double((*p)[2]);
      it.line = l.line;
      rep_.init_timings.push_back(std::move(it));
      return;
    }
    if (starts_with(t, "Bootstrap timings total")) {
      if (!std::regex_search(text, m, r.bootstrap))
        bad(l, "'Bootstrap timings total T (create T, send T, recv T, ...)'");
      double total = to_double(m[1]), recv = to_double(m[2]);
      if (!rep_.bootstrap_total_s || total > *rep_.bootstrap_total_s) {
        rep_.bootstrap_total_s = total;
        rep_.bootstrap_recv_s = recv;
      }
      return;
    }
    if (starts_with(t, "NCCL version ")) {
      if (rep_.nccl_version.empty()) rep_.nccl_version = words(t.substr(13)).empty() ? "" : words(t.substr(13))[0];
      return;
    }
    if (starts_with(t, "NCCL_") && contains(t, " set by environment to ")) {
      if (std::regex_match(text, m, r.env_set)) {
        std::string v = m[2];
        if (v.size() > 1 && v.back() == '.') v.pop_back();  // NCCL ends some of these with '.'
        add_env(m[1], v, "environment", l.line);
        if (m[1] == "NCCL_TOPO_FILE") rep_.topo_file = v;
      }
      return;
    }
    if (starts_with(t, "NET/OFI ")) {
      ofi(l, text);
      return;
    }
    if (starts_with(t, "NET/Plugin: Plugin name set by env to ")) {
      rep_.net_plugin_requested = trim(t.substr(38));
      return;
    }
    if (starts_with(t, "NET/Plugin: Loaded net plugin ")) {
      rep_.net_plugin_loaded = trim(t.substr(30));
      return;
    }
    if (starts_with(t, "Using network ")) {
      rep_.network = trim(t.substr(14));
      return;
    }
    if (starts_with(t, "Connected all rings")) {
      if (std::regex_search(text, m, r.gdr)) rep_.gdr.push_back(to_int(m[1]));
      return;
    }
    if (starts_with(t, "Check P2P Type ")) {
      auto w = words(t);
      for (size_t i = 0; i + 1 < w.size(); ++i) {
        if (w[i] == "isAllDirectP2p") rep_.all_direct_p2p = w[i + 1] == "1";
        if (w[i] == "directMode") rep_.direct_mode = w[i + 1] == "1";
      }
      return;
    }
    if (starts_with(t, "Enabled NCCL Func/Proto/Algo Matrix")) {
      matrix_open_ = true;
      matrix_done_ = !rep_.enabled.empty();
      return;
    }
    if (starts_with(t, "Algorithm") && contains(t, "|")) {
      auto cells = split_cells(t);
      tuning_algos_.assign(cells.begin() + 1, cells.end());
      tuning_open_ = !tuning_done_;
      return;
    }
    if (tuning_open_) {
      tuning_row(t);
      return;
    }
    if (contains(t, " Bytes -> Algo ")) {
      if (std::regex_search(text, m, r.algo_choice)) {
        long long bytes = to_ll(m[2]);
        if (choice_seen_.insert({m[1], bytes}).second) {
          LogAlgoChoice c{m[1], bytes, m[3], m[4], 0};
          if (m[5].matched) c.channels = to_int(m[6]) - to_int(m[5]) + 1;
          rep_.algo_choices.push_back(std::move(c));
        }
      }
      return;
    }
    if (starts_with(t, "Failed to initialize NET plugin ")) {
      std::string which(trim(t.substr(32)));
      // IB failing on a host without InfiniBand is NCCL probing, not a failure of the job's plugin.
      if (which != "IB") plugin_failure(l);
      return;
    }
  }

  void tuning_row(std::string_view t) {
    auto cells = split_cells(t);
    if (cells.empty()) return;
    if (cells[0] == "Protocol") {
      tuning_protos_.assign(cells.begin() + 1, cells.end());
      return;
    }
    if (cells[0] == "Max NThreads") return;
    std::smatch m;
    for (size_t i = 1; i < cells.size(); ++i) {
      size_t k = i - 1;
      if (k / 3 >= tuning_algos_.size() || k >= tuning_protos_.size()) break;
      if (!std::regex_match(cells[i], m, rx().cell)) continue;
      if (tuning_seen_.insert(cells[0] + "/" + tuning_algos_[k / 3] + "/" + tuning_protos_[k]).second)
        rep_.tuning.push_back({cells[0], tuning_algos_[k / 3], tuning_protos_[k], to_double(m[1]), to_double(m[2])});
    }
    if (cells[0] == "AllReduce" && tuning_algos_.size() == 1) tuning_done_ = true;  // last block (PAT)
  }

  void ofi(const LogLine& l, const std::string& text) {
    std::string_view t = text;
    std::smatch m;
    if (starts_with(t, "NET/OFI Initializing "))
      rep_.ofi_version = trim(t.substr(21));
    else if (starts_with(t, "NET/OFI Selected provider is ")) {
      auto rest = t.substr(29);
      rep_.ofi_provider = std::string(rest.substr(0, rest.find(',')));
      size_t f = t.find("(found ");
      if (f != std::string_view::npos) rep_.ofi_nics = to_int(words(t.substr(f + 7))[0]);
    } else if (starts_with(t, "NET/OFI No eligible providers") || contains(t, "initialization failed") ||
               contains(t, "Initializing plugin failed")) {
      plugin_failure(l);
    } else if (starts_with(t, "NET/OFI Running on ")) {
      auto w = words(t.substr(19));
      if (!w.empty()) rep_.platform = w[0];
    } else if (contains(t, "platform : ")) {
      auto w = words(t.substr(t.find("platform : ") + 11));
      if (!w.empty()) {
        std::string p = w[0];
        if (!p.empty() && p.back() == ',') p.pop_back();
        if (rep_.platform.empty()) rep_.platform = p;
      }
    } else if (std::regex_search(text, m, rx().env_added)) {
      add_env(m[1], m[2], "NET/OFI", l.line);
      if (m[1] == "NCCL_TOPO_FILE") rep_.topo_file = m[2];
    } else if (starts_with(t, "NET/OFI Need to force simple protocol")) {
      size_t c = t.find(':');
      rep_.forced_protocol_reason = c == std::string_view::npos ? "" : std::string(trim(t.substr(c + 1)));
    }
  }

  // Older NCCL versions (logs before 2.20) print no nNodes/localRanks: when a log has only "Init COMPLETE" lines,
  // the main communicator's node layout is read from the hosts of its ranks (NCCL counts a node
  // per host hash, i.e. per host name as seen in the prefix: two pods of one machine are two
  // nodes, as in the nNodes of later versions). That needs every rank's line, with its host.
  void comms_from_init_complete() {
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

  void finish() {
    if (rep_.comms.empty() && !completes_.empty()) comms_from_init_complete();
    rep_.processes = static_cast<int>(procs_.size());
    for (const auto& c : rep_.comms)
      if (c.nranks > rep_.nranks) {
        rep_.nranks = c.nranks;
        rep_.nnodes = c.nnodes;
        rep_.local_ranks = c.local_ranks;
      }
  }

  std::string_view text_;
  NcclLogReport rep_;
  std::set<std::string> hosts_, procs_;
  std::vector<LogComm> completes_;  // "Init COMPLETE" lines, used when no "nRanks ... nNodes" line exists
  std::set<std::tuple<int, int, int, std::string, std::string>> transport_seen_;
  std::set<int> ring_seen_;
  std::set<std::pair<int, int>> tree_seen_;
  std::set<std::pair<std::string, long long>> choice_seen_;
  std::set<std::string> tuning_seen_;
  bool matrix_open_ = false, matrix_done_ = false;
  std::vector<std::string> matrix_protos_, matrix_algos_;
  bool tuning_open_ = false, tuning_done_ = false;
  std::vector<std::string> tuning_algos_, tuning_protos_;
};

}  // namespace

// A log is another program's output: bytes that are not UTF-8 (a host name) are read as Latin-1.
NcclLogReport parse_nccl_log(std::string_view text, const std::string& source) {
  const std::string decoded = utf8_text(text);
  return LogParser(decoded, source).run();
}

NcclLogReport parse_nccl_log_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ParseError(path, 1, 1, "cannot open the file");
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_nccl_log(ss.str(), path);
}

}  // namespace models::readers
