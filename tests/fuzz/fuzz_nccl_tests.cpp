// Fuzzes the nccl-tests output parser: parse or models::ParseError (with a place), nothing else.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "models/parse_error.hpp"
#include "models/readers/nccl_tests_output.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    for (const auto& run : models::readers::parse_nccl_tests(text, "fuzz.txt"))
      for (const auto& row : run.rows)
        if (row.size_bytes < 0 || row.oop.time_us < 0) std::abort();
  } catch (const models::ParseError& e) {
    if (e.line() < 1 || e.col() < 1) std::abort();
  }
  return 0;
}
