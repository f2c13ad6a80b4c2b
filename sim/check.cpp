#include "sim/check.hpp"

#include <stdexcept>
#include <string>

namespace sim {
void check_failed(std::string_view condition, std::string_view message, const char* file, int line) {
  // An exception, not abort(): the command line reports it and exits 1, and a sweep records the
  // point's row with the error and runs the other points (each point builds its own network).
  throw std::logic_error(std::string(file) + ":" + std::to_string(line) + ": check '" + std::string(condition) +
                         "' failed: " + std::string(message));
}
}  // namespace sim
