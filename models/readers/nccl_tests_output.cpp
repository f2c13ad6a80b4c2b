#include "models/readers/nccl_tests_output.hpp"
#include "models/readers/nccl_tests_json.hpp"
#include "models/utf8.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

#include "models/parse_error.hpp"
#include "models/readers/log_line.hpp"

namespace models::readers {
namespace {
// nccl-tests' -t (threads) and -g (GPUs per thread) of one process: far below this in practice.
constexpr int64_t kMaxPerProcess = 1024;

enum class Field { Size, Count, Type, Redop, Root, Time, Algbw, Busbw, Wrong, Error, Other };

// The relative rounding a printed algbw may carry and still give a cputime row's time
// (NcclTestsRun::cputime): half a unit of its last decimal, at most 0.5 %.
constexpr double kCputimeAlgbwRounding = 0.005;

struct Column {
  Field field;
  int group;  // 0 out-of-place, 1 in-place
  std::string name;
};

struct Token {
  std::string_view text;
  int line;
  int col;
};

std::string_view trim_blanks(std::string_view s) {
  size_t b = s.find_first_not_of(" \t");
  if (b == std::string_view::npos) return {};
  size_t e = s.find_last_not_of(" \t");
  return s.substr(b, e - b + 1);
}

// Splits on blanks, remembering each token's 1-based column (col_base = column of s[0]).
void tokenize(std::string_view s, int line, int col_base, std::vector<Token>& out) {
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
    size_t j = i;
    while (j < s.size() && s[j] != ' ' && s[j] != '\t') ++j;
    if (j > i) out.push_back({s.substr(i, j - i), line, col_base + static_cast<int>(i)});
    i = j;
  }
}

std::vector<std::string_view> blank_words(std::string_view s) {
  std::vector<Token> t;
  tokenize(s, 0, 1, t);
  std::vector<std::string_view> w;
  for (auto& x : t) w.push_back(x.text);
  return w;
}

bool parse_int(std::string_view s, int64_t& v) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && p == s.data() + s.size();
}

bool parse_double(std::string_view s, double& v) {
  std::string tmp(s);
  char* end = nullptr;
  v = std::strtod(tmp.c_str(), &end);
  return !tmp.empty() && end == tmp.c_str() + tmp.size() && std::isfinite(v);
}

// A launcher's per-rank label in front of every line: Open MPI's --tag-output ("[1,0]<stdout>:")
// and Slurm's srun --label ("0: "). Rows, comments and NCCL lines never start so.
std::string_view without_rank_label(std::string_view s) {
  if (!s.empty() && s.front() == '[') {
    const size_t tag = s.find("]<std");
    const size_t end = tag == std::string_view::npos ? tag : s.find(">:", tag);
    if (end != std::string_view::npos && s.find_first_not_of("0123456789,", 1) == tag) return s.substr(end + 2);
  }
  size_t i = 0;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
  if (i > 0 && i + 1 < s.size() && s[i] == ':' && s[i + 1] == ' ') return s.substr(i + 2);
  return s;
}

class Parser {
 public:
  Parser(std::string_view text, std::string source) : text_(text), source_(std::move(source)) {}

  std::vector<NcclTestsRun> run() {
    if (text_.substr(0, 3) == "\xEF\xBB\xBF") text_.remove_prefix(3);  // a UTF-8 byte-order mark
    check_text(text_, source_);
    auto lines = split_lines(text_);
    // The last line with text: a file cut off mid-row may still end in blank lines.
    size_t last = lines.size();
    while (last > 0 && trim_blanks(lines[last - 1]).empty()) --last;
    for (size_t i = 0; i < lines.size(); ++i) line(lines[i], static_cast<int>(i) + 1, i + 1 >= last);
    if (!pending_.empty())
      throw ParseError(source_, pending_.back().line, pending_.back().col,
                       "the file ends in the middle of a result row (" + std::to_string(pending_.size()) + " of " +
                           std::to_string(columns_.size()) + " values): truncated output?");
    for (auto& r : runs_) finish(r);
    return std::move(runs_);
  }

