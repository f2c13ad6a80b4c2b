#pragma once
// Seeded draws that do not depend on the order they are asked for, the platform or the standard
// library: a draw is a pure function of (seed, stream, index), hashed by SplitMix64 (Steele, Lea
// and Flood, "Fast splittable pseudorandom number generators", OOPSLA 2014) to 53 uniform bits,
// then turned into a normal by the inverse CDF (extreme.hpp). So rank r's GPU speed under seed s
// is the same whether 8 or 16,384 ranks are drawn, and a run is reproducible bit for bit.
#include <cstdint>

namespace models::goodput {

uint64_t splitmix64(uint64_t x);
// Uniform in (0, 1), never 0 or 1.
double uniform_draw(uint64_t seed, uint64_t stream, uint64_t index);
// Standard normal.
double normal_draw(uint64_t seed, uint64_t stream, uint64_t index);

}  // namespace models::goodput
