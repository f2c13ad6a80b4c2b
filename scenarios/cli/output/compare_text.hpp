#pragma once
// What `commsim compare` says about one column against the first: its ratio, whether the two
// train the same batch, and why its step differs.
#include <cstddef>
#include <string>

#include "models/result.hpp"

namespace scenarios {

// "x0.98" (two decimals; two significant digits below x0.01), "x1.00" for 0 against 0, "n/a"
// against a base of 0.
std::string ratio_text(double value, double base);

// Whether two training runs train different tokens per step (another global batch).
bool batch_differs(const models::RunResult& a, const models::RunResult& b);

// Why column `index`'s step is longer or shorter than [1]'s, beyond the model's error: the mean
// rank's step terms that moved most (each at least a tenth of the difference, three at most), and
// whether its NCCL transports differ; wrapped at 100 columns. "" where the steps are alike, within
// the model's error or of other batches (a note says so).
std::string difference_text(const models::RunResult& base, const models::RunResult& r, size_t index);

}  // namespace scenarios
