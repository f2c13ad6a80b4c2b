#pragma once
// Parser for the output of NVIDIA's nccl-tests (all_reduce_perf, all_gather_perf, ...).
// Columns are matched by NAME from the header line, so both layouts parse:
//   2.x:  size count type redop root time algbw busbw #wrong time algbw busbw #wrong
//   old:  size count type redop      time algbw busbw error  time algbw busbw error
// The first time/algbw/busbw/wrong group is out-of-place, the second in-place. NCCL INFO lines
// may be interleaved anywhere, even in the middle of a row (stdout and stderr sharing a terminal,
// as in scenarios/validation/h200x4/measured/nccl-tests/ar_g4_info.txt): they are cut out and the row's
// values are joined across lines. One file may hold several runs ("# Collective test starting").
// Malformed or truncated tables throw models::ParseError with the line and column.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace models::readers {

struct NcclTestsResult {
  double time_us = 0;
  double algbw_gbs = 0;  // GB/s (1e9 bytes/s), as nccl-tests prints it
  double busbw_gbs = 0;
  std::optional<int64_t> wrong;     // "#wrong": empty when nccl-tests printed N/A (validation off)
  std::optional<double> max_error;  // old builds' "error" column (largest deviation found)
};

struct NcclTestsRow {
  int64_t size_bytes = 0;
  int64_t count = 0;
  std::string type;                   // float, half, bfloat16, ...
  std::string redop;                  // sum, none, ...
  std::optional<int> root;            // empty when the layout has no root column
  NcclTestsResult oop;                // out-of-place
  std::optional<NcclTestsResult> ip;  // in-place (absent when the table has one group only)
  int line = 0;                       // where the row starts
};

struct NcclTestsRun {
  std::string source;   // file name
  std::string op;       // "all_reduce" (from "all_reduce_perf"); "" when not printed
  std::string version;  // nccl-tests version line, if any
  int nthreads = 1;
  int ngpus = 1;                   // GPUs per thread
  int ranks = 0;                   // "#  Rank  N Group ..." lines, else nthreads * ngpus where the
                                   // "# nThread" header was read; 0: unknown (a bare table)
  bool header = false;             // the "# nThread N nGpus N ..." line was read
  int processes = 0;               // distinct Pid values of the Rank lines (0 when unknown)
  std::vector<std::string> hosts;  // distinct hosts of the Rank lines
  std::vector<std::string> gpus;   // distinct GPU models of the Rank lines ("NVIDIA H200"), after "[bus id]"
  std::optional<int64_t> min_bytes, max_bytes;
  std::optional<int> iters;
  std::vector<std::string> columns;  // the header's column names, in order
  std::vector<NcclTestsRow> rows;
  std::optional<double> avg_busbw_gbs;
};

// Parses one file's text (nccl-tests' JSON, -J, when it starts with '{': nccl_tests_json.hpp). Throws models::ParseError (file:line:col) on a malformed table.
std::vector<NcclTestsRun> parse_nccl_tests(std::string_view text, const std::string& source);

// Whether a GPU product name as nvidia-smi and nccl-tests' "# Rank" lines print it ("NVIDIA
// A100-SXM4-80GB", "NVIDIA H100 80GB HBM3") names the catalog GPU `catalog_name` ("A100-80GB",
// "H100"): the family ("A100") must be one of its words (split at spaces and '-'), and a memory
// size in both ("80GB") must agree. Case is ignored.
bool gpu_product_matches(std::string_view product, std::string_view catalog_name);

// Reads and parses several files; runs come back in file order. A missing file is a ParseError.
std::vector<NcclTestsRun> parse_nccl_tests_files(const std::vector<std::string>& paths);

}  // namespace models::readers
