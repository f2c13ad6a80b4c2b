#pragma once
// nccl-tests emulation: predicts what `<op>_perf -b MIN -e MAX -f FACTOR` would print on the
// scenario's machine, by replaying each size on the flow network (idle links) and timing it as
// nccl-tests does: a back-to-back loop, where host issue and device work overlap
// (LinkParams::loop_time).
#include <cstdint>
#include <string>
#include <vector>

#include "models/nccl/ops.hpp"
#include "models/spec.hpp"

namespace models::calibrate {

struct NcclTestsOptions {
  nccl::CollOp op = nccl::CollOp::AllReduce;
  int64_t min_bytes = 8;
  int64_t max_bytes = 1 << 30;
  double factor = 2;       // -f
  int64_t step_bytes = 0;  // -i (used when factor <= 1)
  int type_size = 4;       // float
  std::string type = "float";
  std::string redop = "sum";
  int root = 0;
  int iters = 20;
  // The communicator: World ranks in communicator order (one group of a step, as the report's
  // curves replay it); empty: every rank of the scenario, as nccl-tests run over the cluster.
  std::vector<int> ranks;
};

struct NcclTestsRow {
  int64_t size = 0;      // bytes, nccl-tests convention
  int64_t count = 0;     // elements one rank passes (nccl-tests' count column: size / ranks for gathers)
  double time_us = 0;    // predicted per-iteration time, out of place
  double device_us = 0;  // device time alone (without host issue bound), out of place
  double algbw_gbs = 0, busbw_gbs = 0;
  double ip_time_us = 0;  // in place (differs for all_gather: no local copy; see models/collectives/copy_work.hpp)
  double ip_algbw_gbs = 0, ip_busbw_gbs = 0;
  // The faster of the two columns, as a measured row is compared (noise only adds time).
  double best_time_us() const { return ip_time_us > 0 && ip_time_us < time_us ? ip_time_us : time_us; }
  // The column a measured row of `ranks` ranks is compared with: the faster, but out of place on one
  // rank, where in place is no work at all and the measured side takes out of place too.
  double compared_time_us(int ranks) const { return ranks == 1 ? time_us : best_time_us(); }
  std::string algo, proto;
  int channels = 0;
};

struct NcclTestsResult {
  std::vector<NcclTestsRow> rows;
  int nranks = 0;
  std::string gpu_name;
  std::string network_note;             // World::network_note: what the model leaves out of the network
  std::string nvlink_note;              // World::nvlink_note: ... of an NVLink domain across hosts
  std::string host_loop_note;           // the sizes bound by the host's loop, where its cost is a default
  std::vector<std::string> rank_lines;  // "#  Rank  0 Group  0 Pid ... device  0 [...] NVIDIA H200"
  std::vector<std::string> link_classes;  // of the pairs of consecutive ranks ("nvlink", "efa"), each once
  double avg_busbw_gbs = 0;
};

double bus_factor(nccl::CollOp op, int n);
std::vector<int64_t> nccl_tests_sizes(const NcclTestsOptions& o);
// Runs the sweep; throws SpecError for a scenario the models cannot build.
NcclTestsResult run_nccl_tests(const ScenarioSpec& spec, const NcclTestsOptions& options);
// The rows of `sizes` (any order, repeats allowed; rows in the same order): one sweep where the
// sizes are nccl-tests' doubling from the first to the last (the common -f 2), else a run per size.
// `link_classes`, where given, receives the run's NcclTestsResult::link_classes.
std::vector<NcclTestsRow> run_nccl_tests_at(const ScenarioSpec& spec, nccl::CollOp op,
                                            const std::vector<int64_t>& sizes,
                                            std::vector<std::string>* link_classes = nullptr);
// The table exactly as nccl-tests prints it (same header lines, columns, units, footer).
std::string format_nccl_tests(const NcclTestsResult& r, const NcclTestsOptions& o);

// A time column as nccl-tests prints it (microseconds, 7 wide, fewer decimals as it grows).
std::string nccl_tests_time(double us);

}  // namespace models::calibrate
