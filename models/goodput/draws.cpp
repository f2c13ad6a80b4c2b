// Order-free seeded draws (draws.hpp).
#include "models/goodput/draws.hpp"

#include "models/goodput/extreme.hpp"

namespace models::goodput {

uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

double uniform_draw(uint64_t seed, uint64_t stream, uint64_t index) {
  const uint64_t h = splitmix64(splitmix64(splitmix64(seed) ^ stream) ^ index);
  return (static_cast<double>(h >> 11) + 0.5) * 0x1.0p-53;  // centre of one of 2^53 cells
}

double normal_draw(uint64_t seed, uint64_t stream, uint64_t index) {
  return normal_quantile(uniform_draw(seed, stream, index));
}

}  // namespace models::goodput
