// A user's input file, read only when it is a regular file (input_file.hpp).
#include "scenarios/load/input_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

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

}  // namespace

void check_input_file(const std::string& path, const SourcePos& at, const std::string& what,
                      const std::string& expected) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) refuse(path, at, what, std::strerror(errno), expected);
  if (!S_ISREG(st.st_mode)) refuse(path, at, what, not_a_file(st.st_mode), expected);
}

std::string read_input_file(const std::string& path, const SourcePos& at, const std::string& what,
                            const std::string& expected) {
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
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) {
      text.append(buf, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      ::close(fd);
      refuse(path, at, what, std::strerror(err), expected);
    }
    break;
  }
  ::close(fd);
  return text;
}

}  // namespace scenarios
