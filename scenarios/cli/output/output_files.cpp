// Output files: staged in full, devices and pipes written through, regular files renamed into
// place together or not at all (output_files.hpp).
#include "scenarios/cli/output/output_files.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>
#include <set>

#include "scenarios/load/loader.hpp"

namespace scenarios {
namespace {

namespace fs = std::filesystem;

[[noreturn]] void cannot_write(const std::string& shown, const std::string& reason, const std::string& expected) {
  throw UserError({shown, 1, 1}, "cannot write: " + reason + " (expected " + expected + ")");
}

// /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N, /proc/<this pid>/fd/N: a descriptor this
// process already holds. Its offset and append mode belong to whoever opened it (the shell's
// `>>`), so the bytes go to that descriptor, not to a file opened again by name.
std::optional<int> descriptor_alias(const std::string& p) {
  if (p == "/dev/stdout") return 1;
  if (p == "/dev/stderr") return 2;
  for (const std::string& prefix :
       {std::string("/dev/fd/"), std::string("/proc/self/fd/"), std::string("/proc/thread-self/fd/"),
        "/proc/" + std::to_string(::getpid()) + "/fd/"}) {
    if (p.rfind(prefix, 0) != 0 || p.size() == prefix.size() || p.size() > prefix.size() + 9) continue;
    int n = 0;
    bool digits = true;
    for (size_t i = prefix.size(); i < p.size(); ++i) {
      if (p[i] < '0' || p[i] > '9') digits = false;
      n = n * 10 + (p[i] - '0');
    }
    if (digits) return n;
  }
  return std::nullopt;
}

}  // namespace

// Named, not file-local: OutputSet::Entry, declared in the header, holds a Resolved.
namespace output_target {
enum class Kind { kReplace, kStream, kDescriptor };

struct Resolved {
  Kind kind = Kind::kReplace;
  std::string path;  // where the bytes go: the symlink chain followed
  int descriptor = -1;
  bool existed = false;  // kReplace: a regular file is there now
  struct stat st {};
};
}  // namespace output_target
using output_target::Kind;
using output_target::Resolved;

namespace {

std::string read_link(const std::string& shown, const std::string& p) {
  std::vector<char> buf(256);
  for (;;) {
    const ssize_t n = ::readlink(p.c_str(), buf.data(), buf.size());
    if (n < 0) cannot_write(shown, std::strerror(errno), "a symlink this user can read");
    if (static_cast<size_t>(n) < buf.size()) return std::string(buf.data(), static_cast<size_t>(n));
    buf.resize(buf.size() * 2);
  }
}

// Follows `shown` through symlinks one hop at a time, so a dangling link's target is created and
// the link itself is never replaced.
Resolved resolve(const std::string& shown) {
  Resolved r;
  std::string p = shown;
  for (int hop = 0; hop < 40; ++hop) {
    if (auto fd = descriptor_alias(p)) {
      r.kind = Kind::kDescriptor;
      r.descriptor = *fd;
      r.path = p;
      return r;
    }
    struct stat st {};
    if (::lstat(p.c_str(), &st) != 0) {
      if (errno != ENOENT) cannot_write(shown, std::strerror(errno), "a path this user can reach");
      r.path = p;  // a new file
      return r;
    }
    if (S_ISLNK(st.st_mode)) {
      const fs::path target(read_link(shown, p));
      p = target.is_absolute() ? target.string() : (fs::path(p).parent_path() / target).string();
      continue;
    }
    r.path = p;
    if (S_ISREG(st.st_mode)) {
      r.existed = true;
      r.st = st;
      return r;
    }
    if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) {
      r.kind = Kind::kStream;
      r.st = st;
      return r;
    }
    if (S_ISDIR(st.st_mode)) cannot_write(shown, "it is a folder", "a file name");
    cannot_write(shown, S_ISSOCK(st.st_mode) ? "it is a socket" : "it is a block device",
                 "a file, a pipe or a character device");
  }
  cannot_write(shown, "too many levels of symbolic links", "a symlink chain that ends");
}

struct FileKey {
  dev_t dev;
  ino_t ino;
  bool operator<(const FileKey& o) const { return dev != o.dev ? dev < o.dev : ino < o.ino; }
  bool operator==(const FileKey& o) const { return dev == o.dev && ino == o.ino; }
};

// The file an output would change, when it exists; nullopt for a new file and for a character
// device (two outputs to /dev/null are fine, and no input is a device).
std::optional<FileKey> existing_key(const Resolved& r) {
  struct stat st {};
  if (r.kind == Kind::kDescriptor) {
    if (::fstat(r.descriptor, &st) != 0 || S_ISCHR(st.st_mode)) return std::nullopt;
    return FileKey{st.st_dev, st.st_ino};
  }
  if (r.kind == Kind::kStream && S_ISCHR(r.st.st_mode)) return std::nullopt;
  if (r.kind == Kind::kReplace && !r.existed) return std::nullopt;
  return FileKey{r.st.st_dev, r.st.st_ino};
}

std::string canonical_new_path(const std::string& p) {
  std::error_code ec;
  const fs::path c = fs::weakly_canonical(fs::absolute(p, ec), ec);
  return ec ? fs::path(p).lexically_normal().string() : c.string();
}

// Writes all of `content` to `fd`, waiting when a pipe is full (a descriptor may be non-blocking).
bool write_all(int fd, const std::string& content, int& err) {
  size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n > 0) {
      done += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      pollfd p{fd, POLLOUT, 0};
      ::poll(&p, 1, -1);
      continue;
    }
    err = n < 0 ? errno : EIO;
    return false;
  }
  return true;
}

