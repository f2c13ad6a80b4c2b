// The digest of a sweep point's input files (see inputs_digest.hpp).
#include "scenarios/cli/sweep/inputs_digest.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>

namespace scenarios {

namespace {
constexpr uint64_t kFnvOffset = 14695981039346656037ull, kFnvPrime = 1099511628211ull;

void mix(uint64_t& h, const char* data, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    h ^= static_cast<unsigned char>(data[i]);
    h *= kFnvPrime;
  }
}
}  // namespace

std::string inputs_digest(std::vector<std::string> files) {
  std::sort(files.begin(), files.end());
  files.erase(std::unique(files.begin(), files.end()), files.end());
  uint64_t h = kFnvOffset;
  for (const auto& name : files) {
    mix(h, name.data(), name.size() + 1);  // with its '\0': "ab"+"c" differs from "a"+"bc"
    std::ifstream in(name, std::ios::binary);
    const std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    const std::string size = std::to_string(bytes.size()) + ":";
    mix(h, size.data(), size.size());
    mix(h, bytes.data(), bytes.size());
  }
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(h));
  return text;
}

}  // namespace scenarios
