#pragma once
// Shared by `commsim nccl-tests` and `commsim calibrate`: nccl-tests' size syntax, and what a
// real nccl-tests output file tells about the run (single process, NCCL variables set).
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "models/readers/nccl_tests_output.hpp"
#include "models/spec.hpp"
#include "scenarios/load/loader.hpp"

namespace scenarios {

// A real nccl-tests output given to --compare, --measured or calibrate (`option`, for messages):
// read as a regular file (input_file.hpp), parsed, and refused at PATH:1:1 when it holds no
// measured row (an empty file, a log of something else). Returns its text and its runs.
struct NcclTestsFile {
  std::string text;
  std::vector<models::readers::NcclTestsRun> runs;
};
NcclTestsFile read_nccl_tests_output(const std::string& path, const std::string& option);

// nccl-tests sizes: "8", "128K", "1M", "1G" (binary multiples, as nccl-tests parses them).
bool parse_nccl_tests_size(const std::string& text, int64_t& bytes);

// NCCL variables that change transports or tuning, from "NCCL_X set by environment to Y" lines, or
// from the "env" list of nccl-tests' -J JSON ("NCCL_X=Y"). `at` (when given) receives where each
// value was written in `path` (the line that set it last, at the value).
std::map<std::string, std::string> nccl_env_from_log(const std::string& text, const std::string& path = "",
                                                     std::map<std::string, SourcePos>* at = nullptr);

// Checks a run's NCCL variables (the scenario's with the run's over them) as the World will; a
// refused variable that `at` places (a measured file's line, a FILE:VAR=VAL argument) is a
// UserError there. A refused variable of the scenario's own is left for the scenario to report.
void check_run_nccl_env(const std::map<std::string, std::string>& env, const std::map<std::string, SourcePos>& at);

// The NCCL release a measured file states: nccl-tests' header ("nccl-library=22809", text and -J
// JSON) or NCCL's INFO banner ("NCCL version 2.28.9+cuda13.0"); number 0 when none is printed.
// The number is nccl.version's (models/nccl/tuner_tables.hpp), possibly outside its tables.
struct StatedNcclVersion {
  int number = 0;
  std::string text;  // "2.28.9"
};
StatedNcclVersion stated_nccl_version(const NcclTestsFile& file);
// The release to simulate `file` with (0: none) and, when it states one outside the tuner tables,
// a note for the user saying that the default tunes it instead.
int usable_nccl_version(const NcclTestsFile& file, const std::string& name, std::string* note);

// Applies what the run shows to a scenario: one process driving every GPU (nccl-tests -g N),
// the NCCL variables it ran with, and the release it printed (`version`, 0: none).
void apply_run_to_spec(const models::readers::NcclTestsRun& run, const std::map<std::string, std::string>& env,
                       int version, models::ScenarioSpec& spec);

// Where a table names its collective ("# Collective test starting: alltoall_perf"), else PATH:1:1.
SourcePos collective_line(const std::string& text, const std::string& path);

// Where a file states its rank count: the first "#  Rank N ..." line (at "Rank"), else the
// "# nThread N nGpus N" header (at "nThread"), else the -J JSON's "devices" list; else PATH:1:1.
SourcePos nccl_tests_rank_line(const std::string& text, const std::string& path);

// Lays `spec` out on the ranks `run` shows (its "# Rank" lines, else nThread x nGpus), so that a
// fit uses the file's ring and bus-bandwidth factor, not the scenario's: fewer ranks on one host
// become the node's first GPUs in one pod (placement.gpus_per_pod, nodes = 1, as nccl-tests -g N
// or mpirun -np N picks devices 0..N-1); whole nodes of the scenario's layout become
// cluster.nodes. Returns a note saying what changed ("" when the counts agree or the file gives
// none); any other layout (several hosts that do not tile as the scenario's nodes, a mixed cluster)
// is a UserError at the file's rank line saying what to set.
std::string adopt_run_ranks(const NcclTestsFile& file, const models::readers::NcclTestsRun& run,
                            const std::string& path, models::ScenarioSpec& spec);

}  // namespace scenarios
