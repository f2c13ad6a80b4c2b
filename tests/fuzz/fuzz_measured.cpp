// Fuzzes the readers of what a user measured: a Kineto (PyTorch profiler) trace, nccl-tests -J
// JSON, NCCL Inspector JSON lines. The first byte picks the reader (its value mod 3, in that
// order), the rest is the file. Each must parse or throw models::ParseError with a place, and
// what it returns must be sane (no negative time or count).
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "models/parse_error.hpp"
#include "models/readers/kineto_trace.hpp"
#include "models/readers/nccl_inspector.hpp"
#include "models/readers/nccl_tests_json.hpp"

namespace {
void sane(double seconds) {
  if (!(seconds >= 0) || std::isinf(seconds)) std::abort();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    switch (data[0] % 3) {
      case 0: {
        (void)models::readers::looks_like_kineto_trace(text);
        const auto trace = models::readers::parse_kineto_trace(text, "fuzz.json");
        if (trace.gpus < 0) std::abort();
        for (const auto& step : trace.steps) {
          sane(step.gpu_busy_s);
          sane(step.gpu_span_s);
          if (step.gpu_events < 0) std::abort();
          for (const auto& k : step.kernels)
            if (k.calls < 0) std::abort();
        }
        break;
      }
      case 1:
        for (const auto& run : models::readers::parse_nccl_tests_json(text, "fuzz.json"))
          for (const auto& row : run.rows)
            if (row.size_bytes < 0 || row.oop.time_us < 0) std::abort();
        break;
      default:
        (void)models::readers::looks_like_nccl_inspector(text);
        for (const auto& row : models::readers::parse_nccl_inspector(text, "fuzz.jsonl")) {
          if (row.bytes < 0 || row.line < 1) std::abort();
          sane(row.exec_s);
        }
        break;
    }
  } catch (const models::ParseError& e) {
    if (e.line() < 1 || e.col() < 1) std::abort();
  }
  return 0;
}