// Takes the lock a sweep holds on the file it writes (flock, as sweep_output.cpp takes it): an
// existing file another commsim is writing is refused (its rows are never replaced under it), and
// no sweep can start on it while it is staged and renamed. Held from stage() to the end of commit().
int lock_existing(const std::string& shown, const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) return -1;  // unreadable: nobody's lock to honour that this user could see
  if (::flock(fd, LOCK_EX | LOCK_NB) == 0) return fd;
  const int err = errno;
  ::close(fd);
  if (err == EWOULDBLOCK)
    cannot_write(shown, "another commsim (a sweep) is writing this file and holds its lock",
                 "a file no running commsim writes: wait for it to finish, or choose another name");
  return -1;  // a file system without locks: nobody else's lock either
}

mode_t new_file_mode() {
  const mode_t mask = ::umask(0);  // reading the umask means setting it: put it back at once
  ::umask(mask);
  return 0666 & ~mask;
}

}  // namespace

void refuse_outputs_over_inputs(const std::vector<OutputPath>& outputs, const std::vector<std::string>& inputs) {
  std::vector<std::pair<FileKey, std::string>> input_keys;
  for (const auto& in : inputs) {
    struct stat st {};
    if (!in.empty() && ::stat(in.c_str(), &st) == 0) input_keys.push_back({{st.st_dev, st.st_ino}, in});
  }
  std::vector<std::pair<std::string, std::string>> seen_new;  // canonical path -> option
  std::vector<std::pair<FileKey, std::string>> seen_existing;
  for (const auto& out : outputs) {
    if (out.path.empty()) continue;
    const Resolved r = resolve(out.path);
    const auto key = existing_key(r);
    if (key) {
      for (const auto& [k, in] : input_keys)
        if (k == *key)
          throw UserError({out.path, 1, 1},
                          out.option + ": '" + out.path + "' " +
                              (in == out.path ? "is an input" : "is the same file as the input '" + in + "'") +
                              " of this command; writing it would destroy it (expected an output path that is "
                              "not one of the inputs)");
    }
    if (r.kind != Kind::kReplace) continue;  // devices and pipes may take several outputs
    std::string other;
    if (key) {
      for (const auto& [k, opt] : seen_existing)
        if (k == *key) other = opt;
      seen_existing.push_back({*key, out.option});
    } else {
      const std::string c = canonical_new_path(r.path);
      for (const auto& [p, opt] : seen_new)
        if (p == c) other = opt;
      seen_new.push_back({c, out.option});
    }
    if (!other.empty())
      throw UserError({out.path, 1, 1}, out.option + ": '" + out.path + "' is also the file of " + other +
                                            " (expected a different path for each output)");
  }
}

struct OutputSet::Entry {
  std::string shown, content;
  Resolved target;
  int lock_fd = -1;    // the existing file, locked while it is staged and replaced
  std::string temp;    // the staged file (kReplace), until renamed
  std::string backup;  // a hard link to the file it replaced, until the commit is done
  bool renamed = false;
};

OutputSet::OutputSet() = default;
OutputSet::~OutputSet() { discard(); }

void OutputSet::add(std::string path, std::string content) {
  auto e = std::make_unique<Entry>();
  e->shown = std::move(path);
  e->content = std::move(content);
  entries_.push_back(std::move(e));
}

