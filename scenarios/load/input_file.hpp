#pragma once
// Reading a user's input file (scenario, profile, DeepSpeed JSON, job YAML, nccl-tests output,
// NCCL log, ...): only a regular file is read. A folder, a FIFO, a socket or a device is refused
// at once, from stat() before any open, and the open itself never blocks (O_NONBLOCK), so a FIFO
// with no writer cannot hang the command.
#include <string>

#include "scenarios/load/loader.hpp"

namespace scenarios {

// Throws UserError at `at`: "cannot read WHAT 'PATH': REASON (expected EXPECTED)", where REASON is
// the system's ("No such file or directory") or what the path is instead ("it is a folder").
void check_input_file(const std::string& path, const SourcePos& at, const std::string& what,
                      const std::string& expected = "a readable file");
// The same checks, then the whole file.
std::string read_input_file(const std::string& path, const SourcePos& at, const std::string& what,
                            const std::string& expected = "a readable file");

}  // namespace scenarios
