// aws-ofi-nccl's tuner regions (ofi_tuner.hpp), transcribed from src/tuner/nccl_ofi_regions.cpp
// (github.com/aws/aws-ofi-nccl @2daf7d30, region_init_internal_<platform>), platform by platform,
// in the plugin's order. Vertices are (bytes, ranks) as the plugin writes them; `ofi_extend` is its
// extend_region towards (100 GiB, 2^20 ranks). tests/models/nccl/ofi_tuner_test.cpp checks the
// rules at their boundaries.
#include <cmath>
#include <map>
#include <tuple>

#include "models/nccl/ofi_tuner.hpp"

namespace models::nccl {

namespace {
struct Pt {
  double x, y;
};
constexpr double kMaxSize = kOfiMaxSize, kMaxRanks = kOfiMaxRanks;

double ofi_log2(double v) { return std::log2(v == 0 ? 1e-6 : v); }

// extend_region(a, b, z = (kMaxSize, kMaxRanks)): the farthest point of line ab (in log2
// coordinates) with z's x or z's y, back in the original scale.
Pt extend(Pt a, Pt b) {
  const double ax = ofi_log2(a.x), ay = ofi_log2(a.y), bx = ofi_log2(b.x), by = ofi_log2(b.y);
  const double zx = ofi_log2(kMaxSize), zy = ofi_log2(kMaxRanks);
  double rx, ry;
  if (ax == bx) {
    rx = ax, ry = zy;
  } else if (ay == by) {
    rx = zx, ry = ay;
  } else {
    const double m = (ay - by) / (ax - bx), c = by - m * bx, projected = m * zx + c;
    if (projected < zy)
      rx = zx, ry = projected;
    else
      rx = (zy - c) / m, ry = zy;
  }
  return {std::exp2(rx), std::exp2(ry)};
}

struct RegionSet {
  std::vector<OfiRegion>* regions;
  void add(Algo a, Proto p, std::initializer_list<Pt> vertices) {
    OfiRegion r{a, p, {}};
    for (const Pt& v : vertices) r.vertices.emplace_back(ofi_log2(v.x), ofi_log2(v.y));
    regions->push_back(std::move(r));
  }
};

struct RegionTable {
  std::map<std::tuple<int, int>, std::vector<OfiRegion>> by;  // (ranks per node, op)
  RegionSet set(int ranks_per_node, CollOp op) { return {&by[{ranks_per_node, static_cast<int>(op)}]}; }
};

// clang-format off
// One region per statement, vertices as the plugin lists them.
// p5.48xlarge, p5e.48xlarge (region_init_internal_p5_p5e)
void add_p5_p5e(RegionTable& t) {
  {  // 8 ranks per node, AllReduce
    RegionSet s = t.set(8, CollOp::AllReduce);
    const Pt extended_tree_ll128 = extend({402653184, 2048}, {402653184, 4096});
    const Pt extended_nvlstree_simple_1 = extend({8053063680, 160}, {9663676416, 192});
    const Pt extended_nvlstree_simple_2 = extend({402653184, 2048}, {402653184, 4096});
    const Pt extended_ring_simple = extend({8053063680, 160}, {9663676416, 192});
    s.add(Algo::Tree, Proto::LL128, {{0, 16}, {31457280, 16}, {37748736, 32}, {117440512, 64}, {301989888, 128},
          {301989888, 256}, {335544320, 512}, {536870912, 1024}, {402653184, 2048}, {402653184, 4096},
          extended_tree_ll128, {0, extended_tree_ll128.y}});
    s.add(Algo::NVLSTree, Proto::Simple, {{31457281, 16}, {kMaxSize, 16}, {31457281, 16}});
    s.add(Algo::Ring, Proto::LL128, {{31457280, 17}, {1073741824, 17}, {2147483648, 64}, {2147483648, 128},
          {1342177280, 160}, {2147483648, 256}, {1074790400, 256}, {444596224, 160}, {301989888, 128}, {117440512, 64},
          {37748736, 32}});
    s.add(Algo::NVLSTree, Proto::Simple, {{2147483648, 128}, {6442450944, 128}, {8053063680, 160}, {9663676416, 192},
          extended_nvlstree_simple_1, extended_nvlstree_simple_2, {402653184, 4096}, {402653184, 2048},
          {536870912, 1024}, {335544320, 512}, {301989888, 256}, {310378496, 160}, {444596224, 160}, {1074790400, 256},
          {2684354560, 256}, {2147483648, 224}, {1342177280, 160}});
    s.add(Algo::Ring, Proto::Simple, {{1073741824, 17}, {extended_ring_simple.x, 17}, extended_ring_simple,
          {9663676416, 192}, {8053063680, 160}, {2684354560, 64}, {1610612736, 32}});
  }
  {  // 2 ranks per node, AllReduce
    RegionSet s = t.set(2, CollOp::AllReduce);
    const Pt extended_tree_ll128 = extend({88160256, 128}, {178163712, 256});
    const Pt extended_tree_simple_1 = extend({787480576, 128}, {1073741824, 256});
    const Pt extended_tree_simple_2 = extend({257114112, 128}, {269484032, 256});
    const Pt extended_nvlstree_simple = extend({787480576, 128}, {1073741824, 256});
    s.add(Algo::Tree, Proto::LL128, {{0, 4}, {1314816, 4}, {1051648, 8}, {1051648, 12}, {2367488, 16}, {5525504, 32},
          {9473024, 64}, {88160256, 128}, {178163712, 256}, extended_tree_ll128, {0, extended_tree_ll128.y}});
    s.add(Algo::Ring, Proto::LL128, {{1314816, 4}, {19736576, 4}, {41842688, 8}, {296747008, 64}, {257114112, 128},
          {269484032, 256}, {178163712, 256}, {88160256, 128}, {9473024, 64}, {5525504, 32}, {2367488, 16},
          {1051648, 12}, {1051648, 8}, {1314816, 4}});
    s.add(Algo::NVLSTree, Proto::Simple, {{19736576, 4}, {81844224, 4}, {275775488, 8}, {275775488, 48},
          {296747008, 64}, {41842688, 8}});
    s.add(Algo::Tree, Proto::LL128, {{81844224, 4}, {269484032, 4}, {81844224, 4}});
    s.add(Algo::Tree, Proto::Simple, {{269484032, 4}, {kMaxSize, 4}, {269484032, 4}});
    s.add(Algo::Ring, Proto::Simple, {{81844224, 5}, {kMaxSize, 5}, {kMaxSize, 32}, {1073741824, 40}, {1073741824, 128},
          {787480576, 128}, {296747008, 64}, {275775488, 48}, {275775488, 8}, {81844224, 5}});
    s.add(Algo::Tree, Proto::Simple, {{296747008, 64}, {787480576, 128}, {1073741824, 256}, extended_tree_simple_1,
          extended_tree_simple_2, {269484032, 256}, {257114112, 128}});
    s.add(Algo::NVLSTree, Proto::Simple, {extended_nvlstree_simple, {1073741824, 256}, {787480576, 128},
          {1073741824, 128}, {1073741824, 40}, {kMaxSize, 32}});
  }
  {  // 1 rank per node, AllReduce
    RegionSet s = t.set(1, CollOp::AllReduce);
    const Pt extended_tree_ll128 = extend({9999360, 64}, {119477248, 128});
    const Pt extended_ring_ll128 = extend({4736000, 2}, {269484032, 128});
    s.add(Algo::Tree, Proto::LL128, {{0, 16}, {2367488, 16}, {9999360, 64}, {119477248, 128}, extended_tree_ll128,
          {0, kMaxRanks}});
    s.add(Algo::Ring, Proto::LL128, {{0, 2}, {4736000, 2}, {269484032, 128}, extended_ring_ll128, extended_tree_ll128,
          {119477248, 128}, {9999360, 64}, {2367488, 16}, {0, 16}});
    s.add(Algo::Ring, Proto::Simple, {{4736000, 2}, {kMaxSize, 2}, extended_ring_ll128, {269484032, 128}});
  }
  {  // 1 rank per node, AllGather
    RegionSet s = t.set(1, CollOp::AllGather);
    const Pt extended_ring_simple = extend({4194304, 2}, {8589934592, 2048});
    s.add(Algo::Ring, Proto::Simple, {{4194304, 2}, {kMaxSize, 2}, extended_ring_simple, {8589934592, 2048}});
  }
  {  // 1 rank per node, ReduceScatter
    RegionSet s = t.set(1, CollOp::ReduceScatter);
    const Pt extended_ring_simple = extend({8388608, 2}, {4294967296, 1024});
    s.add(Algo::Ring, Proto::Simple, {{8388608, 2}, {kMaxSize, 2}, extended_ring_simple, {4294967296, 1024}});
  }
}

// p5en.48xlarge (region_init_internal_p5en)
void add_p5en(RegionTable& t) {
  {  // 8 ranks per node, AllReduce
    RegionSet s = t.set(8, CollOp::AllReduce);
    const Pt extended_tree_ll = extend({196608, 192}, {196608, 1024});
    const Pt extended_tree_ll128 = extend({129499136, 127}, {218103808, 1024});
    const Pt extended_nvlstree_simple = extend({7516192768, 256}, {17179869184, 448});
    s.add(Algo::Tree, Proto::LL, {{0, 16}, {196608, 16}, {196608, 1024}, extended_tree_ll, {0, kMaxRanks}});
    s.add(Algo::Tree, Proto::LL128, {extended_tree_ll, {196608, 1024}, {196608, 16}, {13107200, 16}, {129499136, 127},
          {218103808, 1024}, extended_tree_ll128});
    s.add(Algo::Ring, Proto::LL128, {{129499136, 127}, {13107200, 16}, {29884416, 16}, {293601280, 32}, {589299712, 64},
          {549453824, 128}});
    s.add(Algo::NVLSTree, Proto::Simple, {extended_tree_ll128, {218103808, 1024}, {129499136, 127}, {549453824, 128},
          {589299712, 64}, {293601280, 32}, {29884416, 16}, {kMaxSize, 16}, {509607936, 32}, {7516192768, 256},
          {17179869184, 448}, extended_nvlstree_simple});
    s.add(Algo::Ring, Proto::Simple, {extended_nvlstree_simple, {17179869184, 448}, {7516192768, 256}, {509607936, 32},
          {kMaxSize, 16}});
  }
  {  // 8 ranks per node, AllGather
    RegionSet s = t.set(8, CollOp::AllGather);
    const Pt extended_ring_ll = extend({28305408, 768}, {33554432, 1024});
    const Pt extended_ring_ll128 = extend({7247754240, 384}, {17179865088, 896});
    s.add(Algo::Ring, Proto::LL, {{0, 16}, {786432, 16}, {4718592, 128}, {13630464, 384}, {19922944, 512},
          {28305408, 768}, {33554432, 1024}, extended_ring_ll, {0, kMaxRanks}});
    s.add(Algo::Ring, Proto::LL128, {extended_ring_ll, {33554432, 1024}, {28305408, 768}, {19922944, 512},
          {13630464, 384}, {4718592, 128}, {786432, 16}, {236978176, 16}, {956301312, 64}, {7247754240, 384},
          {17179865088, 896}, extended_ring_ll128});
    s.add(Algo::Ring, Proto::Simple, {extended_ring_ll128, {17179865088, 896}, {7247754240, 384}, {956301312, 64},
          {494927872, 32}, {236978176, 16}, {kMaxSize, 16}});
  }
  {  // 8 ranks per node, ReduceScatter
    RegionSet s = t.set(8, CollOp::ReduceScatter);
    const Pt extended_ring_ll = extend({7340032, 256}, {18874368, 512});
    const Pt extended_ring_ll128 = extend({7247757312, 256}, {17179869184, 640});
    s.add(Algo::Ring, Proto::LL, {{0, 16}, {786432, 16}, {4718592, 128}, {7340032, 256}, {18874368, 512},
          extended_ring_ll, {0, kMaxRanks}});
    s.add(Algo::Ring, Proto::LL128, {extended_ring_ll, {18874368, 512}, {7340032, 256}, {4718592, 128}, {786432, 16},
          {291504128, 16}, {589299712, 32}, {2415919104, 128}, {7247757312, 256}, {17179869184, 640},
          extended_ring_ll128});
    s.add(Algo::Ring, Proto::Simple, {extended_ring_ll128, {17179869184, 640}, {7247757312, 256}, {2415919104, 128},
          {589299712, 32}, {291504128, 16}, {kMaxSize, 16}});
  }
  {  // 1 rank per node, AllReduce
    RegionSet s = t.set(1, CollOp::AllReduce);
    const Pt extended_tree_ll128 = extend({524288, 8}, {1048576, 96});
    const Pt extended_tree_simple = extend({8388608, 32}, {33554432, 128});
    const Pt extended_ring_ll128 = extend({50331648, 16}, {301989888, 128});
    s.add(Algo::Tree, Proto::LL, {{0, 2}, {65536, 2}, {65536, 64}, {65536, kMaxRanks}});
    s.add(Algo::Tree, Proto::LL128, {{65536, kMaxRanks}, {65536, 64}, {65536, 2}, {262144, 2}, {1048576, 4},
          {4194304, 8}, {16777216, 16}, {33554432, 32}, {1048576, 32}, {1048576, 96}, extended_tree_ll128});
    s.add(Algo::Tree, Proto::Simple, {extended_tree_ll128, {1048576, 96}, {1048577, 32}, {33554431, 32},
          {33554432, 128}, extended_tree_simple});
    s.add(Algo::Ring, Proto::LL128, {extended_tree_simple, {33554432, 128}, {33554433, 32}, {16777217, 16},
          {4194305, 8}, {1048577, 4}, {262144, 2}, {6291456, 2}, {50331648, 16}, {301989888, 128},
          extended_ring_ll128});
    s.add(Algo::Ring, Proto::Simple, {extended_ring_ll128, {301989888, 128}, {50331648, 16}, {6291456, 2},
          {kMaxSize, 2}});
  }
  {  // 1 rank per node, AllGather
    RegionSet s = t.set(1, CollOp::AllGather);
    const Pt extended_pat_simple = extend({50331648, 64}, {117440512, 128});
    const Pt extended_ring_ll128 = extend({50331648, 16}, {301989888, 128});
    s.add(Algo::PAT, Proto::Simple, {{0, 2}, {65536, 2}, {1048576, 2}, {8388608, 8}, {16777216, 16}, {16777216, 32},
          {50331648, 64}, {117440512, 128}, extended_pat_simple, {kMaxSize, kMaxRanks}, {65536, kMaxRanks},
          {0, kMaxRanks}});
    s.add(Algo::Ring, Proto::LL128, {extended_pat_simple, {117440512, 128}, {50331648, 64}, {16777216, 32},
          {16777217, 16}, {8388609, 8}, {1048576, 2}, {4194304, 2}, {50331648, 16}, {301989888, 128},
          extended_ring_ll128});
    s.add(Algo::Ring, Proto::Simple, {extended_ring_ll128, {301989888, 128}, {50331648, 16}, {4194304, 2},
          {kMaxSize, 2}});
  }
  {  // 1 rank per node, ReduceScatter
    RegionSet s = t.set(1, CollOp::ReduceScatter);
    const Pt extended_pat_simple = extend({50331648, 64}, {117440512, 128});
    const Pt extended_ring_ll128 = extend({50331648, 16}, {301989888, 128});
    s.add(Algo::PAT, Proto::Simple, {{0, 2}, {65536, 2}, {1048576, 2}, {16777216, 32}, {50331648, 64}, {117440512, 128},
          extended_pat_simple, {kMaxSize, kMaxRanks}, {65536, kMaxRanks}, {0, kMaxRanks}});
    s.add(Algo::Ring, Proto::LL128, {extended_pat_simple, {117440512, 128}, {50331648, 64}, {16777216, 32},
          {1048576, 2}, {4194304, 2}, {50331648, 16}, {301989888, 128}, extended_ring_ll128});
    s.add(Algo::Ring, Proto::Simple, {extended_ring_ll128, {301989888, 128}, {50331648, 16}, {4194304, 2},
          {kMaxSize, 2}});
  }
}

// p6-b200.48xlarge (region_init_internal_p6)
void add_p6_b200(RegionTable& t) {
  {  // 8 ranks per node, AllReduce
    RegionSet s = t.set(8, CollOp::AllReduce);
    const Pt extended_tree_ll = extend({393216, 16}, {393216, 1024});
    const Pt extended_tree_ll128 = extend({96993280, 1024}, {106430464, 2048});
    const Pt extended_nvlstree_simple = extend({10737418240, 512}, {34359738368, 1500});
    s.add(Algo::Tree, Proto::LL, {{0, 16}, {393216, 16}, extended_tree_ll, {0, kMaxRanks}});
    s.add(Algo::Tree, Proto::LL128, {extended_tree_ll, {393216, 16}, {4718592, 16}, {18350080, 32}, {40370176, 64},
          {57147392, 128}, {72876032, 256}, {96993280, 1024}, {106430464, 2048}, extended_tree_ll128});
    s.add(Algo::Ring, Proto::LL128, {{90701824, 128}, {50855936, 64}, {18350080, 32}, {133693440, 32},
          {120061952, 64}});
    s.add(Algo::NVLSTree, Proto::Simple, {extended_tree_ll128, {106430464, 2048}, {96993280, 1024}, {72876032, 256},
          {57147392, 128}, {40370176, 64}, {18350080, 32}, {50855936, 64}, {90701824, 128}, {120061952, 64},
          {133693440, 32}, {18350080, 32}, {4718592, 16}, {kMaxSize, 16}, {435159040, 32}, {1072693248, 64},
          {10737418240, 512}, {34359738368, 1500}, extended_nvlstree_simple});
    s.add(Algo::Ring, Proto::Simple, {extended_nvlstree_simple, {10737418240, 512}, {1072693248, 64}, {435159040, 32},
          {kMaxSize, 16}});
  }
  {  // 8 ranks per node, AllGather
    RegionSet s = t.set(8, CollOp::AllGather);
    const Pt extended_ring_ll = extend({74973184, 1024}, {213385216, 2048});
    const Pt extended_ring_ll128 = extend({8321499136, 512}, {32212254720, 2048});
    s.add(Algo::Ring, Proto::LL, {{0, 16}, {786432, 16}, {1572864, 32}, {2621440, 64}, {4718592, 128}, {17301504, 256},
          {74973184, 1024}, {213385216, 2048}, extended_ring_ll, {0, kMaxRanks}});
    s.add(Algo::Ring, Proto::LL128, {extended_ring_ll, {213385216, 2048}, {74973184, 1024}, {17301504, 256},
          {4718592, 128}, {2621440, 64}, {1572864, 32}, {786432, 16}, {198705152, 16}, {456130560, 32}, {871366656, 64},
          {8321499136, 512}, {32212254720, 2048}, extended_ring_ll128});
    s.add(Algo::Ring, Proto::Simple, {extended_ring_ll128, {32212254720, 2048}, {8321499136, 512}, {871366656, 64},
          {456130560, 32}, {198705152, 16}, {kMaxSize, 16}});
  }
  {  // 8 ranks per node, ReduceScatter
    RegionSet s = t.set(8, CollOp::ReduceScatter);
    const Pt extended_ring_ll = extend({73924608, 1024}, {209190912, 2048});
    const Pt extended_ring_ll128 = extend({4294967296, 256}, {8589934592, 512});
    s.add(Algo::Ring, Proto::LL, {{0, 16}, {786432, 16}, {1572864, 32}, {2621440, 64}, {4718592, 128}, {17301504, 256},
          {35127296, 512}, {73924608, 1024}, {209190912, 2048}, extended_ring_ll, {0, kMaxRanks}});
    s.add(Algo::Ring, Proto::LL128, {extended_ring_ll, {209190912, 2048}, {73924608, 1024}, {35127296, 512},
          {17301504, 256}, {4718592, 128}, {2621440, 64}, {1572864, 32}, {786432, 16}, {219676672, 16}, {508559360, 32},
          {592445440, 64}, {4294967296, 256}, {8589934592, 512}, extended_ring_ll128});
    s.add(Algo::Ring, Proto::Simple, {extended_ring_ll128, {8589934592, 512}, {4294967296, 256}, {592445440, 64},
          {508559360, 32}, {219676672, 16}, {kMaxSize, 16}});
  }
  {  // 1 rank per node, AllReduce
    RegionSet s = t.set(1, CollOp::AllReduce);
    s.add(Algo::Tree, Proto::LL, {{0, 2}, {32768, 2}, {32768, 128}, {32768, 131072}, {0, 131072}});
    s.add(Algo::Tree, Proto::LL128, {{32768, 2}, {131072, 2}, {8388608, 128}, {8589934592, 131072}, {32768, 131072},
          {32768, 128}});
    s.add(Algo::Ring, Proto::LL128, {{131072, 2}, {3145728, 2}, {297795584, 128}, {107374182400, 45916},
          {107374182400, 59831}, {164626432, 128}, {20971520, 48}, {3145728, 48}});
    s.add(Algo::Tree, Proto::Simple, {{3145728, 48}, {20971520, 48}, {164626432, 128}, {107374182400, 59831},
          {107374182400, 131072}, {8589934592, 131072}});
    s.add(Algo::Ring, Proto::Simple, {{3145728, 2}, {107374182400, 2}, {107374182400, 45916}, {297795584, 128}});
  }
  {  // 1 rank per node, AllGather
    RegionSet s = t.set(1, CollOp::AllGather);
    s.add(Algo::Ring, Proto::LL, {{0, 2}, {65536, 2}, {65536, 4}});
    s.add(Algo::PAT, Proto::Simple, {{0, 2}, {65536, 4}, {1048576, 4}, {4194305, 16}, {12582912, 48}, {88080384, 48},
          {248512512, 128}, {34359738368, 17137}, {0, 131072}});
    s.add(Algo::Ring, Proto::LL128, {{65536, 2}, {2097152, 2}, {16777216, 8}, {291504128, 128}, {34359738368, 15008},
          {34359738368, 17137}, {248512512, 128}, {88080384, 48}, {12582912, 48}, {4194305, 16}, {1048576, 4},
          {65536, 4}});
    s.add(Algo::Ring, Proto::Simple, {{2097152, 2}, {34359738368, 2}, {34359738368, 15008}, {291504128, 128},
          {16777216, 8}});
  }
  {  // 1 rank per node, ReduceScatter
    RegionSet s = t.set(1, CollOp::ReduceScatter);
    s.add(Algo::Ring, Proto::LL, {{0, 2}, {65536, 2}, {65536, 4}});
    s.add(Algo::PAT, Proto::Simple, {{0, 2}, {65536, 4}, {1048576, 4}, {3345192, 8}, {19065019, 16}, {67108864, 48},
          {106954752, 48}, {274877906944, 121928}, {0, 131072}});
    s.add(Algo::Ring, Proto::LL128, {{65536, 2}, {2097152, 2}, {16777216, 8}, {106954752, 48}, {67108864, 48},
          {19065019, 16}, {3345192, 8}, {1048576, 4}, {65536, 4}});
    s.add(Algo::Ring, Proto::Simple, {{2097152, 2}, {274877906944, 2}, {274877906944, 121928}, {106954752, 48},
          {16777216, 8}});
  }
}

// p6-b300.48xlarge (region_init_internal_p6_b300)
void add_p6_b300(RegionTable& t) {
  {  // 8 ranks per node, AllReduce
    RegionSet s = t.set(8, CollOp::AllReduce);
    const Pt extended_tree_ll = extend({360448, 1024}, {360448, 2048});
    const Pt extended_tree_ll128 = extend({218103808, 1024}, {251658240, 2048});
    const Pt extended_nvlstree_simple = extend({9663676416, 256}, {19327352832, 512});
    s.add(Algo::Tree, Proto::LL, {{0, 16}, {720896, 16}, {491520, 32}, {425984, 64}, {425984, 128}, {425984, 256},
          {360448, 512}, {360448, 1024}, {360448, 2048}, extended_tree_ll, {0, kMaxRanks}});
    s.add(Algo::Tree, Proto::LL128, {extended_tree_ll, {360448, 2048}, {360448, 1024}, {360448, 512}, {425984, 256},
          {425984, 128}, {425984, 64}, {491520, 32}, {720896, 16}, {31457280, 16}, {54525952, 32}, {109051904, 64},
          {125829120, 128}, {125829120, 256}, {184549376, 512}, {218103808, 1024}, {251658240, 2048},
          extended_tree_ll128});
    s.add(Algo::Ring, Proto::LL128, {{369098752, 128}, {109051904, 64}, {54525952, 32}, {31457280, 16}, {62914560, 16},
          {603979776, 32}, {1006632960, 64}, {1006632960, 128}});
    s.add(Algo::NVLSTree, Proto::Simple, {extended_tree_ll128, {251658240, 2048}, {218103808, 1024}, {184549376, 512},
          {125829120, 256}, {125829120, 128}, {109051904, 64}, {369098752, 128}, {1006632960, 128}, {1006632960, 64},
          {603979776, 32}, {62914560, 16}, {107374182400, 16}, {603979776, 32}, {2013265920, 64}, {4026531840, 128},
          {9663676416, 256}, {19327352832, 512}, extended_nvlstree_simple});
    s.add(Algo::Ring, Proto::Simple, {extended_nvlstree_simple, {19327352832, 512}, {9663676416, 256},
          {4026531840, 128}, {2013265920, 64}, {603979776, 32}, {107374182400, 16}});
  }
  {  // 8 ranks per node, AllGather
    RegionSet s = t.set(8, CollOp::AllGather);
    const Pt extended_ring_ll = extend({109051904, 1024}, {218103808, 2048});
    const Pt extended_ring_ll128 = extend({13958643712, 512}, {27917287424, 1024});
    s.add(Algo::Ring, Proto::LL, {{0, 16}, {1703936, 16}, {3407872, 32}, {6815744, 64}, {13631488, 128},
          {27262976, 256}, {54525952, 512}, {109051904, 1024}, {218103808, 2048}, extended_ring_ll, {0, kMaxRanks}});
    s.add(Algo::Ring, Proto::LL128, {extended_ring_ll, {218103808, 2048}, {109051904, 1024}, {54525952, 512},
          {27262976, 256}, {13631488, 128}, {6815744, 64}, {3407872, 32}, {1703936, 16}, {436207616, 16},
          {872415232, 32}, {1744830464, 64}, {3489660928, 128}, {6979321856, 256}, {13958643712, 512},
          {27917287424, 1024}, extended_ring_ll128});
    s.add(Algo::Ring, Proto::Simple, {extended_ring_ll128, {27917287424, 1024}, {13958643712, 512}, {6979321856, 256},
          {3489660928, 128}, {1744830464, 64}, {872415232, 32}, {436207616, 16}, {107374182400, 16}});
  }
  {  // 8 ranks per node, ReduceScatter
    RegionSet s = t.set(8, CollOp::ReduceScatter);
    const Pt extended_ring_ll = extend({109051904, 1024}, {218103808, 2048});
    const Pt extended_ring_ll128 = extend({13958643712, 512}, {27917287424, 1024});
    s.add(Algo::Ring, Proto::LL, {{0, 16}, {1703936, 16}, {3407872, 32}, {6815744, 64}, {13631488, 128},
          {27262976, 256}, {54525952, 512}, {109051904, 1024}, {218103808, 2048}, extended_ring_ll, {0, kMaxRanks}});
    s.add(Algo::Ring, Proto::LL128, {extended_ring_ll, {218103808, 2048}, {109051904, 1024}, {54525952, 512},
          {27262976, 256}, {13631488, 128}, {6815744, 64}, {3407872, 32}, {1703936, 16}, {301989888, 16},
          {738197504, 32}, {1207959552, 64}, {3489660928, 128}, {6979321856, 256}, {13958643712, 512},
          {27917287424, 1024}, extended_ring_ll128});
    s.add(Algo::Ring, Proto::Simple, {extended_ring_ll128, {27917287424, 1024}, {13958643712, 512}, {6979321856, 256},
          {3489660928, 128}, {1207959552, 64}, {738197504, 32}, {301989888, 16}, {kMaxSize, 16}});
  }
  {  // 1 rank per node, AllReduce
    RegionSet s = t.set(1, CollOp::AllReduce);
    const Pt extended_tree_ll128 = extend({1441792, 16}, {1441792, 256});
    const Pt extended_tree_simple = extend({503316480, 128}, {1476395008, 256});
    s.add(Algo::Tree, Proto::LL, {{0, 2}, {65536, 2}, {65536, 64}, {65536, kMaxRanks}, {0, kMaxRanks}});
    s.add(Algo::Tree, Proto::LL128, {{65536, kMaxRanks}, {65536, 64}, {65536, 2}, {294912, 2}, {720896, 4},
          {1179648, 8}, {1441792, 16}, {1441792, 128}, {1441792, 256}, extended_tree_ll128});
    s.add(Algo::Tree, Proto::Simple, {extended_tree_ll128, {1441792, 256}, {1441792, 128}, {1441792, 16}, {1179648, 8},
          {2359296, 8}, {4718592, 16}, {75497472, 32}, {218103808, 64}, {503316480, 128}, {1476395008, 256},
          extended_tree_simple});
    s.add(Algo::Ring, Proto::LL128, {{1476395008, 256}, {503316480, 128}, {218103808, 64}, {75497472, 32},
          {4718592, 16}, {2359296, 8}, {1179648, 8}, {720896, 4}, {294912, 2}, {3407872, 2}, {13631488, 4},
          {31457280, 8}, {75497472, 16}, {150994944, 32}, {301989888, 64}, {603979776, 128}});
    s.add(Algo::Ring, Proto::Simple, {extended_tree_simple, {1476395008, 256}, {603979776, 128}, {301989888, 64},
          {150994944, 32}, {75497472, 16}, {31457280, 8}, {13631488, 4}, {3407872, 2}, {kMaxSize, 2}});
  }
  {  // 1 rank per node, AllGather
    RegionSet s = t.set(1, CollOp::AllGather);
    const Pt extended_pat_simple = extend({369098752, 128}, {738197504, 256});
    const Pt extended_ring_ll128 = extend({603979776, 128}, {1207959552, 256});
    s.add(Algo::Ring, Proto::LL, {{0, 2}, {147456, 2}, {131072, 12}, {106496, 8}, {65536, 4}, {57344, 8}, {36864, 4},
          {32768, 3}, {4608, 4}, {0, 8}});
    s.add(Algo::PAT, Proto::Simple, {{0, kMaxRanks}, {0, 8}, {4608, 4}, {32768, 3}, {36864, 4}, {57344, 8}, {65536, 4},
          {106496, 8}, {131072, 12}, {147456, 2}, {294912, 4}, {4718592, 8}, {9437184, 16}, {75497472, 32},
          {218103808, 64}, {369098752, 128}, {738197504, 256}, extended_pat_simple});
    s.add(Algo::Ring, Proto::LL128, {extended_pat_simple, {738197504, 256}, {369098752, 128}, {218103808, 64},
          {75497472, 32}, {9437184, 16}, {4718592, 8}, {294912, 4}, {147456, 2}, {5767168, 2}, {15728640, 4},
          {37748736, 8}, {75497472, 16}, {150994944, 32}, {301989888, 64}, {603979776, 128}, {1207959552, 256},
          extended_ring_ll128});
    s.add(Algo::Ring, Proto::Simple, {extended_ring_ll128, {1207959552, 256}, {603979776, 128}, {301989888, 64},
          {150994944, 32}, {75497472, 16}, {37748736, 8}, {15728640, 4}, {5767168, 2}, {34359738368, 2}});
  }
  {  // 1 rank per node, ReduceScatter
    RegionSet s = t.set(1, CollOp::ReduceScatter);
    const Pt extended_pat_simple = extend({503316480, 128}, {1006632960, 256});
    const Pt extended_ring_ll128 = extend({603979776, 128}, {1207959552, 256});
    s.add(Algo::Ring, Proto::LL, {{0, 2}, {45056, 2}, {147456, 4}, {131072, 8}, {36864, 4}, {4608, 4}, {4096, 6},
          {0, 8}});
    s.add(Algo::PAT, Proto::Simple, {{0, kMaxRanks}, {0, 8}, {4096, 6}, {4608, 4}, {36864, 4}, {131072, 8}, {147456, 4},
          {45056, 2}, {2359296, 4}, {4718592, 8}, {67108864, 16}, {92274688, 32}, {218103808, 64}, {503316480, 128},
          {1006632960, 256}, extended_pat_simple});
    s.add(Algo::Ring, Proto::LL128, {extended_pat_simple, {1006632960, 256}, {503316480, 128}, {218103808, 64},
          {92274688, 32}, {67108864, 16}, {4718592, 8}, {2359296, 4}, {45056, 2}, {3932160, 2}, {11534336, 4},
          {31457280, 8}, {75497472, 16}, {150994944, 32}, {301989888, 64}, {603979776, 128}, {1207959552, 256},
          extended_ring_ll128});
    s.add(Algo::Ring, Proto::Simple, {extended_ring_ll128, {1207959552, 256}, {603979776, 128}, {301989888, 64},
          {150994944, 32}, {75497472, 16}, {31457280, 8}, {11534336, 4}, {3932160, 2}, {kMaxSize, 2}});
  }
}
// clang-format on

const RegionTable& table_of(OfiTunerPlatform p) {
  static const RegionTable tables[4] = {[] {
                                          RegionTable t;
                                          add_p5_p5e(t);
                                          return t;
                                        }(),
                                        [] {
                                          RegionTable t;
                                          add_p5en(t);
                                          return t;
                                        }(),
                                        [] {
                                          RegionTable t;
                                          add_p6_b200(t);
                                          return t;
                                        }(),
                                        [] {
                                          RegionTable t;
                                          add_p6_b300(t);
                                          return t;
                                        }()};
  return tables[static_cast<int>(p) - 1];
}
}  // namespace

const std::vector<OfiRegion>& ofi_regions(OfiTunerPlatform p, int ranks_per_node, CollOp op) {
  static const std::vector<OfiRegion> kNone;
  if (p == OfiTunerPlatform::None) return kNone;
  const RegionTable& t = table_of(p);
  const auto it = t.by.find({ranks_per_node, static_cast<int>(op)});
  return it == t.by.end() ? kNone : it->second;
}

}  // namespace models::nccl
