#pragma once
// Reader of NCCL Inspector's output (the profiler plugin of NVIDIA/nccl,
// plugins/profiler/inspector; inspector_json.cc, output format "v4.0"): JSON lines, one completed
// operation per line,
//   {"header": {"id", "comm_name", "rank", "n_ranks", "nnodes"},
//    "metadata": {"inspector_output_format_version", "hostname", "pid", ...},
//    "coll_perf": {"coll", "coll_sn", "coll_msg_size_bytes", "coll_exec_time_us",
//                  "coll_timing_source", "coll_algobw_gbs", "coll_busbw_gbs"}}
// or "p2p_perf" with the p2p_ keys and "p2p_peer". Empty lines are skipped; the verbose mode's
// "event_trace_*" members are ignored. One row per line. A malformed line throws
// models::ParseError at FILE:LINE:COL naming the JSON path ("coll_perf.coll_exec_time_us: ...").
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace models::readers {

struct InspectorRow {
  std::string comm_id, comm_name;
  int rank = 0, n_ranks = 0, nnodes = 0;
  std::string op;            // "AllReduce", "AllGather", "ReduceScatter", ... or "Send", "Recv" (p2p)
  bool p2p = false;
  int peer = -1;             // p2p only
  uint64_t sn = 0;           // sequence number within the communicator
  int64_t bytes = 0;         // message size as Inspector counts it (coll_msg_size_bytes): count x type size
                             // of the NCCL call, per rank for AllGather (sendcount) and ReduceScatter (recvcount)
  // The size by nccl-tests' convention (its `size` column: the whole buffer). Inspector's own
  // bandwidth (NVIDIA/nccl ext-profiler/inspector/inspector.cc, inspectorComputeCollBw) takes
  // trafficSize = msgSizeBytes x nranks for ncclFuncAllGather and ncclFuncReduceScatter and
  // msgSizeBytes for the others (AllReduce, Broadcast, Reduce, Send, Recv), as nccl-tests' size:
  // total_bytes = bytes x n_ranks for "AllGather" and "ReduceScatter", bytes otherwise.
  int64_t total_bytes = 0;
  double exec_s = 0;         // coll_exec_time_us
  std::string timing;        // kernel_gpu, kernel_cpu, collective_cpu ("" when absent)
  double algbw_gbs = 0, busbw_gbs = 0;
  int line = 0;
};

std::vector<InspectorRow> parse_nccl_inspector(std::string_view text, const std::string& source);
// Reads one or more files (Inspector writes one per process); rows in file order.
std::vector<InspectorRow> read_nccl_inspector_files(const std::vector<std::string>& paths);

// Whether `text`'s first object looks like Inspector output (a "header" and a "coll_perf" or
// "p2p_perf" member on the first non-empty line).
bool looks_like_nccl_inspector(std::string_view text);

// The collective in nccl-tests' and commsim's naming: "AllReduce" -> "all_reduce"; "" if unknown.
std::string inspector_op_name(const std::string& op);

}  // namespace models::readers