 private:
  NcclTestsRun& current() {
    if (runs_.empty()) new_run();
    return runs_.back();
  }
  void new_run() {
    runs_.emplace_back();
    runs_.back().source = source_;
    columns_.clear();
    in_table_ = false;
    pids_.clear();
  }
  void finish(NcclTestsRun& r) {
    // Without Rank lines, nThread x nGpus is one process's count: the run's where one process
    // drove several GPUs (-t or -g above 1, the usual case of such a table), unknown where it
    // drove one (launched as several processes by mpirun or torchrun, each printing the same
    // header; a run of one GPU would cross no link). Without even that header (a table copied
    // from a web page) the count is unknown, not 1.
    if (r.ranks == 0 && r.header && r.nthreads * r.ngpus > 1) r.ranks = r.nthreads * r.ngpus;
  }

  void line(std::string_view raw, int no, bool last) {
    std::string_view data = without_rank_label(raw);
    int data_col = 1;
    const auto ll = split_nccl_line(data, no);
    if (ll) data = ll->before;  // cut NCCL messages out
    std::string_view t = trim_blanks(data);
    if (t.empty()) return;
    data_col = static_cast<int>(t.data() - raw.data()) + 1;
    if (t.front() == '#') {
      comment(t, no, data_col);
      return;
    }
    // nccl-tests' own error lines (common.h: "HOST: Test NCCL failure FILE:LINE '...'", "Test CUDA
    // failure", " .. HOST pid N: Test failure FILE:LINE"): the run crashed; its rows are not a result.
    if (t.find("Test NCCL failure") != std::string_view::npos ||
        t.find("Test CUDA failure") != std::string_view::npos || t.find(": Test failure ") != std::string_view::npos)
      throw ParseError(source_, no, data_col,
                       "nccl-tests failed here: '" + std::string(t.substr(0, 120)) +
                           "' (expected the output of a run that completed; the NCCL WARN lines before it, or a rerun "
                           "with NCCL_DEBUG=INFO, say why it failed)");
    if (!in_table_) return;  // program output before the table (MPI banners...) is not ours
    if (pending_.empty()) {
      // A row starts with its size; anything else inside a table (a crash message, a signal
      // report, mpirun's abort notice) means the run stopped while printing it.
      int64_t v = 0;
      const std::string_view first = t.substr(0, t.find_first_of(" \t"));
      if (!parse_int(first, v))
        throw ParseError(source_, no, data_col,
                         "the result table stops here: '" + std::string(t.substr(0, 80)) +
                             "' is not a result row (expected rows starting with the size in bytes until the "
                             "table's '#' footer; did the run crash or get interrupted?)");
    }
    tokenize(t, no, data_col, pending_);
    bool took = false;
    while (pending_.size() >= columns_.size()) {
      take_row();
      took = true;
    }
    // A row goes on past its line only where an NCCL message cut into it (nccl-tests prints a
    // row in pieces, and NCCL's INFO lines share its stdout); a row ending with its line has all
    // its values or is wrong here, not at the next row.
    if (pending_.empty()) return;
    const std::string of = " where the table has " + std::to_string(columns_.size()) + " columns";
    // Values left after a row ended on this line are one too many, NCCL message or not: nccl-tests
    // starts every row on a line of its own.
    if (took && pending_.front().line == no)
      throw ParseError(source_, no, pending_.front().col,
                       "'" + std::string(pending_.front().text) + "' is a value too many: this row has " +
                           std::to_string(columns_.size() + pending_.size()) + " values" + of);
    if (ll) return;
    if (last) return;  // a file cut off mid-row: its end says so
    throw ParseError(
        source_, pending_.front().line, pending_.front().col,
        "result row cut short: " + std::to_string(pending_.size()) + " values" + of + " (a value missing?)");
  }

  void end_table(int no, int col) {
    if (!pending_.empty())
      throw ParseError(source_, pending_.front().line, pending_.front().col,
                       "result row cut short: " + std::to_string(pending_.size()) + " of " +
                           std::to_string(columns_.size()) + " values before the next '#' line at line " +
                           std::to_string(no));
    in_table_ = false;
  }

