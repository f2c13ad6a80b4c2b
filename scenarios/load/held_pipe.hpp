#pragma once
// A scenario read from a pipe this process holds (`commsim run <(generate.sh)`: /dev/fd/N,
// /proc/self/fd/N, /dev/stdin). read_input_file (input_file.hpp) reads such a pipe to its end
// once and keeps the text, so a command loading the file again (a sweep, once per point) gets the
// same text; a named pipe (mkfifo) is still refused, as it may have no writer. Paths written in
// such a scenario are relative to the current folder (the pipe's folder means nothing).
#include <string>

namespace scenarios {

// Whether `path` names a descriptor this process holds (/dev/stdin, /dev/fd/N, /proc/self/fd/N).
bool is_held_descriptor(const std::string& path);

}  // namespace scenarios
