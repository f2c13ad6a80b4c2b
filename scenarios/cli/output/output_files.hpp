#pragma once
// How `commsim` writes its output files (the README's error contract, "Output files"):
//   - all outputs of one command commit together or not at all: every regular file is first
//     written in full to a temporary file in its own folder (fsync'd, with the existing file's
//     permissions), then the temporaries are renamed over their targets one after another; if
//     one rename fails, the ones already done are undone (the old file comes back from a hard
//     link taken just before), so every existing output is left as it was and nothing new stays
//     (a replaced file is a new inode: other hard links to it keep the old bytes, as with an
//     editor's atomic save; a file system without hard links cannot give the old file back);
//   - a symlink is followed: its final target is replaced, the link stays a link;
//   - a character device or a pipe (/dev/null, /dev/full, a FIFO, /dev/stdout, /dev/fd/N) is
//     written through, never replaced; these are written before any rename, so a device that
//     refuses the bytes (/dev/full) leaves every file untouched; written bytes cannot be taken
//     back if a later rename fails;
//   - an output that is one of the command's inputs, or another output of the same command, is
//     refused before any work, comparing device and inode (hard links and symlinks included).
// Every failure is a UserError `PATH:1:1: cannot write: <reason> (expected ...)`.
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace scenarios {

// One output as the user named it: the option that named it ("--html"), and the path.
struct OutputPath {
  std::string option;
  std::string path;
};

// Throws UserError when an output is one of `inputs` or two outputs are the same file.
// Empty paths are ignored. Call it before any work, and again once the inputs a scenario names
// (profile, DeepSpeed JSON, topology file) are known.
void refuse_outputs_over_inputs(const std::vector<OutputPath>& outputs, const std::vector<std::string>& inputs);

// The outputs of one command, committed together (see above).
class OutputSet {
 public:
  OutputSet();
  OutputSet(const OutputSet&) = delete;
  OutputSet& operator=(const OutputSet&) = delete;
  ~OutputSet();

  void add(std::string path, std::string content);
  // Writes every regular file's temporary (commit() does it when not done yet).
  void stage();
  // Writes everything or nothing; throws UserError naming the path that failed.
  void commit();

 private:
  struct Entry;
  std::vector<std::unique_ptr<Entry>> entries_;
  bool staged_ = false;
  void discard() noexcept;
};

// An output written in place while the command runs (sweep rows, each flushed as it completes,
// so a killed sweep keeps them; not staged, so not committed together): symlinks are followed as
// above; /dev/stdout, /dev/stderr and /dev/fd/N are the descriptor this process holds (never
// reopened, never closed: a shell's `>>` keeps its append mode); a FIFO needs a reader (refused at
// once without one); a character device is opened for writing; a regular file, existing or new
// (with the mode a new file gets), is opened read-write and not emptied; a folder, a socket or a
// block device is refused. Throws UserError `PATH:1:1: cannot write: ... (expected ...)`.
struct InPlaceOutput {
  int fd = -1;
  bool owned = false;    // opened here: the caller closes it
  bool regular = false;  // a regular file opened by name: it may be locked, emptied and read back
};
InPlaceOutput open_output_in_place(const std::string& shown);
// Writes all of `bytes` to `fd` (waiting while a pipe is full); throws the UserError above, its
// expected part by what `fd` is (`regular`: free space; else a device or pipe that takes them).
void write_output_bytes(const std::string& shown, int fd, bool regular, const std::string& bytes);

// A folder the outputs go into, created when missing, and removed again unless keep() is called
// (an OutputSet that fails leaves no new empty folder behind). UserError `DIR:1:1: OPTION: ...`
// when it is not a folder or cannot be created.
class OutputDir {
 public:
  OutputDir() = default;
  OutputDir(const std::string& dir, const std::string& option);
  OutputDir(OutputDir&& o) noexcept;
  OutputDir& operator=(OutputDir&& o) noexcept;
  OutputDir(const OutputDir&) = delete;
  OutputDir& operator=(const OutputDir&) = delete;
  ~OutputDir();
  void keep() { created_.clear(); }

 private:
  std::string created_;  // the folder this made, until kept
};

// Writes each (name, content) into `dir` (created if missing, and removed again if this fails)
// as one OutputSet; `option` names the folder in errors.
void write_files_atomically(const std::string& dir, const std::vector<std::pair<std::string, std::string>>& files,
                            const std::string& option = "--out");
// One file, same guarantees.
void write_file_atomically(const std::string& path, const std::string& content);

}  // namespace scenarios
