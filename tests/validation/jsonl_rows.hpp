#pragma once
// The device scripts' JSON-lines outputs (bench/device/*/*.py), read by the validation tests: the rows
// of one `kind`, and the median the tests report.
#include <algorithm>
#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace validation {

inline std::vector<nlohmann::json> jsonl_rows(const std::string& path, const std::string& kind) {
  std::ifstream in(path);
  REQUIRE(in.good());
  std::vector<nlohmann::json> out;
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) {
      nlohmann::json j = nlohmann::json::parse(line);
      if (j.value("kind", "") == kind) out.push_back(std::move(j));
    }
  return out;
}

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace validation
