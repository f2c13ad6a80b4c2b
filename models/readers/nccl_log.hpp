#pragma once
// What a real NCCL debug log (NCCL_DEBUG=INFO) says about a job: version, communicators, channels,
// rings and trees, the transport chosen per peer and channel, the network plugin, GDR, variables
// set by the environment or by a plugin, init timings, the tuning tables and the algorithm/protocol
// NCCL picked per size. Filled by parse_nccl_log (nccl_log.cpp); explained by diagnose_log
// (models/nccl/diagnosis.hpp). Line numbers are 1-based lines of the file, for messages.
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace models::readers {

// "Channel 00/0 : 3[0] -> 0[0] [receive] via NET/Libfabric/0/GDRDMA"
struct LogTransport {
  int channel = 0;
  int from_rank = 0;
  int to_rank = 0;
  std::string from_dev, to_dev;  // the bracketed device (local CUDA device or busId)
  std::string direction;         // "send", "receive" or "" (P2P/SHM lines have none)
  std::string via;               // as logged: "NET/Libfabric/0/GDRDMA", "P2P/CUMEM/read"
  std::string kind;              // normalised: "NET/Libfabric/GDRDMA", "NET/Socket", "P2P/CUMEM/read"
  int line = 0;
};

// "comm 0x... rank 0 nRanks 4 nNodes 4 localRanks 1 localRank 0 MNNVL 0" (2.20+), or in older versions
// "comm 0x... rank 0 nranks 4 cudaDev 0 busId 101c0 - Init COMPLETE" (nnodes, local_ranks from hosts)
struct LogComm {
  std::string host;
  int pid = -1;
  std::string comm;  // the communicator's address in that process
  int rank = 0, nranks = 0, nnodes = 0, local_ranks = 0, local_rank = 0;
  int line = 0;
};

// "24 coll channels, 24 collnet channels, 0 nvls channels, 32 p2p channels, 32 p2p channels per peer"
struct LogChannels {
  int coll = 0, collnet = 0, nvls = 0, p2p = 0, p2p_per_peer = 0;
  int line = 0;
};

// "NCCL_BUFFSIZE set by environment to 8388608." or "NET/OFI Adding NCCL_PROTO=simple to environment"
struct LogEnvVar {
  std::string name, value;
  std::string source;  // "environment" or the plugin that added it ("NET/OFI")
  int line = 0;
};

// "Init timings - ncclCommInitRankConfig: rank 0 nranks 4 total 59.98 (kernels 0.13, ..., bootstrap 59.83, ...)"
struct LogInitTiming {
  std::string function;
  int rank = 0, nranks = 0;
  double total_s = 0;
  std::map<std::string, double> parts_s;
  int line = 0;
};

// "Channel 00/02 : 0 1 2 3": the ring order of one channel.
struct LogRing {
  int channel = 0;
  int nchannels = 0;
  std::vector<int> ranks;
};

// One "[c] d0/d1/d2->rank->up" entry of a "Trees" line (-1: none).
struct LogTree {
  int channel = 0;
  int rank = 0;
  int up = -1;
  std::vector<int> down;
};

// One cell of the tuning table: "AllReduce | 10.4/ 43.6 | ..." = latency us / bandwidth GB/s.
struct LogTuningCell {
  std::string function, algo, proto;
  double latency_us = 0, bandwidth_gbs = 0;
};

// "Enabled NCCL Func/Proto/Algo Matrix:" (NCCL 2.27+), per function the enabled protos and algos.
struct LogEnabledRow {
  std::string function;
  std::map<std::string, bool> protos, algos;
};

// "AllReduce: 1048576 Bytes -> Algo RING proto SIMPLE channel{Lo..Hi}={0..23}"
struct LogAlgoChoice {
  std::string function;
  long long bytes = 0;
  std::string algo, proto;
  int channels = 0;
};

struct NcclLogReport {
  std::string source;
  int nccl_lines = 0;              // lines carrying an NCCL message
  int other_lines = 0;             // everything else (the program's own output)
  std::string nccl_version;        // "2.27.3+cuda12.9"
  std::vector<std::string> hosts;  // distinct host names of the prefixes
  int processes = 0;               // distinct host:pid

  std::vector<LogComm> comms;  // one per (process, communicator)
  // The job's main communicator (the first with the most ranks); 0 when no comm line was seen.
  // nnodes and local_ranks stay 0 when only an older log's "Init COMPLETE" lines exist and they
  // do not show every rank of that communicator (see node_layout_from_hosts).
  int nranks = 0, nnodes = 0, local_ranks = 0;
  // Older NCCL versions print no "nRanks N nNodes M localRanks L" line: the comms then come from
  // "comm 0x... rank R nranks N cudaDev D ... - Init COMPLETE", and nNodes/localRanks from the
  // hosts of the main communicator's ranks (ranks_seen of nranks found in the log).
  bool node_layout_from_hosts = false;
  int ranks_seen = 0;

  std::vector<LogChannels> channels;
  std::vector<LogRing> rings;
  std::vector<LogTree> trees;
  std::vector<LogTransport> transports;        // deduplicated
  std::map<std::string, int> transport_kinds;  // kind -> number of (deduplicated) connections

  // Network and plugin.
  std::string net_plugin_requested;  // "libnccl-net.so" (NCCL_NET_PLUGIN / "Plugin name set by env")
  std::string net_plugin_loaded;     // "Libfabric (v10)"
  std::string ofi_version;           // "aws-ofi-nccl 1.16.2"
  std::string ofi_provider;          // "efa" (from "Selected provider is efa")
  std::optional<int> ofi_nics;
  bool plugin_failed = false;               // the external network plugin did not initialise
  std::vector<std::string> plugin_failure;  // the lines that say why
  std::string network;                      // "Socket", "Libfabric", "IB" (from "Using network X")
  std::string platform;                     // "p4d.24xlarge" (aws-ofi-nccl's platform line)
  std::string topo_file;
  std::string forced_protocol_reason;  // "byte delivery ordering not supported"

  std::vector<int> gdr;                // values of "Connected all rings, use ring PXN p GDR g"
  std::optional<bool> all_direct_p2p;  // "Check P2P Type isAllDirectP2p 1 directMode 0"
  std::optional<bool> direct_mode;

  std::vector<LogEnvVar> env;  // first occurrence of each variable
  std::vector<LogInitTiming> init_timings;
  std::optional<double> bootstrap_total_s;  // largest "Bootstrap timings total"
  std::optional<double> bootstrap_recv_s;

  std::vector<LogTuningCell> tuning;        // first table seen
  std::vector<LogEnabledRow> enabled;       // first matrix seen
  std::vector<LogAlgoChoice> algo_choices;  // one per (function, bytes), first seen

  std::vector<std::string> warnings;  // NCCL WARN messages

  // Training-framework lines found among the program output (Hugging Face Trainer, DeepSpeed).
  std::optional<long long> trainable_parameters;
  std::optional<int> micro_batch, grad_accum, total_steps;
  bool deepspeed_zero3 = false;
  bool deepspeed_offload = false;  // optimizer states offloaded to the CPU

  const LogEnvVar* find_env(std::string_view name) const {
    for (const auto& e : env)
      if (e.name == name) return &e;
    return nullptr;
  }
};

// Parses a whole log. Throws models::ParseError (file:line:col) on binary data, on a key line
// that is cut short or garbled, and on a file with no NCCL message at all.
NcclLogReport parse_nccl_log(std::string_view text, const std::string& source);
NcclLogReport parse_nccl_log_file(const std::string& path);

}  // namespace models::readers
