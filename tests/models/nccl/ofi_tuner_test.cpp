// aws-ofi-nccl's region tuner (models/nccl/ofi_tuner.hpp) at the boundaries of its rules. Regions are
// polygons in (log2 bytes, log2 ranks); a point on an edge belongs to the region. Closed forms:
//   an edge (x0, y0) -> (x1, y1) crosses the line of `ranks` at
//     log2 bytes = log2 x0 + (log2 ranks - log2 y0) x (log2 x1 - log2 x0) / (log2 y1 - log2 y0);
//   the plugin falls back to NCCL on 2 nodes or fewer, on hosts it does not know, and where no
//   region NCCL can run holds the point.
#include <catch2/catch.hpp>

#include <cmath>

#include "models/comm_plan/comm_plan.hpp"
#include "models/error.hpp"
#include "models/nccl/env.hpp"
#include "models/nccl/ofi_tuner.hpp"
#include "models/nccl/tuning.hpp"
#include "models/world/world.hpp"
#include "sim/flow_network.hpp"
#include "sim/simulator.hpp"
#include "tests/models/nccl/tuner_view.hpp"

using namespace models::nccl;

namespace {
const auto kAnything = [](Algo, Proto) { return true; };

std::optional<OfiChoice> p5_all_reduce(int nodes, double bytes, int per_node = 8) {
  return ofi_tuner_choice(OfiTunerPlatform::P5P5e, nodes * per_node, nodes, CollOp::AllReduce,
                          static_cast<int64_t>(bytes), kAnything);
}

bool is(const std::optional<OfiChoice>& c, Algo a, Proto p) { return c && c->algo == a && c->proto == p; }

// The edge from (x0, y0) to (x1, y1), in bytes and ranks, at `ranks`: its bytes.
double edge_bytes_at(double x0, double y0, double x1, double y1, double ranks) {
  const double t = (std::log2(ranks) - std::log2(y0)) / (std::log2(y1) - std::log2(y0));
  return std::exp2(std::log2(x0) + t * (std::log2(x1) - std::log2(x0)));
}

}  // namespace

TEST_CASE("ofi tuner: the hosts the plugin knows, by exact EC2 name", "[nccl]") {
  CHECK(ofi_tuner_platform("p5.48xlarge") == OfiTunerPlatform::P5P5e);
  CHECK(ofi_tuner_platform("p5e.48xlarge") == OfiTunerPlatform::P5P5e);
  CHECK(ofi_tuner_platform("p5en.48xlarge") == OfiTunerPlatform::P5en);
  CHECK(ofi_tuner_platform("p6-b200.48xlarge") == OfiTunerPlatform::P6B200);
  CHECK(ofi_tuner_platform("p6-b300.48xlarge") == OfiTunerPlatform::P6B300);
  for (const char* other : {"p4d.24xlarge", "p4de.24xlarge", "u-p6e-gb200x72", "g5.48xlarge", "dgx-h100"})
    CHECK(ofi_tuner_platform(other) == OfiTunerPlatform::None);
  // Every platform has all-reduce regions for 8 and 1 ranks per node, p5 also for 2; none for 4.
  for (auto p : {OfiTunerPlatform::P5P5e, OfiTunerPlatform::P5en, OfiTunerPlatform::P6B200, OfiTunerPlatform::P6B300}) {
    CHECK_FALSE(ofi_regions(p, 8, CollOp::AllReduce).empty());
    CHECK_FALSE(ofi_regions(p, 1, CollOp::AllReduce).empty());
    CHECK(ofi_regions(p, 4, CollOp::AllReduce).empty());
  }
  CHECK(ofi_regions(OfiTunerPlatform::P5P5e, 8, CollOp::AllReduce).size() == 5);
  CHECK(ofi_regions(OfiTunerPlatform::P5P5e, 2, CollOp::AllReduce).size() == 8);
}

TEST_CASE("ofi tuner: the polygon test -- inside 1, on an edge 0, outside -1", "[nccl]") {
  const OfiRegion square{Algo::Ring, Proto::Simple, {{0, 0}, {1, 0}, {1, 1}, {0, 1}}};
  CHECK(ofi_inside_region(0.5, 0.5, square) == 1);
  CHECK(ofi_inside_region(1.0, 0.5, square) == 0);
  CHECK(ofi_inside_region(0.5, 0.0, square) == 0);
  CHECK(ofi_inside_region(1.5, 0.5, square) == -1);
  CHECK(ofi_inside_region(0.5, -0.1, square) == -1);
}

TEST_CASE("ofi tuner: 2 nodes or fewer, other layouts and unknown hosts keep NCCL's choice", "[nccl]") {
  // 32 MiB on 16 ranks lies in p5's Tree/LL128 region (its edge at 16 ranks reaches 30 MiB) but the
  // plugin skips 2 nodes: "the regions are not well defined at two nodes".
  CHECK_FALSE(p5_all_reduce(2, 16 << 20));
  CHECK(is(p5_all_reduce(3, 16 << 20), Algo::Tree, Proto::LL128));
  CHECK_FALSE(p5_all_reduce(4, 16 << 20, 4));  // 4 ranks per node: no regions
  CHECK_FALSE(ofi_tuner_choice(OfiTunerPlatform::None, 32, 4, CollOp::AllReduce, 1 << 20, kAnything));
}

