// Sweep rows to standard output or a locked file, row by row (see sweep_output.hpp).
#include "scenarios/cli/sweep/sweep_output.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "scenarios/cli/output/output_files.hpp"

namespace scenarios {

namespace {
// What a sweep stopped by SIGINT, SIGTERM or SIGHUP (Ctrl-C, a scheduler's time limit, a closed
// terminal) says on standard error: where its rows are and how to go on from them. The text is
// prepared when the output starts, so the handler only writes bytes and a count (write(2) is
// async-signal-safe; nothing is allocated), then dies of the same signal, as it would have.
struct StopNote {
  char before[2048] = {};  // up to the row count
  char after[2048] = {};   // after it
  volatile sig_atomic_t rows = 0;
  bool armed = false;
  struct sigaction previous[3] = {};
};
StopNote g_stop;
constexpr int kStopSignals[3] = {SIGINT, SIGTERM, SIGHUP};

void write_all(const char* text) {
  for (size_t left = std::strlen(text); left > 0;) {
    const ssize_t n = ::write(STDERR_FILENO, text, left);
    if (n <= 0) return;
    text += n, left -= static_cast<size_t>(n);
  }
}

extern "C" void on_stop_signal(int sig) {
  char digits[24];
  int i = sizeof digits - 1;
  digits[i] = '\0';
  long rows = g_stop.rows;
  do digits[--i] = static_cast<char>('0' + rows % 10), rows /= 10;
  while (rows > 0 && i > 0);
  write_all(g_stop.before);
  write_all(digits + i);
  write_all(g_stop.after);
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

void arm_stop_note(const std::string& before, const std::string& after, long rows) {
  std::snprintf(g_stop.before, sizeof g_stop.before, "%s", before.c_str());
  std::snprintf(g_stop.after, sizeof g_stop.after, "%s", after.c_str());
  g_stop.rows = static_cast<sig_atomic_t>(rows);
  if (g_stop.armed) return;
  struct sigaction act {};
  act.sa_handler = on_stop_signal;
  sigemptyset(&act.sa_mask);
  for (int k = 0; k < 3; ++k) ::sigaction(kStopSignals[k], &act, &g_stop.previous[k]);
  g_stop.armed = true;
}

void disarm_stop_note() {
  if (!g_stop.armed) return;
  for (int k = 0; k < 3; ++k) ::sigaction(kStopSignals[k], &g_stop.previous[k], nullptr);
  g_stop.armed = false;
}
}  // namespace

std::vector<std::string> split_csv_line(const std::string& line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"')
        fields.back() += '"', ++i;
      else if (c == '"')
        quoted = false;
      else
        fields.back() += c;
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.emplace_back();
    } else {
      fields.back() += c;
    }
  }
  return fields;
}

size_t csv_record_end(const std::string& text, size_t from) {
  bool quoted = false;
  for (size_t i = from; i < text.size(); ++i) {
    if (text[i] == '"')
      quoted = !quoted;  // a doubled quote inside a cell toggles twice
    else if (text[i] == '\n' && !quoted)
      return i;
  }
  return std::string::npos;
}

SweepOutput::SweepOutput(const std::string& path, RowFormat format)
    : path_(path), name_(path.empty() ? "standard output" : path), format_(format) {
  if (path.empty()) return;
  const InPlaceOutput target = open_output_in_place(path);
  fd_ = target.fd;
  owned_ = target.owned;
  regular_ = target.regular;
  if (regular_) {  // the file the rows go to, symlinks followed (a temporary may replace it)
    std::error_code ec;
    const std::filesystem::path real = std::filesystem::canonical(path, ec);
    target_ = ec ? path : real.string();
  }
  if (!owned_ && fd_ == STDOUT_FILENO) fd_ = -1;  // /dev/stdout: through stdio, in order with the rest
  if (regular_ && ::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    ::close(fd_);
    fd_ = -1;
    if (err == EWOULDBLOCK)
      throw UserError({path, 1, 1},
                      "another commsim sweep is writing this file (expected one file per shard, e.g. --csv "
                      "shard-$INDEX.csv, then cat them in shard order)");
    throw UserError({path, 1, 1}, std::string("cannot lock: ") + std::strerror(err) + " (expected a lockable file)");
  }
}

