// LogParser::message and its two helpers (the tuning table, aws-ofi-nccl's NET/OFI lines): what
// each NCCL INFO message the parser interprets means, dispatched on its first words and only then
// matched with a regex (nccl_log_parser.hpp). Kept apart from the line loop in nccl_log.cpp: this
// is the part that grows with every message NCCL adds.
#include <string>
#include <string_view>
#include <tuple>

#include "models/readers/log_line.hpp"
#include "models/readers/nccl_log.hpp"
#include "models/readers/nccl_log_parser.hpp"

namespace models::readers::nccl_log_detail {

void LogParser::message(const LogLine& l) {
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
      if (!std::regex_match(text, m, r.transport)) bad(l, "'Channel NN/N : R[D] -> R[D] [send|receive] via TRANSPORT'");
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
    if (!std::regex_search(text, m, r.bootstrap)) bad(l, "'Bootstrap timings total T (create T, send T, recv T, ...)'");
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

void LogParser::tuning_row(std::string_view t) {
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

void LogParser::ofi(const LogLine& l, const std::string& text) {
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

}  // namespace models::readers::nccl_log_detail
