// commsim nccl-tests: not implemented yet (placeholder until its issue lands).
#include <cstdio>

#include "scenarios/command.hpp"

namespace scenarios {
int cmd_nccl_tests(int, char**) {
  std::fprintf(stderr, "commsim nccl-tests: not available in this build yet\n");
  return 3;
}
}  // namespace scenarios
