// `commsim nccl-tests --compare` (nccl_tests_compare.hpp).
#include "scenarios/cli/measured/nccl_tests_compare.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include <fmt/format.h>

#include "scenarios/cli/cli_support.hpp"
#include "scenarios/cli/nccl_tests_support.hpp"

namespace scenarios {

namespace {

// The measured file's header against the prediction: another collective is an error (its times
// say nothing about this one); another rank count a warning on stderr (the file may be of a
// sub-communicator on purpose), and so is another GPU model in the "# Rank" lines than the
// scenario's GPU (the file may come from a similar machine on purpose).
void check_header(const std::string& file, const std::vector<models::readers::NcclTestsRun>& runs,
                  models::nccl::CollOp op, bool op_given, int ranks, int nodes, int pods_per_node,
                  const std::string& gpu) {
  for (const auto& run : runs) {
    // A bare table says neither its collective nor its ranks: what the comparison takes is said.
    if (run.op.empty() && !op_given)
      std::fprintf(stderr,
                   "commsim nccl-tests: note: %s does not say which collective it measured (no nccl-tests header "
                   "naming its program): compared as %s, the default (give the program or --op)\n",
                   file.c_str(), models::nccl::coll_op_name(op));
    if (run.ranks <= 0)
      std::fprintf(stderr,
                   "commsim nccl-tests: note: %s does not say how many ranks ran it (no \"# Rank\" lines or nThread "
                   "header): compared as the scenario's %d\n",
                   file.c_str(), ranks);
    if (!run.op.empty() && run.op != models::nccl::coll_op_name(op))
      throw UserError({file, 1, 1}, "the measured file ran " + run.op + "_perf, the prediction is " +
                                        models::nccl::coll_op_name(op) + " (expected --op " + run.op +
                                        " or a file of " + models::nccl::coll_op_name(op) + "_perf)");
    if (run.ranks > 0 && run.ranks != ranks)
      std::fprintf(stderr, "commsim nccl-tests: warning: %s ran on %d ranks, the scenario has %d: times differ\n",
                   file.c_str(), run.ranks, ranks);
    else if (nodes > 0 && run.hosts.size() > 1 && int(run.hosts.size()) != nodes &&
             int(run.hosts.size()) != nodes * pods_per_node)
      std::fprintf(stderr,
                   "commsim nccl-tests: warning: %s ran its %d ranks over %zu hosts, the scenario lays them on %d "
                   "node%s: the network is crossed elsewhere, and times differ\n",
                   file.c_str(), run.ranks, run.hosts.size(), nodes, nodes == 1 ? "" : "s");
    for (const auto& model : run.gpus)
      if (!gpu.empty() && !models::readers::gpu_product_matches(model, gpu))
        std::fprintf(stderr, "commsim nccl-tests: warning: %s ran on %s, the scenario's GPU is %s: times differ\n",
                     file.c_str(), model.c_str(), gpu.c_str());
  }
}

}  // namespace

// The runs of `op` in a measured file of several (nccl-tests outputs appended one after another),
// and the bare tables that name no collective; the file's runs as they are when none is of `op`
// (check_header then says which collective the file ran).
std::vector<models::readers::NcclTestsRun> runs_of(const std::vector<models::readers::NcclTestsRun>& runs,
                                                   models::nccl::CollOp op) {
  std::vector<models::readers::NcclTestsRun> mine;
  for (const auto& run : runs)
    if (run.op.empty() || run.op == models::nccl::coll_op_name(op)) mine.push_back(run);
  return mine.empty() ? runs : mine;
}

Comparison compare_with(const std::string& file, const models::calibrate::NcclTestsResult& result,
                        models::nccl::CollOp op, bool op_given, int ranks, int nodes, int pods_per_node) {
  Comparison c;
  c.file = file;
  const auto runs =
      runs_of(read_nccl_tests_output(file, "--compare").runs, op);  // a folder or an empty file is an error
  check_header(file, runs, op, op_given, ranks, nodes, pods_per_node, result.gpu_name);
  c.text = fmt::format("\n# Prediction vs measurement ({}): time per size, error = predicted / measured - 1\n", file);
  c.text += fmt::format("#{:>11}  {:>10}  {:>10}  {:>8}  {:>6} {:<6}\n", "size (B)", "meas (us)", "pred (us)", "error",
                        "algo", "proto");
  std::vector<double> errs;
  std::vector<long long> unmatched;
  for (const auto& run : runs)
    for (const auto& m : run.rows) {
      auto it =
          std::find_if(result.rows.begin(), result.rows.end(), [&](const auto& r) { return r.size == m.size_bytes; });
      if (it == result.rows.end()) {
        unmatched.push_back(static_cast<long long>(m.size_bytes));
        continue;
      }
      const double meas = m.compared_time_us(ranks);
      const double pred = it->compared_time_us(ranks);
      const double err = pred / meas - 1;
      errs.push_back(std::fabs(err));
      char line[160];
      std::snprintf(line, sizeof line, "%12lld  %10.2f  %10.2f  %+7.1f%%  %6s %-6s\n",
                    static_cast<long long>(m.size_bytes), meas, pred, err * 100, it->algo.c_str(), it->proto.c_str());
      c.text += line;
      c.rows.push_back({{"size_bytes", m.size_bytes}, {"measured_us", meas}, {"predicted_us", pred}, {"error", err}});
    }
  // Rows are matched by nccl-tests' printed size: a file none of whose sizes is predicted compares
  // nothing, an error; sizes that match no row are named in a warning, those within the predicted
  // range (another alignment, -f or -d) and those outside it (-b..-e narrower than the file's).
  const auto range = [](long long lo, long long hi) {
    return lo == hi ? std::to_string(lo) + " B" : std::to_string(lo) + " - " + std::to_string(hi) + " B";
  };
  if (errs.empty()) {
    const std::string measured = unmatched.empty() ? std::string("no rows")
                                                   : std::to_string(unmatched.size()) + " sizes, " +
                                                         range(*std::min_element(unmatched.begin(), unmatched.end()),
                                                               *std::max_element(unmatched.begin(), unmatched.end()));
    const std::string predicted = result.rows.empty() ? std::string("none")
                                                      : range(static_cast<long long>(result.rows.front().size),
                                                              static_cast<long long>(result.rows.back().size));
    throw UserError({file, 1, 1}, "no size of the measured file is a predicted size, nothing compared (measured " +
                                      measured + ", predicted " + predicted +
                                      "; expected the measured run's -b, -e, -f, -d and rank count)");
  }
  std::vector<long long> inside, outside;
  for (long long u : unmatched)
    (!result.rows.empty() && u > result.rows.front().size && u < result.rows.back().size ? inside : outside)
        .push_back(u);
  if (!inside.empty())
    std::fprintf(stderr,
                 "commsim nccl-tests: warning: %s: %zu of its sizes within the predicted range are no predicted "
                 "size and not compared (%s)\n",
                 file.c_str(), inside.size(), range(inside.front(), inside.back()).c_str());
  if (!outside.empty())
    std::fprintf(
        stderr,
        "commsim nccl-tests: warning: %s: %zu of its sizes are outside the predicted range and not compared "
        "(%s; -b and -e set the range)\n",
        file.c_str(), outside.size(),
        range(*std::min_element(outside.begin(), outside.end()), *std::max_element(outside.begin(), outside.end()))
            .c_str());
  {
    std::sort(errs.begin(), errs.end());
    c.count = errs.size();
    c.median = errs.size() % 2 ? errs[errs.size() / 2] : 0.5 * (errs[errs.size() / 2 - 1] + errs[errs.size() / 2]);
    c.max = errs.back();
    c.text += fmt::format("# {} sizes compared: median |error| {:.1f} %, max |error| {:.1f} %\n", errs.size(),
                          c.median * 100, c.max * 100);
  }
  return c;
}

}  // namespace scenarios