TEST_CASE("ofi tuner: p5 all-reduce with 8 ranks per node at the regions' boundaries (32 ranks)", "[nccl]") {
  // Tree/LL128 up to its edge (31457280, 16) -> (37748736, 32): at 32 ranks exactly 36 MiB, on the edge.
  const double tree_edge = edge_bytes_at(31457280, 16, 37748736, 32, 32);
  CHECK(tree_edge == Approx(37748736));
  CHECK(is(p5_all_reduce(4, 37748736), Algo::Tree, Proto::LL128));
  CHECK(is(p5_all_reduce(4, 37748736 + 4096), Algo::Ring, Proto::LL128));
  // Ring/LL128 up to its edge (1 GiB, 17) -> (2 GiB, 64): at 32 ranks 2^30.477 B = 1.492 GiB.
  const double ring_edge = edge_bytes_at(1073741824, 17, 2147483648, 64, 32);
  CHECK(std::log2(ring_edge) == Approx(30 + (5 - std::log2(17)) / (6 - std::log2(17))));
  CHECK(is(p5_all_reduce(4, ring_edge * 0.999), Algo::Ring, Proto::LL128));
  // Ring/Simple from its vertex (1.5 GiB, 32); between the two edges no region holds the point.
  CHECK_FALSE(p5_all_reduce(4, ring_edge * 1.002));
  CHECK(is(p5_all_reduce(4, 1610612736), Algo::Ring, Proto::Simple));
  CHECK(is(p5_all_reduce(4, 8.0 * (1 << 30)), Algo::Ring, Proto::Simple));
}

TEST_CASE("ofi tuner: extended vertices reach the plugin's far corner (1024 nodes of p5)", "[nccl]") {
  // extend((384 MiB, 2048), (384 MiB, 4096)) = (384 MiB, 2^20 ranks): Tree/LL128 holds 8192 ranks
  // below 384 MiB; above, NVLSTree/Simple (its vertex extended the same way) where NVLS runs.
  CHECK(is(p5_all_reduce(1024, 256 << 20), Algo::Tree, Proto::LL128));
  CHECK(is(p5_all_reduce(1024, 512 << 20), Algo::NVLSTree, Proto::Simple));
}

TEST_CASE("ofi tuner: a region NCCL cannot run is skipped for the next one", "[nccl]") {
  // NCCL_ALGO without Ring (NCCL marks Ring's entries unusable): 1 GiB on 32 ranks lies only in
  // Ring regions, so the plugin leaves the choice to NCCL; without NVLS, 512 MiB on 8192 ranks too.
  const auto no_ring = [](Algo a, Proto) { return a != Algo::Ring; };
  CHECK_FALSE(ofi_tuner_choice(OfiTunerPlatform::P5P5e, 32, 4, CollOp::AllReduce, int64_t{1} << 30, no_ring));
  const auto no_nvls = [](Algo a, Proto) { return a != Algo::NVLSTree; };
  CHECK_FALSE(ofi_tuner_choice(OfiTunerPlatform::P5P5e, 8192, 1024, CollOp::AllReduce, int64_t{512} << 20, no_nvls));
}

TEST_CASE("ofi tuner: 1 rank per node all-gather on p5 from the edge (4 MiB, 2) -> (8 GiB, 2048)", "[nccl]") {
  // At 4 ranks: log2 bytes = 22 + (2 - 1) x 11 / 10 = 23.1.
  const auto ag = [](double bytes) {
    return ofi_tuner_choice(OfiTunerPlatform::P5P5e, 4, 4, CollOp::AllGather, static_cast<int64_t>(bytes), kAnything);
  };
  CHECK(std::log2(edge_bytes_at(4194304, 2, 8589934592, 2048, 4)) == Approx(23.1));
  CHECK_FALSE(ag(std::exp2(23.05)));
  CHECK(is(ag(std::exp2(23.15)), Algo::Ring, Proto::Simple));
}

TEST_CASE("ofi tuner: NCCL's choice on 4 x p5 follows the plugin, NCCL_TUNER_PLUGIN=none and Internal restore NCCL's",
          "[nccl]") {
  const CommView v = tuner_test::whole_cluster_view("p5.48xlarge", 4);
  REQUIRE(v.ofi_tuner == OfiTunerPlatform::P5P5e);
  TuningEnv env;
  // 1 GiB: the plugin's Ring/LL128; NCCL's own model prefers another algorithm there.
  const Choice plugin = choose(v, env, CollOp::AllReduce, int64_t{1} << 30);
  CHECK(plugin.algo == Algo::Ring);
  CHECK(plugin.proto == Proto::LL128);
  TuningEnv none = env;
  none.tuner_plugin = false;
  const Choice nccl = choose(v, none, CollOp::AllReduce, int64_t{1} << 30);
  CHECK_FALSE((nccl.algo == Algo::Ring && nccl.proto == Proto::LL128));
  TuningEnv internal = env;
  internal.ofi_tuner_fallback = true;
  CHECK(choose(v, internal, CollOp::AllReduce, int64_t{1} << 30).algo == nccl.algo);
  // The environment names that set them.
  CHECK_FALSE(parse_nccl_env({{"NCCL_TUNER_PLUGIN", "None"}}).tuning.tuner_plugin);
  CHECK(parse_nccl_env({{"NCCL_TUNER_PLUGIN", ""}}).tuning.tuner_plugin);  // NCCL still tries the net plugin
  CHECK(parse_nccl_env({{"OFI_NCCL_TUNER_TYPE", "Internal"}}).tuning.ofi_tuner_fallback);
  CHECK(parse_nccl_env({{"OFI_NCCL_FORCE_NUM_RAILS", "4"}}).tuning.ofi_tuner_fallback);
  CHECK_FALSE(parse_nccl_env({{"OFI_NCCL_TUNER_TYPE", "Region"}}).tuning.ofi_tuner_fallback);
  CHECK_THROWS_AS(parse_nccl_env({{"OFI_NCCL_TUNER_TYPE", "Model"}}), models::SpecError);
  // p4d: no tuner of the plugin's.
  CHECK(tuner_test::whole_cluster_view("p4d.24xlarge", 4).ofi_tuner == OfiTunerPlatform::None);
}