SweepOutput::~SweepOutput() {
  disarm_stop_note();
  if (owned_ && fd_ >= 0) ::close(fd_);  // releases the lock
  if (!temp_.empty()) ::unlink(temp_.c_str());  // not committed: the old file stays as it was
  if (target_fd_ >= 0) ::close(target_fd_);
}

// The old file stays; the rows go to a locked temporary beside it, with its permissions.
namespace {
// Lines in the file open at `fd` (a last line without its newline counts), read from its start.
size_t count_lines(int fd) {
  size_t lines = 0;
  char last = '\n';
  char buf[1 << 16];
  ::lseek(fd, 0, SEEK_SET);
  for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) {
    lines += static_cast<size_t>(std::count(buf, buf + n, '\n'));
    last = buf[n - 1];
  }
  return lines + (last != '\n' ? 1 : 0);
}
}  // namespace

void SweepOutput::write_beside() {
  struct stat st {};
  if (::fstat(fd_, &st) != 0)
    throw UserError({name_, 1, 1}, std::string("cannot read: ") + std::strerror(errno) + " (expected a readable file)");
  namespace fs = std::filesystem;
  const fs::path final_path(target_);
  fs::path dir = final_path.parent_path();
  if (dir.empty()) dir = ".";
  std::string temp = (dir / ("." + final_path.filename().string() + ".commsim-XXXXXX")).string();
  const int fd = ::mkostemp(temp.data(), O_CLOEXEC);
  if (fd < 0)
    throw UserError({name_, 1, 1}, std::string("cannot write beside it: ") + std::strerror(errno) +
                                       " (expected a folder this user may write in: the rows replace the file "
                                       "only when the sweep is done)");
  if (::geteuid() == 0) (void)::fchown(fd, st.st_uid, st.st_gid);
  (void)::fchmod(fd, st.st_mode & 07777);
  (void)::flock(fd, LOCK_EX | LOCK_NB);
  target_fd_ = fd_;
  fd_ = fd;
  temp_ = temp;
}

void SweepOutput::commit() {
  disarm_stop_note();
  if (temp_.empty()) return;
  if (::fsync(fd_) != 0 || ::rename(temp_.c_str(), target_.c_str()) != 0)
    throw UserError({name_, 1, 1}, std::string("cannot replace: ") + std::strerror(errno) +
                                       " (expected a folder this user may write in; the old file is unchanged)");
  temp_.clear();
  // The user named the file, so it is replaced; what it held is said, since those rows are gone.
  if (replaced_lines_ > 0)
    std::fprintf(stderr,
                 "sweep: replaced %s, which held %zu line%s written before (--resume keeps a file's rows and runs "
                 "only the missing points)\n",
                 name_.c_str(), replaced_lines_, replaced_lines_ == 1 ? "" : "s");
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(target_).parent_path();
  const int d = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (d >= 0) {
    (void)::fsync(d);
    ::close(d);
  }
}

