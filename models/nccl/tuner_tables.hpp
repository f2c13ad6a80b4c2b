#pragma once
// NCCL's tuner constants and rules by release: what ncclTopoTuneModel (src/graph/tuning.cc) used
// from NCCL 2.17 to 2.30, so a run is tuned as its own NCCL tuned it (`nccl.version`). Each row
// is the release that first carried its values, read from NVIDIA/nccl's tagged sources; a
// version takes the last row at or before it. Only what tuning.cpp uses is here: the latency
// tables, the per-channel ceilings, and the rules that changed between releases. The NVLS and
// NVLSTree bandwidth formulas, the graph search and the enqueue rules stay 2.28's.
#include <string>

namespace models::nccl {

// A release as one number: 2.17.1 -> 21701 (NCCL's own NCCL_VERSION_CODE since 2.9).
constexpr int nccl_version_number(int minor, int patch) { return 20000 + minor * 100 + patch; }
// Whether the tables hold `version`'s release (2.17 to 2.30).
constexpr bool nccl_version_in_tables(int version) {
  return version >= nccl_version_number(17, 0) && version < nccl_version_number(31, 0);
}
// What the model follows when a scenario names no version: the newest release it has read.
inline constexpr int kDefaultNcclVersion = nccl_version_number(30, 7);
// The release a run follows: `version`, or the default where it is 0 (not given).
constexpr int nccl_release_or_default(int version) { return version > 0 ? version : kDefaultNcclVersion; }

struct TunerTables {
  int since = 0;  // the first release with these values
  // baseLatencies [Tree, Ring, PAT][LL, LL128, Simple], us.
  double base_lat[3][3] = {};
  // hwLatencies [NVLINK, PCI, NET][Tree, Ring, PAT][LL, LL128, Simple], us.
  double hw_lat[3][3][3] = {};
  // NVLS and NVLSTree (Simple) base + NVLINK latency, and NET latency, us.
  double nvls_intra_lat = 0, nvls_inter_lat = 0, nvls_tree_intra_lat = 0, nvls_tree_inter_lat = 0;
  // [Volta, Ampere, Hopper, Blackwell][1 node, 2 nodes, more], GB/s. Before Blackwell had rows
  // of its own (2.25) its GPUs read Hopper's (compCapIndex stopped at Hopper).
  double ll_max_bw[4][3] = {};
  double ring_ll128_per_ch[4][3] = {};
  double tree_ll128_per_ch[4][3] = {};
  double tree_per_ch[4][3] = {};
  double nvls_tree_per_ch[4][3] = {};  // 0: no ceiling (before 2.28)
  // Rules.
  bool busbw_gpu_cap = false;         // 2.17: busBw at most 235 GB/s on Ampere, 370 on Hopper
  bool ring_ll_quarter = false;       // to 2.20: Ring/LL busBw x 1/4 (1/3 for all-gather etc. on one node), later x 1/2
  bool ll_intra_slower = false;       // 2.17: an LL intra-node step x 1.8 across nodes
  bool plugin_lat_replaces = false;   // 2.17: the net plugin's latency replaces NCCL's NET row, no flush term
  bool net_overhead = false;          // 2.18 on: an inter-node ring's intra steps cost the network overhead
  // Ring/Simple all-reduce across nodes, latency x plateau (ncclTopoGetAlgoTime): 2.17 x 1.5 on
  // Hopper (1.9 before) from nRanks/16 x 64 KiB; 2.18 on x 1.4 (1.9 before Ampere) from 64 B per
  // channel and rank.
  int ring_plateau = 17;
  bool ring_inter_steps_all_nodes = false;  // to 2.22: an inter-node ring all-reduce counts 2 nNodes network steps
  bool tree_pattern_factor = false;   // 2.19 on: an inter-node tree's busBw x 0.85
  bool ll128_ppn_discount = false;    // to 2.22: Ring/LL128 x 0.7 instead of 0.92 with fewer than 2 ranks per node
  bool ppn1_tree_lat = false;         // 2.23 on: one rank per node takes the Tree's NET row
  double pat_factor = 0;              // PAT's busBw factor: none before 2.23, 0.85 in 2.23, 0.75 from 2.24
  // 2.23: no PAT by default over a net plugin that offloads to the device (ncclPatEnable reads
  // comm->netDeviceType, which src/graph/topo.cc set from the plugin); from 2.24 nothing sets it.
  bool pat_host_net_only = false;
  bool nvls_tree_correction = false;  // 2.29 on: the tree correction table on NVLSTree too (Blackwell, x86 hosts)
  // NVLS's and NVLSTree's bandwidth rules by era (tuning.cc): 17 (NVLS busBw x 0.75), 18 (NVLSTree
  // busBw x 0.70 n/(2(n-1))), 19 (NVLS min(bwIntra, bwInter), NVLSTree min(bwIntra, bwInter, /2
  // beyond two nodes), both x 5/6), 27 (NVLS all-gather/reduce-scatter min(bwIntra (ppn-1)/ppn,
  // 0.9 bwInter)), 28 (nvlsEfficiency, two operations pipelined, per-channel ceilings).
  int nvls_era = 28;
  double nvls_ratio = 5.0 / 6.0;  // eras before 28: algBw / busBw (0.75 to 2.18.1)
  bool nvls_ag_ratio = false;     // to 2.22 the ratio applies to NVLS all-gather/reduce-scatter too
};

// The tables `version` ran with (0: kDefaultNcclVersion); `example_tuner`: as NCCL's example tuner
// plugin rewrites them when it loads (example_tuner.hpp).
const TunerTables& tuner_tables(int version, bool example_tuner = false);
// The releases the table distinguishes, oldest first (for tests and docs).
int tuner_table_count();
const TunerTables& tuner_table(int index);

// "2.17.1", "2.28" (patch 0), "2.27.3+cuda12.9" (NCCL's own banner) -> 21701, 22800, 22703;
// 0 if `text` is not a version of that form. Releases outside the tables are returned as they
// are (nccl_version_in_tables tells).
int parse_nccl_version(const std::string& text);
std::string nccl_version_text(int version);
// The run's note for a scenario that names its release.
std::string nccl_version_note(int version);

}  // namespace models::nccl