  void comment(std::string_view t, int no, int col) {
    std::string_view body = trim_blanks(t.substr(1));
    auto w = blank_words(body);
    if (in_table_ && !w.empty() && w[0] != "size" && !(w[0].size() > 0 && w[0][0] == '(')) end_table(no, col);
    if (body.rfind("nccl-tests version", 0) == 0) {
      if (!current().rows.empty() || !current().op.empty()) new_run();
      current().version = std::string(trim_blanks(body.substr(18)));
      return;
    }
    if (body.rfind("Collective test starting:", 0) == 0) {
      auto& r = current();
      if (!r.rows.empty() || !r.op.empty()) new_run();
      std::string op(trim_blanks(body.substr(25)));
      if (op.size() > 5 && op.compare(op.size() - 5, 5, "_perf") == 0) op.resize(op.size() - 5);
      runs_.back().op = op;
      return;
    }
    if (!w.empty() && w[0] == "nThread") {
      if (!current().rows.empty()) new_run();
      auto& r = current();
      // Counts outside what nccl-tests can run are refused here, before they overflow the rank
      // count (nThread x nGpus) or an int.
      auto count = [&](size_t i, int64_t v, int64_t lo, int64_t hi) {
        if (v < lo || v > hi)
          throw ParseError(source_, no, col + static_cast<int>(w[i + 1].data() - t.data()),
                           std::string(w[i]) + " " + std::string(w[i + 1]) + " is out of range (expected " +
                               std::to_string(lo) + ".." + std::to_string(hi) + ")");
        return static_cast<int>(v);
      };
      for (size_t i = 0; i + 1 < w.size(); ++i) {
        int64_t v = 0;
        if (w[i] == "nThread" && parse_int(w[i + 1], v))
          r.nthreads = count(i, v, 1, kMaxPerProcess), r.header = true;
        else if (w[i] == "nGpus" && parse_int(w[i + 1], v))
          r.ngpus = count(i, v, 1, kMaxPerProcess);
        else if (w[i] == "minBytes" && parse_int(w[i + 1], v))
          r.min_bytes = v;
        else if (w[i] == "maxBytes" && parse_int(w[i + 1], v))
          r.max_bytes = v;
        else if (w[i] == "iters:" && (i == 0 || (w[i - 1] != "warmup" && w[i - 1] != "agg")) && parse_int(w[i + 1], v))
          r.iters = count(i, v, 0, 1 << 30);
      }
      return;
    }
    if (!w.empty() && w[0] == "Rank") {
      auto& r = current();
      // One line per rank, but a log cut to a few of them ("#  Rank 1439 ...", the last of 1,440)
      // still says how many ran: the highest rank's index.
      ++r.ranks;
      if (int64_t index = 0; w.size() > 1 && parse_int(w[1], index) && index >= 0 && index < (1 << 24))
        r.ranks = std::max(r.ranks, static_cast<int>(index) + 1);
      for (size_t i = 0; i + 1 < w.size(); ++i) {
        if (w[i] == "Pid") pids_.insert(std::string(w[i + 1]));
        if (w[i] == "on") {
          std::string h(w[i + 1]);
          bool seen = false;
          for (auto& x : r.hosts) seen = seen || x == h;
          if (!seen) r.hosts.push_back(h);
        }
      }
      // "... device  0 [0000:00:06] NVIDIA H200": the GPU model is the rest of the line after the bus id.
      for (size_t i = 0; i + 1 < w.size(); ++i)
        if (w[i].size() > 1 && w[i].front() == '[' && w[i].back() == ']') {
          std::string model;
          for (size_t k = i + 1; k < w.size(); ++k) {
            if (!model.empty()) model += ' ';
            model += w[k];
          }
          bool seen = model.empty();
          for (auto& x : r.gpus) seen = seen || x == model;
          if (!seen) r.gpus.push_back(model);
          break;
        }
      r.processes = static_cast<int>(pids_.size());
      return;
    }
    if (body.rfind("Avg bus bandwidth", 0) == 0) {
      size_t c = body.find(':');
      double v = 0;
      if (c == std::string_view::npos || !parse_double(trim_blanks(body.substr(c + 1)), v))
        throw ParseError(source_, no, col,
                         "cannot read the average bus bandwidth (expected '# Avg bus bandwidth : <GB/s>')");
      current().avg_busbw_gbs = v;
      return;
    }
    bool has_size = false, has_busbw = false;
    for (auto x : w) {
      has_size = has_size || x == "size";
      has_busbw = has_busbw || x == "busbw";
    }
    if (has_size && has_busbw) header(w, no, col);
  }

