// NCCL's tuner constants by release (tuner_tables.hpp). Every value is NVIDIA/nccl's
// src/graph/tuning.cc at the tag named beside its row (baseLat/baseLatencies, hwLat/hwLatencies,
// llMaxBws, ll128MaxBwPerCh / perChMaxRingLL128Bws / perChMaxTreeLL128Bws, perChMaxTreeBws,
// perChMaxNVLSTreeBws) and its ncclTopoTuneModel / ncclTopoGetAlgoTime; each row lists what
// changed from the row before it.
#include "models/nccl/tuner_tables.hpp"

#include "models/nccl/example_tuner.hpp"

#include <cstdio>
#include <regex>
#include <vector>

namespace models::nccl {
namespace {

enum TableHw { kHwNvlink = 0, kHwPci = 1, kHwNet = 2 };
enum TableAlgo { kRowTree = 0, kRowRing = 1, kRowPat = 2 };
enum TableGpu { kVolta = 0, kAmpere = 1, kHopper = 2, kBlackwell = 3 };
constexpr double kNoCeiling = 1e9;

void set3(double (&row)[3], double a, double b, double c) {
  row[0] = a;
  row[1] = b;
  row[2] = c;
}
void simple_tree_hw(TunerTables& t, double nvlink, double pci, double net) {
  t.hw_lat[kHwNvlink][kRowTree][2] = nvlink;
  t.hw_lat[kHwPci][kRowTree][2] = pci;
  t.hw_lat[kHwNet][kRowTree][2] = net;
}
// Before 2.25 compCapIndex stopped at Hopper: Blackwell GPUs read Hopper's rows.
void blackwell_reads_hopper(TunerTables& t) {
  for (auto* table : {&t.ll_max_bw, &t.ring_ll128_per_ch, &t.tree_ll128_per_ch, &t.tree_per_ch})
    for (int i = 0; i < 3; ++i) (*table)[kBlackwell][i] = (*table)[kHopper][i];
}

std::vector<TunerTables> build_tuner_tables() {
  std::vector<TunerTables> rows;
  TunerTables t;
  // v2.17.1-1.
  t.since = nccl_version_number(17, 0);
  set3(t.base_lat[kRowTree], 4.4, 4.4, 0);
  set3(t.base_lat[kRowRing], 3.6, 10.0, 8.4);
  set3(t.hw_lat[kHwNvlink][kRowTree], .52, 1.25, 28);
  set3(t.hw_lat[kHwNvlink][kRowRing], .47, 1.9, 3.4);
  set3(t.hw_lat[kHwPci][kRowTree], 1.0, 1.9, 28);
  set3(t.hw_lat[kHwPci][kRowRing], 1.0, 2.5, 5.7);
  set3(t.hw_lat[kHwNet][kRowTree], 5.0, 8.5, 28);
  set3(t.hw_lat[kHwNet][kRowRing], 2.7, 4.0, 9.6);
  t.nvls_intra_lat = 40.0;  // baseLat NVLS Simple; NVLS on one node only, no NVLSTree yet
  set3(t.ll_max_bw[kVolta], 39.0, 39.0, 20.4);
  set3(t.ll_max_bw[kAmpere], 87.7, 22.5, 19.0);
  set3(t.ll_max_bw[kHopper], 87.7, 22.5, 19.0);
  // ll128MaxBwPerCh {20, 20, 36.7}, one per GPU generation, for Ring and Tree alike.
  set3(t.ring_ll128_per_ch[kVolta], 20, 20, 20);
  set3(t.ring_ll128_per_ch[kAmpere], 20, 20, 20);
  set3(t.ring_ll128_per_ch[kHopper], 36.7, 36.7, 36.7);
  for (int g = 0; g < 3; ++g)
    for (int i = 0; i < 3; ++i) t.tree_ll128_per_ch[g][i] = t.ring_ll128_per_ch[g][i];
  set3(t.tree_per_ch[kVolta], 26.5, 18.5, 10.0);
  set3(t.tree_per_ch[kAmpere], 24.0, 23.6, 17.8);
  set3(t.tree_per_ch[kHopper], 38.7, 41.4, 33.0);
  for (auto& g : t.nvls_tree_per_ch) set3(g, kNoCeiling, kNoCeiling, kNoCeiling);
  t.busbw_gpu_cap = t.ring_ll_quarter = t.ll_intra_slower = t.plugin_lat_replaces = t.ll128_ppn_discount = true;
  t.ring_inter_steps_all_nodes = true;
  t.nvls_era = 17;
  t.nvls_ratio = 0.75;
  t.nvls_ag_ratio = true;
  blackwell_reads_hopper(t);
  rows.push_back(t);

  // v2.18.1-1: new base latencies, NVLSTree, the network overhead, the ring plateau, the
  // plugin's latency added to NCCL's (and again for Simple's flush).
  t.since = nccl_version_number(18, 0);
  set3(t.base_lat[kRowTree], 6.8, 14.0, 0);
  set3(t.base_lat[kRowRing], 6.6, 14.0, 8.4);
  set3(t.hw_lat[kHwNvlink][kRowTree], .6, 1.25, 28);
  set3(t.hw_lat[kHwNvlink][kRowRing], .6, 1.9, 3.4);
  set3(t.hw_lat[kHwNet][kRowRing], 2.7, 4.0, 14.0);
  t.nvls_intra_lat = t.nvls_tree_intra_lat = 23.0;  // baseLat NVLS, NVLSTree
  t.nvls_inter_lat = 18.0;
  t.nvls_tree_inter_lat = 19.0;
  t.busbw_gpu_cap = t.ll_intra_slower = t.plugin_lat_replaces = false;
  t.net_overhead = true;
  t.ring_plateau = 18;
  t.nvls_era = 18;
  rows.push_back(t);

  // v2.18.3-1: Tree/Simple's hardware latencies 4 / 6 / 14 us; LL128 ceilings per node count;
  // NVLS's algBw 5/6 of its busBw.
  t.since = nccl_version_number(18, 3);
  t.nvls_ratio = 5.0 / 6.0;
  simple_tree_hw(t, 4, 6, 14);
  set3(t.tree_ll128_per_ch[kHopper], 36.7, 36.7, 29.0);
  set3(t.tree_per_ch[kHopper], 38.7, 41.4, 36.0);
  blackwell_reads_hopper(t);
  rows.push_back(t);

  // v2.19.1-1: NVLS latencies move to the NVLink row; Tree/Simple back to 28 us; the inter-node
  // tree pattern's 0.85.
  t.since = nccl_version_number(19, 0);
  simple_tree_hw(t, 28, 28, 28);
  t.nvls_tree_inter_lat = 14.0;
  t.tree_pattern_factor = true;
  t.nvls_era = 19;
  rows.push_back(t);

  // v2.21.5-1: NVLS 25 us; Hopper's LL ceilings doubled; Ring/LL at half the ring's busBw.
  t.since = nccl_version_number(21, 0);
  t.nvls_intra_lat = t.nvls_tree_intra_lat = 25.0;
  set3(t.ll_max_bw[kHopper], 141.0, 45.0, 35.0);
  t.ring_ll_quarter = false;
  blackwell_reads_hopper(t);
  rows.push_back(t);

  // v2.23.4-1: Tree/Simple 8.4 + 4 / 4 / 14 us; one rank per node takes the Tree's NET row; PAT
  // (not by default over a net plugin that offloads to the device);
  // Ring/LL128's one-rank discount gone; an inter-node ring all-reduce's network steps 2 (nNodes - 1).
  t.since = nccl_version_number(23, 0);
  t.base_lat[kRowTree][2] = 8.4;
  simple_tree_hw(t, 4.0, 4.0, 14);
  t.ppn1_tree_lat = true;
  t.ll128_ppn_discount = false;
  t.ring_inter_steps_all_nodes = false;
  t.pat_factor = 0.85;
  t.pat_host_net_only = true;
  set3(t.base_lat[kRowPat], 8.0, 8.0, 8.0);  // the formula's own "8 +" until 2.28 moved it into the table
  t.nvls_ag_ratio = false;
  rows.push_back(t);

  // v2.24.3-1: PAT x 0.75; the communicator's netDeviceType no longer set (always host).
  t.since = nccl_version_number(24, 0);
  t.pat_factor = 0.75;
  t.pat_host_net_only = false;
  rows.push_back(t);

  // v2.25.1-1: Blackwell's own rows, twice Hopper's.
  t.since = nccl_version_number(25, 0);
  set3(t.ll_max_bw[kBlackwell], 2 * 141.0, 2 * 45.0, 2 * 35.0);
  set3(t.ring_ll128_per_ch[kBlackwell], 2 * 36.7, 2 * 36.7, 2 * 36.7);
  set3(t.tree_ll128_per_ch[kBlackwell], 2 * 36.7, 2 * 36.7, 2 * 29.0);
  set3(t.tree_per_ch[kBlackwell], 2 * 38.7, 2 * 41.4, 2 * 36.0);
  rows.push_back(t);

  // v2.27.3-1: NVLS all-gather and reduce-scatter at min(bwIntra (ppn-1)/ppn, 0.9 bwInter).
  t.since = nccl_version_number(27, 0);
  t.nvls_era = 27;
  rows.push_back(t);

  // v2.28.3-1 (tunerConstants): PAT's hardware latencies; Blackwell's tree ceilings; NVLSTree's.
  t.since = nccl_version_number(28, 0);
  t.nvls_era = 28;
  set3(t.hw_lat[kHwNvlink][kRowPat], 0, 0, 4.0);
  set3(t.hw_lat[kHwPci][kRowPat], 0, 0, 4.0);
  set3(t.hw_lat[kHwNet][kRowPat], 0, 0, 14);
  set3(t.tree_ll128_per_ch[kBlackwell], 55.6, 31.67, 20.0);
  set3(t.tree_per_ch[kBlackwell], 70.0, 42.8, 24.0);
  set3(t.nvls_tree_per_ch[kVolta], 26.5, 18.5, 10.0);
  set3(t.nvls_tree_per_ch[kAmpere], 24.0, 23.6, 17.8);
  set3(t.nvls_tree_per_ch[kHopper], 0.0, 57.7, 45.5);
  set3(t.nvls_tree_per_ch[kBlackwell], 0.0, 96.0, 43.1);
  rows.push_back(t);

  // v2.28.7-1: Blackwell's Ring/LL128 ceiling on two nodes.
  t.since = nccl_version_number(28, 7);
  set3(t.ring_ll128_per_ch[kBlackwell], 2 * 36.7, 34.6, 2 * 36.7);
  rows.push_back(t);

  // v2.28.9-1: NVLSTree's NET latency 20.9 us; its Blackwell ceiling beyond two nodes 43.8.
  t.since = nccl_version_number(28, 9);
  t.nvls_tree_inter_lat = 20.9;
  t.nvls_tree_per_ch[kBlackwell][2] = 43.8;
  rows.push_back(t);

  // v2.29.2-1: Blackwell's Ring/LL128 ceilings 34.5 / 34.6 / 34.5; the tree correction on NVLSTree
  // (Blackwell, x86 hosts).
  t.since = nccl_version_number(29, 0);
  set3(t.ring_ll128_per_ch[kBlackwell], 34.5, 34.6, 34.5);
  t.nvls_tree_correction = true;
  rows.push_back(t);

  // v2.29.7-1: Blackwell's Ring/LL128 ceilings 40.
  t.since = nccl_version_number(29, 7);
  set3(t.ring_ll128_per_ch[kBlackwell], 40.0, 40.0, 40.0);
  rows.push_back(t);

  // v2.30.3-1: NVLSTree's Blackwell ceiling beyond two nodes 80.
  t.since = nccl_version_number(30, 0);
  t.nvls_tree_per_ch[kBlackwell][2] = 80.0;
  rows.push_back(t);
  return rows;
}

const std::vector<TunerTables>& tuner_rows() {
  static const std::vector<TunerTables> r = build_tuner_tables();
  return r;
}

// The same rows as NCCL's example tuner plugin leaves them (example_tuner.hpp): from 2.28.3 its
// init writes three constants, Blackwell at the scale of 3+ nodes (plugin.c pluginInit).
const std::vector<TunerTables>& example_tuner_rows() {
  static const std::vector<TunerTables> r = [] {
    std::vector<TunerTables> rows = build_tuner_tables();
    for (TunerTables& t : rows) {
      if (t.since < kExampleTunerConstantsSince) continue;
      t.tree_per_ch[kBlackwell][2] = 15.0;
      t.ring_ll128_per_ch[kBlackwell][2] = 20.0;
      t.nvls_inter_lat = 24.0;
    }
    return rows;
  }();
  return r;
}

}  // namespace

const TunerTables& tuner_tables(int version, bool example_tuner) {
  if (version <= 0) version = kDefaultNcclVersion;
  const auto& r = example_tuner && version >= kExampleTunerConstantsSince ? example_tuner_rows() : tuner_rows();
  const TunerTables* best = &r.front();
  for (const auto& t : r)
    if (t.since <= version) best = &t;
  return *best;
}

int tuner_table_count() { return static_cast<int>(tuner_rows().size()); }
const TunerTables& tuner_table(int index) { return tuner_rows().at(static_cast<size_t>(index)); }

int parse_nccl_version(const std::string& text) {
  static const std::regex kVersion(R"(\s*v?2\.(\d{1,2})(?:\.(\d{1,2}))?(?:[-+][\w.+-]*)?\s*)");
  std::smatch m;
  if (!std::regex_match(text, m, kVersion)) return 0;
  const int minor = std::stoi(m[1].str());
  const int patch = m[2].matched ? std::stoi(m[2].str()) : 0;
  return nccl_version_number(minor, patch);
}

std::string nccl_version_text(int version) {
  if (version <= 0) version = kDefaultNcclVersion;
  char buf[32];
  std::snprintf(buf, sizeof buf, "2.%d.%d", (version - 20000) / 100, version % 100);
  return buf;
}

std::string nccl_version_note(int version) {
  return "nccl.version " + nccl_version_text(version) +
         ": that release's tuner tables and rules pick algorithm, protocol and channels (transports, the graph "
         "search and the kernels are modelled as in 2.28)";
}

}  // namespace models::nccl
