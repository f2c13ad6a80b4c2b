#pragma once
// Always-on invariant checks for the engine's own logic (never for user input: that is an error
// reported with file:line:col by the scenario layer). Unlike assert, these stay in release builds.
// A failed check throws std::logic_error("FILE:LINE: check 'COND' failed: MESSAGE"): the command
// line prints it as an internal error and exits 1, and a sweep records it in that point's row.
#include <string_view>

namespace sim {
[[noreturn]] void check_failed(std::string_view condition, std::string_view message, const char* file, int line);
}  // namespace sim

#define SIM_CHECK(cond, msg)                                 \
  do {                                                       \
    if (!(cond)) [[unlikely]]                                \
      ::sim::check_failed(#cond, (msg), __FILE__, __LINE__); \
  } while (0)