void OutputSet::discard() noexcept {
  // Undo in reverse: each replaced file gets its old inode back; a file that was new goes away.
  for (auto it = entries_.rbegin(); it != entries_.rend(); ++it) {
    Entry& e = **it;
    if (e.renamed) {
      if (!e.backup.empty()) {
        if (::rename(e.backup.c_str(), e.target.path.c_str()) == 0) e.backup.clear();
      } else if (!e.target.existed) {
        ::unlink(e.target.path.c_str());
      }
      e.renamed = false;
    }
    if (!e.temp.empty()) ::unlink(e.temp.c_str());
    e.temp.clear();
    if (!e.backup.empty()) ::unlink(e.backup.c_str());
    e.backup.clear();
    if (e.lock_fd >= 0) ::close(e.lock_fd);
    e.lock_fd = -1;
  }
}

void OutputSet::stage() {
  if (staged_) return;
  for (auto& e : entries_) e->target = resolve(e->shown);
  {  // the commands check this before any work (with option names); this is the backstop
    std::vector<OutputPath> outs;
    for (auto& e : entries_) outs.push_back({"output", e->shown});
    refuse_outputs_over_inputs(outs, {});
  }
  try {
    // 1. Every regular file staged in full beside its target (same folder: rename is atomic).
    for (auto& ep : entries_) {
      Entry& e = *ep;
      if (e.target.kind != Kind::kReplace) continue;
      const fs::path final_path(e.target.path);
      fs::path dir = final_path.parent_path();
      if (dir.empty()) dir = ".";
      if (e.target.existed && ::faccessat(AT_FDCWD, e.target.path.c_str(), W_OK, AT_EACCESS) != 0)
        cannot_write(e.shown, std::strerror(errno), "a file this user may write");
      if (e.target.existed) e.lock_fd = lock_existing(e.shown, e.target.path);
      std::string name = (dir / ("." + final_path.filename().string() + ".commsim-XXXXXX")).string();
      const int fd = ::mkostemp(name.data(), O_CLOEXEC);
      if (fd < 0) cannot_write(e.shown, std::strerror(errno), "a folder this user may write in");
      e.temp = name;
      int err = 0;
      if (e.target.existed && ::geteuid() == 0) (void)::fchown(fd, e.target.st.st_uid, e.target.st.st_gid);
      const mode_t mode = e.target.existed ? (e.target.st.st_mode & 07777) : new_file_mode();
      bool ok = ::fchmod(fd, mode) == 0 || (err = errno, false);
      ok = ok && write_all(fd, e.content, err);
      ok = ok && (::fsync(fd) == 0 || (err = errno, false));
      if (::close(fd) != 0 && ok) ok = false, err = errno;
      if (!ok) cannot_write(e.shown, std::strerror(err), "free space in a writable folder");
    }
  } catch (...) {
    discard();
    throw;
  }
  staged_ = true;
}

