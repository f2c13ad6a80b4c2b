#pragma once
// Parser for the output of NVIDIA's nccl-tests (all_reduce_perf, all_gather_perf, ...).
// Columns are matched by NAME from the header line, so both layouts parse:
//   2.x:  size count type redop root time algbw busbw #wrong time algbw busbw #wrong
//   old:  size count type redop      time algbw busbw error  time algbw busbw error
// The first time/algbw/busbw/wrong group is out-of-place, the second in-place. `-C 1`
// (report_cputime) names the time columns `cputime` (JSON: "cpu_time"), and `-R 1`
// (report_timestamps) adds a last column `timestamp` whose value holds a blank ("2025-01-02
// 03:04:05"); both parse (see NcclTestsRun::cputime for what a cputime column holds). NCCL INFO lines
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
  double time_us = 0;      // the collective's time; for a cputime run, size / algbw (NcclTestsRun::cputime)
  double cpu_time_us = 0;  // a cputime run's printed value (the host's launch time); 0 otherwise
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
  // The time a row of a run on `ranks` ranks is compared by: the faster column (noise only adds
  // time), but out of place on one rank, where in place is no work at all.
  double compared_time_us(int ranks) const {
    return ip && ranks != 1 && ip->time_us < oop.time_us ? ip->time_us : oop.time_us;
  }
};

struct NcclTestsRun {
  std::string source;   // file name
  std::string op;       // "all_reduce" (from "all_reduce_perf"); "" when not printed
  std::string version;  // nccl-tests version line, if any
  int nthreads = 1;
  int ngpus = 1;                   // GPUs per thread
  int ranks = 0;                   // "#  Rank  N Group ..." lines, else nthreads * ngpus above 1 where
                                   // the "# nThread" header was read; 0: unknown (a bare table, or
                                   // one GPU per process without Rank lines)
  bool header = false;             // the "# nThread N nGpus N ..." line was read
  int processes = 0;               // distinct Pid values of the Rank lines (0 when unknown)
  std::vector<std::string> hosts;  // distinct hosts of the Rank lines
  std::vector<std::string> gpus;   // distinct GPU models of the Rank lines ("NVIDIA H200"), after "[bus id]"
  std::optional<int64_t> min_bytes, max_bytes;
  std::optional<int> iters;
  std::vector<std::string> columns;  // the header's column names, in order
  // The time columns were nccl-tests' `cputime` (-C 1). nccl-tests prints there the host's time to
  // launch one iteration, taken before the stream is synchronized, while algbw and busbw still come
  // from the time to completion (src/common.cu, BenchTime: `cputimeSec = tim.elapsed()/iters` ahead
  // of completeColl, `deltaSec` after it; getBw(..., deltaSec, ...); `timeUsec = report_cputime ?
  // cputimeSec : deltaSec`). The collective's time is then t = size / algbw, which `time_us` holds
  // (cputime_time_us); the printed value is in `cpu_time_us`. A text row whose printed algbw (two
  // decimals) gives t to worse than 0.5 % (algbw below 1 GB/s) cannot be read so: it is left out
  // of `rows` and its line is listed in `coarse_lines`.
  bool cputime = false;
  std::vector<int> coarse_lines;
  std::vector<NcclTestsRow> rows;
  std::optional<double> avg_busbw_gbs;
};

// The collective's time (us) of a cputime row, t = size / algbw (NcclTestsRun::cputime); 0 when
// algbw is 0.
double cputime_time_us(int64_t size_bytes, double algbw_gbs);

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
