#pragma once
// Reading the validation data the tests compare with: an nccl-tests output against the model's
// prediction of the same sizes, and the CSV files of public figures (scenarios/validation/*/measured).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "models/calibrate/nccl_tests.hpp"
#include "models/readers/nccl_tests_output.hpp"

namespace validation {

// Per size, the prediction's time error against an nccl-tests output (the faster of out-of-place
// and in-place on both sides; - : the model is fast), `op` (all_reduce unless said) over the
// output's sizes.
inline std::map<int64_t, double> nccl_tests_errors(const models::ScenarioSpec& spec, const std::string& measured_file,
                                                   models::nccl::CollOp op = models::nccl::CollOp::AllReduce) {
  const auto runs = models::readers::parse_nccl_tests_files({measured_file});
  REQUIRE(runs.size() == 1);
  models::calibrate::NcclTestsOptions o;
  o.op = op;
  o.min_bytes = runs[0].rows.front().size_bytes;
  o.max_bytes = runs[0].rows.back().size_bytes;
  std::map<int64_t, double> pred;
  for (const auto& r : models::calibrate::run_nccl_tests(spec, o).rows) pred[r.size] = r.best_time_us();
  std::map<int64_t, double> errs;
  for (const auto& m : runs[0].rows) {
    const double meas = m.ip ? std::min(m.oop.time_us, m.ip->time_us) : m.oop.time_us;
    errs[m.size_bytes] = pred.at(m.size_bytes) / meas - 1;
  }
  return errs;
}

// The data rows of a CSV file: its comment lines (#) and its header line (the first other line)
// skipped, each row split at commas.
inline std::vector<std::vector<std::string>> csv_rows(const std::string& path) {
  std::ifstream in(path);
  REQUIRE(in.good());
  std::vector<std::vector<std::string>> rows;
  bool header = true;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    if (header) {
      header = false;
      continue;
    }
    std::vector<std::string> f;
    std::stringstream ss(line);
    for (std::string c; std::getline(ss, c, ',');) f.push_back(c);
    rows.push_back(std::move(f));
  }
  return rows;
}

}  // namespace validation
