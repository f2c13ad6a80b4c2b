// Fuzzes the NCCL log parser and its diagnosis: any text (or bytes) must either parse or throw
// models::ParseError with a place; nothing else may escape, and the report must be coherent.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "models/nccl/diagnosis.hpp"
#include "models/parse_error.hpp"
#include "models/readers/nccl_log.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const auto r = models::readers::parse_nccl_log(text, "fuzz.log");
    int total = 0;
    for (const auto& [kind, n] : r.transport_kinds) total += n;
    if (total != static_cast<int>(r.transports.size()) || r.nccl_lines <= 0) {
      std::fprintf(stderr, "fuzz_nccl_log: incoherent report\n");
      std::abort();
    }
    (void)models::nccl::diagnose_log(r);
  } catch (const models::ParseError& e) {
    if (e.line() < 1 || e.col() < 1) std::abort();
  }
  return 0;
}
