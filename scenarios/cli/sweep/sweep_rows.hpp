#pragma once
// One row per sweep point, built once and written either as CSV or as a JSON line, so both carry
// the same columns in the same order (docs/result.schema.json, "sweep_row"):
//   index, <one column per --vary key>, the run summary (result_schema.hpp), error,
//   file, overrides, commsim_version, schema_version, then does it fit and how fast: fits,
//   memory_peak_bytes, memory_capacity_bytes, tokens_per_s, samples_per_s, model_tflops_per_gpu,
//   mfu, tokens_per_s_per_gpu (null where not computed), the layout and the run at scale, the cost
//   columns, `samples` and `seed` (the --samples and --seed every point ran with), and last
//   `inputs_digest` (inputs_digest.hpp: what the point read). --resume compares both with the
//   sweep's: a row made with other draws is another sweep's row.
// A --vary value is written with the type the loader gives it (4, 0.5, true, "Ring", "1 MiB").
#include <cstdint>
#include <string>
#include <vector>

#include "models/result.hpp"
#include "scenarios/cli/output/result_schema.hpp"
#include "scenarios/cli/sweep/sweep_plan.hpp"

namespace scenarios {

class SweepRows {
 public:
  // `samples`, `seed`: --samples (0: none) and --seed, the same for every point.
  SweepRows(std::vector<VaryAxis> axes, std::string scenario_file, std::vector<std::string> overrides, int samples = 0,
            uint64_t seed = 1);

  // The row of `point`: the run's summary, or nulls and the error message; `digest` is the
  // inputs_digest of the files the point's scenario read. A failed point's gpus, nodes, pods and
  // layout come from `failed_layout` where given (its placement tiled the nodes), else null.
  Json row(const SweepPoint& point, const models::RunResult* result, const std::string& error,
           const std::string& digest, const models::RunResult* failed_layout = nullptr) const;

  // Column names (= the keys of every row), CSV header line with its newline.
  const std::vector<std::string>& columns() const { return columns_; }
  std::string csv_header() const;
  // The row as one CSV line (RFC 4180 quoting, numbers as in JSON, null empty) or one JSON line.
  static std::string csv_line(const Json& row);
  // One cell as CSV shows it before quoting (null empty, strings bare, lists joined with ';').
  static std::string cell_text(const Json& value);
  static std::string json_line(const Json& row);

 private:
  std::vector<VaryAxis> axes_;
  std::string file_;
  std::vector<std::string> overrides_;
  int samples_ = 0;
  uint64_t seed_ = 1;
  std::vector<std::string> columns_;
};

std::string csv_field(const std::string& s);

}  // namespace scenarios