std::set<size_t> SweepOutput::start(const std::string& header, bool resume,
                                    const std::function<size_t(int, const Json&)>& check_row) {
  std::set<size_t> present;
  if (!resume || !regular_) {
    if (resume)
      throw UserError({name_, 1, 1},
                      "--resume needs a regular file to read back (expected --csv FILE or --jsonl FILE)");
    struct stat st {};
    if (regular_ && ::fstat(fd_, &st) == 0 && st.st_size > 0) {
      // Rows of another sweep (another header: other --vary keys) are another experiment's
      // results, not an earlier run of this one: refused, never replaced.
      if (!header.empty()) {
        std::string first(header.size(), '\0');
        const ssize_t n = ::pread(fd_, first.data(), first.size(), 0);
        if (n >= 0 && (static_cast<size_t>(n) != first.size() || first != header))
          throw UserError({name_, 1, 1},
                          "holds rows of another sweep (its header differs from this sweep's columns: other --vary "
                          "keys or another format); left as it is (expected a new file name, or the file removed "
                          "first)");
      }
      replaced_lines_ = count_lines(fd_);
      write_beside();
    }
    if (!header.empty()) write(header);
    arm_note(0);
    return present;
  }
  // Read what an earlier run of the same sweep wrote.
  std::string text;
  char buf[1 << 16];
  ::lseek(fd_, 0, SEEK_SET);
  for (ssize_t n; (n = ::read(fd_, buf, sizeof buf)) != 0;) {
    if (n < 0)
      throw UserError({name_, 1, 1},
                      std::string("cannot read: ") + std::strerror(errno) + " (expected a file this user may read)");
    text.append(buf, static_cast<size_t>(n));
  }
  if (text.empty()) {
    if (!header.empty()) write(header);
    arm_note(0);
    return present;
  }
  if (text.compare(0, header.size(), header) != 0)
    throw UserError({name_, 1, 1},
                    header.empty() ? "--resume: the file starts with a line this sweep does not write (expected the "
                                     "rows of the same sweep without a header, as shards after the first write them)"
                                   : "--resume: the file's header differs from this sweep's columns (expected a file "
                                     "written by the same sweep: same --vary keys)");
  size_t pos = header.size();
  int line_no = header.empty() ? 1 : 2;
  while (pos < text.size()) {
    // A CSV row ends at the first line break outside quotes (a quoted cell may hold one: a name
    // with a line break); a JSON line escapes its line breaks.
    const size_t nl = format_ == RowFormat::Csv ? csv_record_end(text, pos) : text.find('\n', pos);
    if (nl == std::string::npos) {  // cut short by a kill: drop it, the point runs again
      if (::ftruncate(fd_, static_cast<off_t>(pos)) != 0)
        throw UserError({name_, line_no, 1}, std::string("cannot drop the incomplete last row: ") +
                                                 std::strerror(errno) + " (expected a file this user may write)");
      break;
    }
    const std::string line = text.substr(pos, nl - pos);
    Json row;
    if (format_ == RowFormat::JsonLines) {
      row = Json::parse(line, nullptr, false);
      if (!row.is_object())
        throw UserError({name_, line_no, 1}, "--resume: not a JSON row (expected one object per line)");
    } else {
      const auto fields = split_csv_line(line);
      row = Json::array();
      for (const auto& f : fields) row.push_back(f);
    }
    present.insert(check_row(line_no, row));
    line_no += 1 + static_cast<int>(std::count(line.begin(), line.end(), '\n'));
    pos = nl + 1;
  }
  ::lseek(fd_, 0, SEEK_END);
  arm_note(present.size());
  return present;
}

void SweepOutput::arm_note(size_t rows_present) {
  counting_ = regular_;
  if (!regular_) return;  // rows on a terminal or a pipe: whoever reads them has them
  if (temp_.empty())
    arm_stop_note("sweep: stopped by a signal; " + name_ + " holds ",
                  " rows of this sweep, each whole (the same command with --resume runs only the missing points)\n",
                  static_cast<long>(rows_present));
  else
    arm_stop_note("sweep: stopped by a signal; " + name_ + " is unchanged, and the ",
                  " rows this run wrote are in " + temp_ + " (to keep them: mv '" + temp_ + "' '" + name_ +
                      "', then the same command with --resume runs only the missing points)\n",
                  0);
}

void SweepOutput::write(const std::string& line) {
  if (fd_ < 0) {
    std::fwrite(line.data(), 1, line.size(), stdout);
    std::fflush(stdout);
    return;
  }
  write_output_bytes(name_, fd_, regular_, line);
  if (counting_) g_stop.rows = g_stop.rows + 1;
}

}  // namespace scenarios
