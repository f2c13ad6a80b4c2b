#pragma once
// One physical line of a real NCCL debug log, split into the NCCL message and what surrounds it.
// Real logs are messy: `host:pid:tid [dev] NCCL INFO text`, WARN lines with the emitting function
// (`host:pid:tid [dev] int f(...):259 NCCL WARN text`), timestamps put in front by kubectl or the
// launcher, lines of several ranks interleaved, and stdout of the program glued in front of the
// prefix when stdout and stderr share a terminal (nccl-tests rows: `      -1vm:2802:2802 [0] NCCL
// INFO ...`). These helpers are shared by the NCCL log parser and the nccl-tests parser.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace models::readers {

struct LogLine {
  int line = 0;             // 1-based line number in the file
  std::string_view before;  // program output glued before the prefix (may be empty)
  std::string host;         // "" when the line had no host:pid:tid prefix
  int pid = -1;
  int tid = -1;
  std::string dev;         // the [dev] field: local CUDA device (or busId in old versions)
  std::string level;       // INFO, WARN, TRACE, ERROR
  std::string_view where;  // WARN lines: "func(...):line" between [dev] and NCCL
  std::string_view text;   // the message after "NCCL INFO "
  int text_col = 1;        // 1-based column of `text` in the physical line
};

// The NCCL message inside one physical line, or nullopt when the line carries none.
std::optional<LogLine> split_nccl_line(std::string_view line, int line_no);

// Lines of `text` (without their '\n' or "\r\n").
std::vector<std::string_view> split_lines(std::string_view text);

// Throws models::ParseError at the first byte that cannot be in a text log (NUL or another
// control character): a binary file given by mistake must fail clearly, not parse as empty.
void check_text(std::string_view text, const std::string& file);

}  // namespace models::readers
