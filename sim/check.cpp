#include "sim/check.hpp"

#include <cstdio>
#include <cstdlib>

namespace sim {
void check_failed(std::string_view condition, std::string_view message, const char* file, int line) {
  std::fprintf(stderr, "%s:%d: internal error: check '%.*s' failed: %.*s\n", file, line,
               static_cast<int>(condition.size()), condition.data(), static_cast<int>(message.size()), message.data());
  std::abort();
}
}  // namespace sim
