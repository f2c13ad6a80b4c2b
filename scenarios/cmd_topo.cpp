// commsim topo: not implemented yet (placeholder until its issue lands).
#include <cstdio>

#include "scenarios/command.hpp"

namespace scenarios {
int cmd_topo(int, char**) {
  std::fprintf(stderr, "commsim topo: not available in this build yet\n");
  return 3;
}
}  // namespace scenarios