  void header(const std::vector<std::string_view>& w, int no, int col) {
    auto& r = current();
    if (!r.rows.empty()) new_run();
    columns_.clear();
    int group = 0;
    bool seen_time = false, cputime = false;
    for (auto x : w) {
      Field f = Field::Other;
      if (x == "size")
        f = Field::Size;
      else if (x == "count")
        f = Field::Count;
      else if (x == "type")
        f = Field::Type;
      else if (x == "redop")
        f = Field::Redop;
      else if (x == "root")
        f = Field::Root;
      else if (x == "time" || x == "cputime") {
        f = Field::Time;
        if (seen_time) ++group;
        seen_time = true;
        cputime = cputime || x == "cputime";
      } else if (x == "timestamp") {
        // -R 1: "%Y-%m-%d %H:%M:%S" after the in-place group, two values in a row.
        columns_.push_back({Field::Other, group, std::string(x)});
      } else if (x == "algbw")
        f = Field::Algbw;
      else if (x == "busbw")
        f = Field::Busbw;
      else if (x == "#wrong" || x == "wrong")
        f = Field::Wrong;
      else if (x == "error")
        f = Field::Error;
      columns_.push_back({f, group, std::string(x)});
    }
    bool ok_size = false, ok_time = false;
    for (auto& c : columns_) {
      ok_size = ok_size || c.field == Field::Size;
      ok_time = ok_time || (c.field == Field::Time && c.group == 0);
    }
    if (!ok_size || !ok_time || group > 1)
      throw ParseError(source_, no, col,
                       "column header not understood (expected: size count type redop [root] "
                       "time algbw busbw #wrong time algbw busbw #wrong)");
    auto& rr = runs_.back();
    rr.columns.clear();
    for (size_t i = 0; i < columns_.size(); ++i)
      if (i == 0 || columns_[i].name != "timestamp" || columns_[i - 1].name != "timestamp")
        rr.columns.push_back(columns_[i].name);
    rr.cputime = cputime;
    in_table_ = true;
  }

  [[noreturn]] void bad(const Token& t, const std::string& what) {
    throw ParseError(source_, t.line, t.col, "'" + std::string(t.text) + "' is not " + what + " (result table column)");
  }

  void take_row() {
    NcclTestsRow row;
    row.line = pending_.front().line;
    NcclTestsResult res[2];
    const Token* algbw[2] = {nullptr, nullptr};
    bool has_ip = false;
    for (size_t i = 0; i < columns_.size(); ++i) {
      const Token& t = pending_[i];
      const Column& c = columns_[i];
      int64_t iv = 0;
      double dv = 0;
      NcclTestsResult& g = res[c.group];
      if (c.group == 1) has_ip = true;
      switch (c.field) {
        case Field::Size:
          if (!parse_int(t.text, iv) || iv < 0) bad(t, "a size in bytes");
          row.size_bytes = iv;
          break;
        case Field::Count:
          if (!parse_int(t.text, iv) || iv < 0) bad(t, "an element count");
          row.count = iv;
          break;
        case Field::Type: row.type = std::string(t.text); break;
        case Field::Redop: row.redop = std::string(t.text); break;
        case Field::Root:
          if (!parse_int(t.text, iv) || iv < -1 || iv > 1 << 30) bad(t, "a root rank");
          row.root = static_cast<int>(iv);
          break;
        case Field::Time:
          if (!parse_double(t.text, dv) || dv < 0) bad(t, "a time in us");
          // Every collective takes some time (a launch at least): 0 is no measurement, and each
          // bandwidth or error computed from it would be infinite.
          if (dv == 0)
            throw ParseError(source_, t.line, t.col,
                             "time '" + std::string(t.text) +
                                 "' is not a measurement (expected a time in us above 0, as nccl-tests measures it)");
          g.time_us = dv;
          break;
        case Field::Algbw:
          if (!parse_double(t.text, dv) || dv < 0) bad(t, "a bandwidth in GB/s");
          g.algbw_gbs = dv;
          algbw[c.group] = &t;
          break;
        case Field::Busbw:
          if (!parse_double(t.text, dv) || dv < 0) bad(t, "a bandwidth in GB/s");
          g.busbw_gbs = dv;
          break;
        case Field::Wrong:
          if (t.text == "N/A") break;
          if (!parse_int(t.text, iv) || iv < 0) bad(t, "a count of wrong values (or N/A)");
          g.wrong = iv;
          break;
        case Field::Error:
          if (t.text == "N/A") break;
          if (!parse_double(t.text, dv)) bad(t, "a maximum error");
          g.max_error = dv;
          break;
        case Field::Other: break;
      }
    }
    auto& run = current();
    bool coarse = false;
    if (run.cputime)
      for (int k = 0; k < (has_ip ? 2 : 1); ++k) {
        // The collective's time is size / algbw (NcclTestsRun::cputime), as precise as algbw's print.
        res[k].cpu_time_us = res[k].time_us;
        res[k].time_us = cputime_time_us(row.size_bytes, res[k].algbw_gbs);
        const std::string_view a = algbw[k] ? algbw[k]->text : std::string_view{};
        const size_t dot = a.find('.');
        const double unit = std::pow(10.0, -double(dot == std::string_view::npos ? 0 : a.size() - dot - 1));
        if (res[k].time_us <= 0 || 0.5 * unit > kCputimeAlgbwRounding * res[k].algbw_gbs) coarse = true;
      }
    row.oop = res[0];
    if (has_ip) row.ip = res[1];
    pending_.erase(pending_.begin(), pending_.begin() + static_cast<long>(columns_.size()));
    if (coarse)
      run.coarse_lines.push_back(row.line);
    else
      run.rows.push_back(std::move(row));
  }

