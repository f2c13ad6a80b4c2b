// commsim calibrate: not implemented yet (placeholder until its issue lands).
#include <cstdio>

#include "scenarios/command.hpp"

namespace scenarios {
int cmd_calibrate(int, char**) {
  std::fprintf(stderr, "commsim calibrate: not available in this build yet\n");
  return 3;
}
}  // namespace scenarios
