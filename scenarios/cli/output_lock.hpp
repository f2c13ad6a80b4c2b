#pragma once
// An exclusive claim on one output file for the length of a command, so that two processes given
// the same output (two `sweep --shard` runs with one --csv) cannot both write it: each used to
// replace the other's file, both exited 0 and half the rows were gone (issue 21).
//
// The claim is a flock(2) on a lock file beside the output's final target (".NAME.commsim-lock",
// symlinks followed), taken without waiting: a second claimant fails at once, naming the holder's
// pid. The lock file is removed when the claim ends; one left by a killed process holds no lock
// (the kernel drops it) and is reused. Outputs that are not regular files (/dev/stdout, a FIFO)
// are not claimed, nor are outputs in a folder where the lock file cannot be created (the write
// itself then reports why it cannot write there).
#include <string>

namespace scenarios {

class OutputLock {
 public:
  // Throws UserError `PATH:1:1: cannot write: another commsim (pid N) is writing this file
  // (expected ...)` when another process holds the claim. `option` names the output ("--csv").
  OutputLock(const std::string& path, const std::string& option);
  ~OutputLock();
  OutputLock(const OutputLock&) = delete;
  OutputLock& operator=(const OutputLock&) = delete;

 private:
  int fd_ = -1;
  std::string lock_path_;
};

}  // namespace scenarios
