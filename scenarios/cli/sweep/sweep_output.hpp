#pragma once
// Where sweep rows go, one at a time, as they complete: standard output, or a file that is
// locked while the sweep writes it (a second sweep on the same file is refused, so two shards
// given the same --csv cannot interleave or lose rows, and so is any other commsim command
// writing over it, see output_files.hpp), rows written and flushed one by one (a killed sweep
// keeps every row it wrote), and `--resume` reading the rows already there.
// What happens to a file that is already there:
//   - new or empty, or `--resume`: the rows are written into it in place, so a killed sweep keeps
//     them and `--resume` runs only the rest (the rows there must be the sweep's first ones in its
//     order, each once, as a sweep writes them: cmd_sweep.cpp refuses a row twice or a gap);
//   - not empty, without `--resume`: the old file is never emptied; the rows go to a temporary
//     file beside it (`.NAME.commsim-XXXXXX`, the old file's permissions), which replaces it only
//     when every point has its row (commit()). A sweep that stops before that (an error, a kill)
//     leaves the old file as it was; a kill leaves the temporary behind too. Standard error
//     then says how many lines the replaced file held. Stopped by SIGINT, SIGTERM or SIGHUP, a
//     sweep writing a file says on standard error how many rows it holds, or where the
//     temporary is and how to keep its rows (mv it over the file, then --resume).
// The file is opened by scenarios/cli/output/output_files.hpp's open_output_in_place: symlinks followed,
// devices, pipes and FIFOs written through (a FIFO needs a reader), never replaced; /dev/stdout
// is this process's standard output.
#include <cstddef>
#include <functional>
#include <set>
#include <string>

#include "scenarios/cli/output/result_schema.hpp"

namespace scenarios {

enum class RowFormat { Csv, JsonLines };

class SweepOutput {
 public:
  // `path` empty: standard output. Throws UserError ({path,1,1}) when the file cannot be opened
  // or another process holds its lock.
  SweepOutput(const std::string& path, RowFormat format);
  ~SweepOutput();
  SweepOutput(const SweepOutput&) = delete;
  SweepOutput& operator=(const SweepOutput&) = delete;

  // Starts the output: without `resume`, writes `header` (may be empty) into a new or empty file,
  // or into the temporary beside a file that has rows (see above).
  // With `resume`, checks that the file starts with `header`, drops a last line cut short by a
  // kill, and returns the row indices already present. `check_row(line_no, row)` validates each
  // existing row (its index belongs to this sweep, its key columns match) and throws UserError.
  std::set<size_t> start(const std::string& header, bool resume,
                         const std::function<size_t(int line_no, const Json& row)>& check_row);
  // Appends one line (with its newline) and hands it to the operating system at once.
  void write(const std::string& line);
  // Every row is written: a temporary replaces the old file (nothing to do when written in place).
  void commit();

  const std::string& name() const { return name_; }

 private:
  std::string path_, name_;
  RowFormat format_;
  int fd_ = -1;  // -1: standard output through stdio
  bool owned_ = false;
  bool regular_ = false;
  void write_beside();
  // Prepares what a SIGINT, SIGTERM or SIGHUP says while rows go to a file: how many rows it
  // holds, or, for a temporary, where they are and how to keep them (then dies of the signal).
  void arm_note(size_t rows_present);
  bool counting_ = false;  // rows written from here on count in that note
  std::string target_;   // the regular file named, the symlink chain followed
  std::string temp_;     // the rows' temporary while an old file waits to be replaced
  size_t replaced_lines_ = 0;  // lines of the old file the temporary replaces (said on commit)
  int target_fd_ = -1;   // the old file, kept open and locked until it is replaced
};

// The fields of one CSV record (RFC 4180, as csv_field writes them), without its newline; a
// quoted field may hold line breaks.
std::vector<std::string> split_csv_line(const std::string& line);
// Where the CSV record starting at `from` ends: its newline, the first outside quotes (npos when
// the text ends first: a record cut short).
size_t csv_record_end(const std::string& text, size_t from);

}  // namespace scenarios
