// commsim nccl-tests SCENARIO.toml --op OP -b MIN -e MAX -f FACTOR [-g N] [--set K=V]...
//                   [--compare MEASURED.txt]
// Predicts nccl-tests' own table for the scenario's machine; --compare adds the measured times
// of a real nccl-tests output and the error per size.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "models/calibrate/nccl_tests.hpp"
#include "models/readers/nccl_tests_output.hpp"
#include "scenarios/cli/cli_support.hpp"
#include "scenarios/cli/command.hpp"
#include "scenarios/cli/nccl_tests_support.hpp"

namespace scenarios {

int cmd_nccl_tests(int argc, char** argv) {
  CLI::App app{"Predict nccl-tests output (the same table format) for a scenario's machine.", "commsim nccl-tests"};
  std::string path, op_name = "all_reduce", min_s = "8", max_s = "1G", compare;
  double factor = 2;
  int gpus = 0;
  std::vector<std::string> sets;
  app.add_option("scenario", path, "scenario file (TOML)")->required()->type_name("SCENARIO.toml");
  app.add_option("--op", op_name,
                 "all_reduce | all_gather | reduce_scatter | broadcast | reduce | alltoall | sendrecv");
  app.add_option("-b,--minbytes", min_s, "smallest size (nccl-tests syntax: 8, 128K, 1M, 1G)");
  app.add_option("-e,--maxbytes", max_s, "largest size");
  app.add_option("-f,--stepfactor", factor, "multiply the size by this factor each step")
      ->check(CLI::Range(1.01, 1024.0));
  app.add_option("-g,--ngpus", gpus, "GPUs driven by one process (nccl-tests -g): P2P/direct pointer between them")
      ->check(CLI::PositiveNumber);
  app.add_option("--compare", compare, "a real nccl-tests output to compare with")->type_name("MEASURED.txt");
  add_set_option(app, sets);
  if (const int rc = parse_cli(app, argc, argv); rc >= 0) return rc;

  return guarded([&] {
    models::calibrate::NcclTestsOptions o;
    if (!models::nccl::parse_coll_op(op_name, o.op))
      throw UserError(
          {"--op", 1, 1},
          "unknown collective '" + op_name +
              "' (expected all_reduce, all_gather, reduce_scatter, broadcast, reduce, alltoall or sendrecv)");
    if (!parse_nccl_tests_size(min_s, o.min_bytes))
      throw UserError({"-b", 1, 1}, "bad size '" + min_s + "' (expected e.g. 8, 128K, 1M, 1G)");
    if (!parse_nccl_tests_size(max_s, o.max_bytes))
      throw UserError({"-e", 1, 1}, "bad size '" + max_s + "' (expected e.g. 8, 128K, 1M, 1G)");
    if (o.max_bytes < o.min_bytes)
      throw UserError({"-e", 1, 1}, "the largest size is smaller than the smallest (expected -e MAX >= -b MIN)");
    o.factor = factor;
    LoadedScenario scenario = load_scenario(path, sets);
    if (gpus > 1) scenario.spec.placement.single_process = true;
    // The measured file before any work: an empty or wrong one fails before the table is printed.
    const NcclTestsFile measured = compare.empty() ? NcclTestsFile{} : read_nccl_tests_output(compare, "--compare");
    models::calibrate::NcclTestsResult result;
    try {
      result = models::calibrate::run_nccl_tests(scenario.spec, o);
    } catch (const models::SpecError& e) {
      throw scenario.to_user_error(e);
    }
    std::fputs(models::calibrate::format_nccl_tests(result, o).c_str(), stdout);
    if (compare.empty()) return 0;

    const auto& runs = measured.runs;
    std::printf("\n# Prediction vs measurement (%s): time per size, error = predicted / measured - 1\n",
                compare.c_str());
    std::printf("#%11s  %10s  %10s  %8s  %6s %-6s\n", "size (B)", "meas (us)", "pred (us)", "error", "algo", "proto");
    std::vector<double> errs;
    for (const auto& run : runs)
      for (const auto& m : run.rows) {
        auto it =
            std::find_if(result.rows.begin(), result.rows.end(), [&](const auto& r) { return r.size == m.size_bytes; });
        if (it == result.rows.end()) continue;
        const double meas = m.ip ? std::min(m.oop.time_us, m.ip->time_us) : m.oop.time_us;  // noise only adds time
        const double err = it->best_time_us() / meas - 1;
        errs.push_back(std::fabs(err));
        std::printf("%12lld  %10.2f  %10.2f  %+7.1f%%  %6s %-6s\n", static_cast<long long>(m.size_bytes), meas,
                    it->best_time_us(), err * 100, it->algo.c_str(), it->proto.c_str());
      }
    if (!errs.empty()) {
      std::sort(errs.begin(), errs.end());
      const double median =
          errs.size() % 2 ? errs[errs.size() / 2] : 0.5 * (errs[errs.size() / 2 - 1] + errs[errs.size() / 2]);
      std::printf("# %zu sizes compared: median |error| %.1f %%, max |error| %.1f %%\n", errs.size(), median * 100,
                  errs.back() * 100);
    }
    return 0;
  });
}

}  // namespace scenarios
