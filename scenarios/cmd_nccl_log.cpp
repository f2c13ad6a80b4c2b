// commsim nccl-log: not implemented yet (placeholder until its issue lands).
#include <cstdio>

#include "scenarios/command.hpp"

namespace scenarios {
int cmd_nccl_log(int, char**) {
  std::fprintf(stderr, "commsim nccl-log: not available in this build yet\n");
  return 3;
}
}  // namespace scenarios
