#pragma once
// NCCL's example tuner plugin (NVIDIA/nccl ext-tuner/example, plugins/tuner/example from 2.29.7):
// the tuner NCCL ships as source, which users build into libnccl-tuner-example.so and load with
// NCCL_TUNER_PLUGIN=example (src/plugin/plugin_open.cc tries libnccl-tuner-<name>.so). What it
// does, read from its plugin.c at each release:
//   - 2.19 to 2.27.3: every collective gets Ring/Simple (cost 0 in NCCL's table where NCCL has it)
//     and 1 channel.
//   - from 2.27.5: a CSV file (NCCL_TUNER_CONFIG_FILE, else nccl_tuner.conf in the working folder),
//     one row per line: coll,min_bytes,max_bytes,algorithm,protocol,channels,nNodes,nRanks
//     [,numPipeOps[,regBuff]]. The first row that matches the collective (its NCCL name, its size
//     as nccl-tests counts it: ncclFuncMaxSendRecvCount x the type's size, both bounds inclusive,
//     the communicator's nodes and ranks, -1 any) and whose algorithm/protocol NCCL has not marked
//     unusable gets cost 0; the channels are the row's. Before matching, the plugin sets the
//     channels to 1 (`*nChannels = 1`), and NCCL keeps any non-zero answer
//     (src/enqueue.cc getAlgoInfo), so a collective no row matches, and a row whose channels are
//     -1 (its README: "keep NCCL's default"), run on ONE channel; 0 keeps NCCL's own count.
//   - from 2.28.3 (tuner API v5) its init also rewrites three of NCCL's constants, Blackwell at the
//     scale of 3+ nodes: perChMaxTreeBws 15 GB/s, perChMaxRingLL128Bws 20 GB/s, and the network
//     latency of NVLS (hwLatencies[NET][NVLS][Simple]) 24 us (tuner_tables.hpp applies them).
// A collective here is one call (numPipeOps 1) on unregistered buffers (regBuff 0): rows that ask
// for other values never match, as in a run without grouped collectives or CUDA graphs.
//
// The plugin reads its file leniently (names by strcmp, numbers by atoi and strtoull, commas by
// strtok): "Tree" becomes ring, "1M" 1, an empty field shifts the others, a short line is skipped.
// commsim refuses each of those at its line and column, saying what the plugin would have read,
// since the run it describes did something the file's author did not mean.
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "models/nccl/ops.hpp"

namespace models::nccl {

struct ExampleTunerRow {
  CollOp op = CollOp::AllReduce;
  int64_t min_bytes = 0, max_bytes = 0;  // inclusive
  Algo algo = Algo::Ring;
  Proto proto = Proto::Simple;
  int channels = -1;  // -1: the plugin's 1; 0: NCCL's own count
  int nodes = -1, ranks = -1, pipe_ops = -1, reg_buff = -1;
  int line = 0;  // in the file, 1-based
};

// Parses the plugin's CSV; throws models::ParseError(file, line, col) where the plugin would
// misread or skip a line.
std::vector<ExampleTunerRow> parse_example_tuner_config(const std::string& text, const std::string& file);

// Whether NCCL_TUNER_PLUGIN's value loads the example plugin: "example" or a path whose file name
// is libnccl-tuner-example.so.
bool names_example_tuner(const std::string& tuner_plugin_value);

// Releases: the example plugin exists from 2.19.1, reads its CSV from 2.27.5 and sets NCCL's
// constants from 2.28.3.
inline constexpr int kExampleTunerSince = 21901, kExampleTunerCsvSince = 22705, kExampleTunerConstantsSince = 22803;

// The plugin's answer for one collective: an algorithm and protocol (nullopt: NCCL's own) and the
// channels NCCL then keeps (0: NCCL's own count). `usable(algo, proto)` says whether NCCL's table
// holds that combination.
struct ExampleTunerChoice {
  std::optional<Algo> algo;
  Proto proto = Proto::Simple;
  int channels = 1;
  int row_line = 0;  // the row that matched (0: none)
};
ExampleTunerChoice example_tuner_choice(const std::vector<ExampleTunerRow>& rows, int nccl_version, int nranks,
                                        int nnodes, CollOp op, int64_t bytes,
                                        const std::function<bool(Algo, Proto)>& usable);

// The run's note where [nccl.env] loads the example plugin or names its file: what it reads and
// the one-channel default; nullopt where neither is set.
std::optional<std::string> example_tuner_note(const std::map<std::string, std::string>& env, int nccl_version);

}  // namespace models::nccl
