#pragma once
// `commsim nccl-tests --compare`: a measured nccl-tests file against the predicted table, row by
// row matched by size, with the header checked against the prediction (its collective, ranks,
// hosts and GPU) and the runs of the predicted collective picked from a file of several.
#include <string>
#include <vector>

#include "models/calibrate/nccl_tests.hpp"
#include "models/nccl/ops.hpp"
#include "models/readers/nccl_tests_output.hpp"
#include "scenarios/cli/output/result_schema.hpp"

namespace scenarios {

struct Comparison {
  std::string file;
  Json rows = Json::array();
  std::string text;
  double median = 0, max = 0;
  size_t count = 0;
};

// The runs of `op` in a measured file of several (nccl-tests outputs appended one after another),
// and the bare tables that name no collective; the file's runs as they are when none is of `op`
// (the comparison then says which collective the file ran).
std::vector<models::readers::NcclTestsRun> runs_of(const std::vector<models::readers::NcclTestsRun>& runs,
                                                   models::nccl::CollOp op);

// Compares `file` with the predicted `result` (the faster of out-of-place and in-place per size,
// as nccl-tests' noise only adds time); throws UserError where nothing can be compared.
Comparison compare_with(const std::string& file, const models::calibrate::NcclTestsResult& result,
                        models::nccl::CollOp op, bool op_given, int ranks, int nodes, int pods_per_node);

}  // namespace scenarios
