#pragma once
// What `commsim nccl-tests` prints: nccl-tests' own table (header, "Using devices", the size
// rows, the footer) laid out as the run it predicts would print it. One process per GPU unless
// the scenario or -t/-g say otherwise, so a multi-node prediction looks like an `mpirun` run:
// "nThread 1 nGpus 1", one Pid per rank, each rank on its node; with -g N (or
// placement.single_process) one Pid drives the GPUs of a pod. -d all / -o all repeat the size
// sweep per data type and reduction, as nccl-tests does.
#include <string>
#include <vector>

#include "models/calibrate/nccl_tests.hpp"
#include "models/spec.hpp"
#include "scenarios/cli/output/result_schema.hpp"

namespace scenarios {

// nccl-tests' data types (-d) and their sizes; "all" runs the classic ten.
struct NcclDataType {
  const char* name;
  int size;
};
const std::vector<NcclDataType>& nccl_data_types();
// Reductions (-o); "all" runs every one.
const std::vector<std::string>& nccl_redops();

// The header values nccl-tests prints from its command line.
struct NcclTestsHeader {
  int threads = 1, gpus = 1;  // -t, -g (nGpus per thread)
  int warmup_iters = 1, iters = 20, agg_iters = 1, check = 1, graph = 0, cycles = 1;
  bool blocking = false, parallel_init = false, cputime = false;
};

// One rank as the "Using devices" lines show it.
struct NcclTestsRank {
  int rank = 0, pid = 0, device = 0, bus = 0;
  int pod = 0;
  std::string host;  // node0, node1, ...
};
// Ranks of the scenario's machine (device: the GPU's index in its pod, bus: on its node). Throws
// SpecError as World::build does.
std::vector<NcclTestsRank> nccl_tests_ranks(const models::ScenarioSpec& spec);
// One process (Pid) per `gpus_per_process` GPUs of a pod: 1 is one per GPU, as mpirun -np <ranks>.
void assign_processes(std::vector<NcclTestsRank>& ranks, int gpus_per_process);
// GPUs in the first pod.
int gpus_per_pod(const std::vector<NcclTestsRank>& ranks);

// One size sweep for one (type, reduction).
struct NcclTestsPass {
  models::calibrate::NcclTestsOptions options;
  models::calibrate::NcclTestsResult result;
};

struct NcclTestsTable {
  NcclTestsHeader header;
  std::vector<NcclTestsRank> ranks;
  std::vector<NcclTestsPass> passes;
  std::string gpu;
  double avg_busbw_gbs() const;
};

// The table as nccl-tests prints it.
std::string format_nccl_tests_table(const NcclTestsTable& table);
// `nccl-tests --json`: the same content (docs/result.schema.json, command "nccl-tests").
Json nccl_tests_table_json(const NcclTestsTable& table, const CommandInputs& inputs);

}  // namespace scenarios
