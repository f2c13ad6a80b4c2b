#pragma once
// aws-ofi-nccl's own tuner (src/tuner/nccl_ofi_tuner.cpp, nccl_ofi_regions.cpp): where the plugin
// installs it, it overrides NCCL's algorithm and protocol choice with regions measured by AWS.
//
// Where it runs: the net plugin library carries the tuner (aws-ofi-nccl >= 1.16.0, "build: Enable
// tuner by default"), and NCCL >= 2.21 loads a tuner from the net plugin when NCCL_TUNER_PLUGIN
// names none it can open (src/plugin/tuner.cc). NCCL_TUNER_PLUGIN=none (any case) loads no tuner;
// an empty value does not (NCCL then tries libnccl-tuner.so and the net plugin, as when unset).
// The plugin then falls back to NCCL's own choice when: the host is not one of its platforms
// (p5.48xlarge and p5e.48xlarge, p5en.48xlarge, p6-b200.48xlarge, p6-b300.48xlarge:
// nccl_ofi_tuner_process_config.h), OFI_NCCL_TUNER_TYPE=Internal, OFI_NCCL_FORCE_NUM_RAILS is set,
// the communicator has 2 nodes or fewer ("the regions are not well defined at two nodes"), its
// ranks per node are not 8, 2 or 1 (no regions), or the point lies in none of the regions.
//
// The rule (region tuner, the one the plugin picks where both region and model tuners exist):
// the point (log2 bytes, log2 ranks) is tested against the platform's polygons in order; the first
// region that contains it (inside or on an edge) and whose algorithm/protocol NCCL has not marked
// unusable (NCCL_ALGO, NCCL_PROTO, NVLS absent) gets cost 0 in NCCL's table, so NCCL runs it on the
// channels it would choose for it. Not modelled: the model-based tuner (OFI_NCCL_TUNER_TYPE=Model),
// the channel counts the plugin sets on p6-b200 (Tree/LL128 at 4-32 MiB, PAT with 1 rank per node)
// and its chunk sizes on p5en.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "models/nccl/ops.hpp"

namespace models::nccl {

// The plugin's far corner (nccl_ofi_tuner_region.h TUNER_MAX_SIZE, TUNER_MAX_RANKS).
inline constexpr double kOfiMaxSize = 100.0 * 1024 * 1024 * 1024;
inline constexpr double kOfiMaxRanks = 1024.0 * 1024;

enum class OfiTunerPlatform { None, P5P5e, P5en, P6B200, P6B300 };

// The platform aws-ofi-nccl's tuner recognises for an instance name (exact names, as the plugin
// compares the EC2 product name), None for any other host.
OfiTunerPlatform ofi_tuner_platform(const std::string& instance_name);

// One region, vertices in log2 coordinates (x: bytes, y: ranks).
struct OfiRegion {
  Algo algo = Algo::Ring;
  Proto proto = Proto::Simple;
  std::vector<std::pair<double, double>> vertices;
};

// The polygon test of nccl_ofi_regions.cpp is_inside_region: 1 inside, 0 on an edge, -1 outside,
// for a point already in log2 coordinates.
int ofi_inside_region(double log2_bytes, double log2_ranks, const OfiRegion& region);

// The regions of a platform for `ranks_per_node` (8, 2 or 1) and a collective, in the plugin's
// order; empty where the plugin has none.
const std::vector<OfiRegion>& ofi_regions(OfiTunerPlatform p, int ranks_per_node, CollOp op);

// The tuner's answer for a communicator of `nranks` over `nnodes` nodes, or nullopt where it falls
// back to NCCL's choice. `usable(algo, proto)` says whether NCCL's table holds that combination.
struct OfiChoice {
  Algo algo = Algo::Ring;
  Proto proto = Proto::Simple;
};
std::optional<OfiChoice> ofi_tuner_choice(OfiTunerPlatform p, int nranks, int nnodes, CollOp op, int64_t bytes,
                                          const std::function<bool(Algo, Proto)>& usable);

}  // namespace models::nccl
