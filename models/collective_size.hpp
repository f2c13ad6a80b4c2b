#pragma once
// The largest collective commsim simulates, checked in one place. Every size reaches the engine
// through CollectiveEngine::launch; a scenario's collective.bytes, a --vary value, nccl-tests'
// -b/-e and a model's gradients alike. The engine names a collective's flows by (op, bytes) in
// 55 bits (plan_cache.hpp) and times them on the 64-bit picosecond clock (sim/time.hpp: about
// 106 days), so a size must be bounded before it is simulated: 2^50 bytes (1 PiB), over a
// thousand times the largest real collective (the fp32 gradients of a 405B-parameter model are
// 1.6 TB) and small enough that 1 PiB over a 100 Gb/s link, 0.9 days, fits the clock.
// A size above it is a user error at the key that gave it (a SpecError), never an abort: `run`
// exits 2 with FILE:LINE:COL, a sweep writes that point's row with the error and runs the others.
#include <cstdint>
#include <cstdio>
#include <string>

#include "models/error.hpp"

namespace models {

inline constexpr int64_t kMaxCollectiveBytes = int64_t{1} << 50;

// Throws SpecError(key) when `bytes` is above kMaxCollectiveBytes (or not a number).
inline void check_collective_bytes(double bytes, const std::string& key) {
  if (bytes <= static_cast<double>(kMaxCollectiveBytes)) return;
  char shown[48];
  std::snprintf(shown, sizeof shown, "%.0f", bytes);
  throw SpecError(key, "a collective of " + std::string(shown) +
                           " bytes is more than 2^50 bytes (1 PiB), the largest commsim simulates (expected a size "
                           "up to 1 PiB)");
}

}  // namespace models
