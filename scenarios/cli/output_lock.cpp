#include "scenarios/cli/output_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "scenarios/load/loader.hpp"

namespace scenarios {

namespace fs = std::filesystem;

OutputLock::OutputLock(const std::string& path, const std::string& option) {
  if (path.empty()) return;
  std::error_code ec;
  const fs::path target = fs::weakly_canonical(path, ec);  // a symlink's final target
  if (ec || target.filename().empty()) return;
  struct stat st {};
  if (::stat(target.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) return;  // a device or a pipe
  std::string lock_name = ".";  // built by appends: "." + std::string trips GCC 12's -Wrestrict
  lock_name += target.filename().string();
  lock_name += ".commsim-lock";
  const std::string lock = (target.parent_path() / lock_name).string();
  // A claimant may open the lock file just as its holder removes it: after locking, the path must
  // still name the locked file, else take the new one.
  for (int attempt = 0; attempt < 8; ++attempt) {
    const int fd = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return;  // no lock file here: the write reports the folder's own problem
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      char buf[32] = {};
      const ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
      ::close(fd);
      const std::string pid = n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string("?");
      throw UserError({path, 1, 1}, option + ": cannot write: another commsim (pid " + pid +
                                        ") is writing this file (expected an output of its own for each "
                                        "process, e.g. one --csv per shard, concatenated afterwards)");
    }
    struct stat held {
    }, named{};
    if (::fstat(fd, &held) == 0 && ::stat(lock.c_str(), &named) == 0 && held.st_dev == named.st_dev &&
        held.st_ino == named.st_ino) {
      const std::string pid = std::to_string(::getpid());
      if (::ftruncate(fd, 0) == 0 && ::pwrite(fd, pid.data(), pid.size(), 0) < 0) {
        // the pid is only for the other claimant's message
      }
      fd_ = fd;
      lock_path_ = lock;
      return;
    }
    ::close(fd);
  }
}

OutputLock::~OutputLock() {
  if (fd_ < 0) return;
  ::unlink(lock_path_.c_str());  // while still holding it: a later claimant makes a new file
  ::close(fd_);
}

}  // namespace scenarios