  std::string_view text_;
  std::string source_;
  std::vector<NcclTestsRun> runs_;
  std::vector<Column> columns_;
  std::vector<Token> pending_;
  std::set<std::string> pids_;
  bool in_table_ = false;
};

}  // namespace

double cputime_time_us(int64_t size_bytes, double algbw_gbs) {
  // algbw (GB/s) = size / t / 1e9, so t (us) = size / (algbw x 1e3).
  return algbw_gbs > 0 ? double(size_bytes) / (algbw_gbs * 1e3) : 0;
}

std::vector<NcclTestsRun> parse_nccl_tests(std::string_view text, const std::string& source) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && text[first] == '{') return parse_nccl_tests_json(text, source);  // -J output
  const std::string decoded = utf8_text(text);  // another program's output: not-UTF-8 bytes read as Latin-1
  return Parser(decoded, source).run();
}

std::vector<NcclTestsRun> parse_nccl_tests_files(const std::vector<std::string>& paths) {
  std::vector<NcclTestsRun> all;
  for (const auto& p : paths) {
    std::ifstream in(p, std::ios::binary);
    if (!in) throw ParseError(p, 1, 1, "cannot open the file");
    std::stringstream ss;
    ss << in.rdbuf();
    auto runs = parse_nccl_tests(ss.str(), p);
    for (auto& r : runs) all.push_back(std::move(r));
  }
  return all;
}

namespace {
std::vector<std::string> upper_words(std::string_view s) {
  std::vector<std::string> words(1);
  for (char c : s) {
    if (c == ' ' || c == '-') {
      if (!words.back().empty()) words.emplace_back();
    } else {
      words.back() += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    }
  }
  if (words.back().empty()) words.pop_back();
  return words;
}
bool is_memory_size(const std::string& w) {  // "40GB", "80GB"
  return w.size() > 2 && w.compare(w.size() - 2, 2, "GB") == 0 && std::isdigit(static_cast<unsigned char>(w[0]));
}
}  // namespace

bool gpu_product_matches(std::string_view product, std::string_view catalog_name) {
  const auto have = upper_words(product), want = upper_words(catalog_name);
  if (want.empty()) return false;
  bool family = false;
  for (const auto& w : have) family = family || w == want.front();
  if (!family) return false;
  for (const auto& a : want)
    for (const auto& b : have)
      if (is_memory_size(a) && is_memory_size(b) && a != b) return false;
  return true;
}

}  // namespace models::readers