void OutputSet::commit() {
  stage();
  try {
    // 2. Devices and pipes: written through now, so one that refuses leaves every file as it was.
    for (auto& ep : entries_) {
      Entry& e = *ep;
      if (e.target.kind == Kind::kReplace) continue;
      int fd = e.target.descriptor;
      if (e.target.kind == Kind::kDescriptor) {
        std::fflush(stdout);
        std::fflush(stderr);
      } else {
        // O_NONBLOCK: opening a FIFO nobody reads fails at once (ENXIO) instead of hanging.
        fd = ::open(e.target.path.c_str(), O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
        if (fd < 0)
          errno == ENXIO ? cannot_write(e.shown, "no process is reading this pipe", "a pipe with a reader")
                         : cannot_write(e.shown, std::strerror(errno), "a device or pipe this user may write");
        ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
      }
      int err = 0;
      bool ok = write_all(fd, e.content, err);
      if (e.target.kind == Kind::kStream && ::close(fd) != 0 && ok) ok = false, err = errno;
      if (!ok) cannot_write(e.shown, std::strerror(err), "a device or pipe that takes the bytes");
    }
    // 3. The renames, each keeping a hard link to the file it replaces until all are done.
    for (auto& ep : entries_) {
      Entry& e = *ep;
      if (e.target.kind != Kind::kReplace) continue;
      if (e.target.existed) {
        for (int n = 0; n < 100 && e.backup.empty(); ++n) {
          const std::string b = e.temp + ".old" + std::to_string(n);
          if (::link(e.target.path.c_str(), b.c_str()) == 0)
            e.backup = b;
          else if (errno != EEXIST)
            break;  // no hard links here: this file cannot be restored
        }
      }
      if (::rename(e.temp.c_str(), e.target.path.c_str()) != 0)
        cannot_write(e.shown, std::strerror(errno), "a folder this user may write in");
      e.temp.clear();
      e.renamed = true;
    }
  } catch (...) {
    discard();
    throw;
  }
  // Done: drop the old files' links and make the renames durable.
  std::set<std::string> dirs;
  for (auto& ep : entries_) {
    Entry& e = *ep;
    if (!e.backup.empty()) ::unlink(e.backup.c_str());
    e.backup.clear();
    e.renamed = false;
    if (e.lock_fd >= 0) ::close(e.lock_fd);
    e.lock_fd = -1;
    if (e.target.kind == Kind::kReplace) {
      const fs::path dir = fs::path(e.target.path).parent_path();
      dirs.insert(dir.empty() ? "." : dir.string());
    }
  }
  for (const auto& d : dirs) {
    const int fd = ::open(d.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) continue;
    (void)::fsync(fd);
    ::close(fd);
  }
  entries_.clear();
  staged_ = false;
}

InPlaceOutput open_output_in_place(const std::string& shown) {
  const Resolved r = resolve(shown);
  InPlaceOutput out;
  if (r.kind == Kind::kDescriptor) {
    std::fflush(stdout);
    std::fflush(stderr);
    struct stat st {};
    if (::fstat(r.descriptor, &st) != 0)
      cannot_write(shown, std::strerror(errno), "a descriptor this process holds open");
    out.fd = r.descriptor;
    return out;
  }
  if (r.kind == Kind::kStream) {
    // O_NONBLOCK: opening a FIFO nobody reads fails at once (ENXIO) instead of hanging.
    out.fd = ::open(r.path.c_str(), O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (out.fd < 0)
      errno == ENXIO ? cannot_write(shown, "no process is reading this pipe", "a pipe with a reader")
                     : cannot_write(shown, std::strerror(errno), "a device or pipe this user may write");
    ::fcntl(out.fd, F_SETFL, ::fcntl(out.fd, F_GETFL) & ~O_NONBLOCK);
    out.owned = true;
    return out;
  }
  out.fd = ::open(r.path.c_str(), O_RDWR | O_CREAT | O_NOCTTY | O_CLOEXEC, 0666);  // the umask applies
  if (out.fd < 0)
    cannot_write(shown, std::strerror(errno),
                 r.existed ? "a file this user may write" : "a folder this user may write in");
  out.owned = true;
  out.regular = true;
  return out;
}

void write_output_bytes(const std::string& shown, int fd, bool regular, const std::string& bytes) {
  int err = 0;
  if (!write_all(fd, bytes, err))
    cannot_write(shown, std::strerror(err),
                 regular ? "free space in a writable folder" : "a device or pipe that takes the bytes");
}

OutputDir::OutputDir(const std::string& dir, const std::string& option) {
  std::error_code ec;
  struct stat st {};
  const bool existed = ::stat(dir.c_str(), &st) == 0;
  if (existed && !S_ISDIR(st.st_mode))
    throw UserError({dir, 1, 1}, option + ": exists and is not a folder (expected a folder to write into)");
  if (!existed) {
    if (!fs::create_directories(dir, ec))
      throw UserError({dir, 1, 1}, option + ": cannot create folder: " + ec.message() + " (expected a writable place)");
    created_ = dir;
  }
}

OutputDir::OutputDir(OutputDir&& o) noexcept : created_(std::move(o.created_)) { o.created_.clear(); }

OutputDir& OutputDir::operator=(OutputDir&& o) noexcept {
  if (this != &o) {
    std::error_code ec;
    if (!created_.empty()) fs::remove_all(created_, ec);
    created_ = std::move(o.created_);
    o.created_.clear();
  }
  return *this;
}

OutputDir::~OutputDir() {
  std::error_code ec;
  if (!created_.empty()) fs::remove_all(created_, ec);
}

void write_files_atomically(const std::string& dir, const std::vector<std::pair<std::string, std::string>>& files,
                            const std::string& option) {
  OutputDir folder(dir, option);
  OutputSet set;
  for (const auto& [name, content] : files) set.add((fs::path(dir) / name).string(), content);
  set.commit();
  folder.keep();
}

void write_file_atomically(const std::string& path, const std::string& content) {
  OutputSet set;
  set.add(path, content);
  set.commit();
}

}  // namespace scenarios
