// A user's input file, read only when it is a regular file (input_file.hpp).
#include "scenarios/load/input_file.hpp"
#include "scenarios/load/held_pipe.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <poll.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>

namespace scenarios {
namespace {

// What a path is when it is not a regular file, as the message says it.
const char* not_a_file(mode_t mode) {
  if (S_ISDIR(mode)) return "it is a folder";
  if (S_ISFIFO(mode)) return "it is a named pipe";
  if (S_ISSOCK(mode)) return "it is a socket";
  if (S_ISCHR(mode)) return "it is a character device";
  if (S_ISBLK(mode)) return "it is a block device";
  return "it is not a regular file";
}

[[noreturn]] void refuse(const std::string& path, const SourcePos& at, const std::string& what,
                         const std::string& reason, const std::string& expected) {
  throw UserError(at, "cannot read " + what + " '" + path + "': " + reason + " (expected " + expected + ")");
}

// The descriptor /dev/stdin, /dev/fd/N, /proc/self/fd/N names, if it is one.
std::optional<int> held_descriptor(const std::string& p) {
  if (p == "/dev/stdin") return 0;
  for (const std::string prefix : {"/dev/fd/", "/proc/self/fd/"}) {
    if (p.rfind(prefix, 0) != 0 || p.size() == prefix.size() || p.size() > prefix.size() + 9) continue;
    int n = 0;
    for (size_t i = prefix.size(); i < p.size(); ++i) {
      if (p[i] < '0' || p[i] > '9') return std::nullopt;
      n = n * 10 + (p[i] - '0');
    }
    return n;
  }
  return std::nullopt;
}

// Reads `fd` to its end (waiting while a pipe is empty but open); false with errno set on error.
bool read_all(int fd, std::string& text) {
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) {
      text.append(buf, static_cast<size_t>(n));
      continue;
    }
    if (n == 0) return true;
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) {
      pollfd p{fd, POLLIN, 0};
      ::poll(&p, 1, -1);
      continue;
    }
    return false;
  }
}

// A held pipe's text, read once per process (see input_file.hpp).
std::string read_held_pipe(int fd, const std::string& path, const SourcePos& at, const std::string& what,
                           const std::string& expected) {
  static std::mutex mutex;
  static std::map<std::string, std::string> texts;
  std::lock_guard<std::mutex> lock(mutex);
  if (auto it = texts.find(path); it != texts.end()) return it->second;
  std::string text;
  if (!read_all(fd, text)) refuse(path, at, what, std::strerror(errno), expected);
  return texts.emplace(path, std::move(text)).first->second;
}

}  // namespace

bool is_held_descriptor(const std::string& path) { return held_descriptor(path).has_value(); }

void check_input_file(const std::string& path, const SourcePos& at, const std::string& what,
                      const std::string& expected) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) refuse(path, at, what, std::strerror(errno), expected);
  if (!S_ISREG(st.st_mode)) refuse(path, at, what, not_a_file(st.st_mode), expected);
}

std::string read_input_file(const std::string& path, const SourcePos& at, const std::string& what,
                            const std::string& expected) {
  if (const auto fd = held_descriptor(path)) {
    struct stat st {};
    if (::fstat(*fd, &st) != 0) refuse(path, at, what, std::strerror(errno), expected);
    if (S_ISFIFO(st.st_mode)) return read_held_pipe(*fd, path, at, what, expected);
  }
  check_input_file(path, at, what, expected);
  // Opened without blocking, then checked again: the path may have changed since stat().
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) refuse(path, at, what, std::strerror(errno), expected);
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    refuse(path, at, what, not_a_file(st.st_mode), expected);
  }
  std::string text;
  text.reserve(static_cast<size_t>(st.st_size));
  if (!read_all(fd, text)) {
    const int err = errno;
    ::close(fd);
    refuse(path, at, what, std::strerror(err), expected);
  }
  ::close(fd);
  return text;
}

}  // namespace scenarios
