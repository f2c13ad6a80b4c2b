// commsim sweep: not implemented yet (placeholder until its issue lands).
#include <cstdio>

#include "scenarios/command.hpp"

namespace scenarios {
int cmd_sweep(int, char**) {
  std::fprintf(stderr, "commsim sweep: not available in this build yet\n");
  return 3;
}
}  // namespace scenarios
