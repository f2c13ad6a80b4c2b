// NCCL's tuning model must reproduce, number for number, the table NCCL 2.28.9 printed on the
// 4xH200 machine (scenarios/validation/h200x4/measured/nccl-tests/ar_g4_info.txt, NCCL_DEBUG_SUBSYS=TUNING):
// graph "nChannels 12, bw 30/30, type NVL/PIX".
#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <string>

#include "models/error.hpp"
#include "models/nccl/tuner_tables.hpp"
#include "models/nccl/tuning.hpp"

using namespace models::nccl;

namespace {
CommView h200x4_tuning() {
  CommView v;
  v.nranks = 4;
  v.nnodes = 1;
  v.sm = 90;
  v.intra_nvlink = true;
  v.bw_intra_gbs = 30;
  v.graph_channels = 12;
  return v;
}
void check(CollOp op, Algo a, Proto p, double lat_us, double bw_gbs) {
  const AlgoCost c = nccl_cost(h200x4_tuning(), op, a, p);
  INFO(coll_op_name(op) << " " << algo_name(a) << "/" << proto_name(p));
  CHECK(c.latency_us == Approx(lat_us).margin(0.05));
  CHECK(c.algbw_gbs == Approx(bw_gbs).margin(0.05));
}
}  // namespace

TEST_CASE("tuning: NCCL's latency/bandwidth table on 4xH200 is reproduced", "[nccl]") {
  // Ring latency = base + nsteps x hop (NVLink); busBw = 12 ch x 30 GB/s, algBw = busBw x n/nsteps.
  check(CollOp::Broadcast, Algo::Ring, Proto::LL, 7.2, 141.0);       // 6.6 + .6; min(141, 360 x .5)
  check(CollOp::Broadcast, Algo::Ring, Proto::LL128, 15.9, 331.2);   // 14 + 1.9; 360 x .92
  check(CollOp::Broadcast, Algo::Ring, Proto::Simple, 11.8, 360.0);  // 8.4 + 3.4
  check(CollOp::AllGather, Algo::Ring, Proto::LL, 8.4, 188.0);       // 6.6 + 3 x .6; 141 x 4/3
  check(CollOp::AllGather, Algo::Ring, Proto::LL128, 19.7, 441.6);
  check(CollOp::AllGather, Algo::Ring, Proto::Simple, 18.6, 480.0);
  check(CollOp::ReduceScatter, Algo::Ring, Proto::Simple, 18.6, 480.0);
  check(CollOp::AllReduce, Algo::Ring, Proto::LL, 10.2, 94.0);  // 6.6 + 6 x .6; 141 x 4/6
  check(CollOp::AllReduce, Algo::Ring, Proto::LL128, 25.4, 220.8);
  check(CollOp::AllReduce, Algo::Ring, Proto::Simple, 28.8, 240.0);
  // Tree all-reduce: base + 2 (ppn-1) hop; busBw x .92, LL / 3.8, LL128 x 7/9, algBw = busBw / 2.
  check(CollOp::AllReduce, Algo::Tree, Proto::LL, 10.4, 43.6);
  check(CollOp::AllReduce, Algo::Tree, Proto::LL128, 21.5, 128.8);
  check(CollOp::AllReduce, Algo::Tree, Proto::Simple, 32.4, 165.6);
  // Tree exists only for all-reduce.
  CHECK(nccl_cost(h200x4_tuning(), CollOp::AllGather, Algo::Tree, Proto::Simple).algbw_gbs == 0);
}

TEST_CASE("tuning: NCCL picks LL, then LL128, then Simple as messages grow", "[nccl]") {
  const TuningEnv env;
  // Crossovers from the table: LL/LL128 at 10.2 + S/94e3 = 25.4 + S/220.8e3 -> S = 2.49 MB;
  // LL128/Simple at 25.4 + S/220.8e3 = 28.8 + S/240e3 -> S = 9.4 MB.
  CHECK(choose(h200x4_tuning(), env, CollOp::AllReduce, 8).proto == Proto::LL);
  CHECK(choose(h200x4_tuning(), env, CollOp::AllReduce, 2 << 20).proto == Proto::LL);
  CHECK(choose(h200x4_tuning(), env, CollOp::AllReduce, 4 << 20).proto == Proto::LL128);
  CHECK(choose(h200x4_tuning(), env, CollOp::AllReduce, 8 << 20).proto == Proto::LL128);
  CHECK(choose(h200x4_tuning(), env, CollOp::AllReduce, 16 << 20).proto == Proto::Simple);
  CHECK(choose(h200x4_tuning(), env, CollOp::AllReduce, 1 << 30).algo == Algo::Ring);
  // 24 channels for large messages (the log's "24 coll channels"), fewer for small ones.
  CHECK(choose(h200x4_tuning(), env, CollOp::AllReduce, 1 << 30).channels == 24);
  CHECK(choose(h200x4_tuning(), env, CollOp::AllReduce, 8).channels == 1);
}

TEST_CASE("tuning: NCCL_ALGO, NCCL_PROTO and channel limits use NCCL's syntax", "[nccl]") {
  TuningEnv env = parse_nccl_env({{"NCCL_PROTO", "Simple"}, {"NCCL_ALGO", "Tree"}}).tuning;
  const Choice c = choose(h200x4_tuning(), env, CollOp::AllReduce, 1 << 20);
  CHECK(c.algo == Algo::Tree);
  CHECK(c.proto == Proto::Simple);
  env = parse_nccl_env({{"NCCL_PROTO", "^LL128,LL"}}).tuning;
  CHECK(choose(h200x4_tuning(), env, CollOp::AllReduce, 8).proto == Proto::Simple);
  env = parse_nccl_env({{"NCCL_MAX_NCHANNELS", "4"}}).tuning;
  CHECK(choose(h200x4_tuning(), env, CollOp::AllReduce, 1 << 30).channels == 4);
  CHECK_THROWS_AS(parse_nccl_env({{"NCCL_PROTO", "Fast"}}).tuning, models::SpecError);
  CHECK_THROWS_WITH(parse_nccl_env({{"NCCL_MAX_NCHANNELS", "many"}}).tuning, Catch::Contains("expected an integer"));
}

TEST_CASE("tuning: multi-node rings pay network hops, LL128 needs NVLink inside the node", "[nccl]") {
  CommView v = h200x4_tuning();
  v.nranks = 16;
  v.nnodes = 4;
  v.bw_inter_gbs = 12.5;
  v.graph_channels = 4;
  // Ring all-reduce LL latency (tuning.cc, NCCL 2.28.9): 6.6 + (30 - 6) x max(.6, 1.0) + 6 x 2.7 =
  // 46.8 us: nInter = 2 (nodes-1) network steps at the Ring's NET hwLat, and the intra-node steps
  // of an inter-node ring at least the host's network overhead (1 us; 2 on AMD x86; x3 for
  // Simple, where 3.4 us already exceeds Intel's 3).
  CHECK(nccl_cost(v, CollOp::AllReduce, Algo::Ring, Proto::LL).latency_us == Approx(46.8));
  CHECK(nccl_cost(v, CollOp::AllReduce, Algo::Ring, Proto::Simple).latency_us == Approx(8.4 + 24 * 3.4 + 6 * 14.0));
  v.cpu_amd = true;
  CHECK(nccl_cost(v, CollOp::AllReduce, Algo::Ring, Proto::LL).latency_us == Approx(6.6 + 24 * 2.0 + 6 * 2.7));
  CHECK(nccl_cost(v, CollOp::AllReduce, Algo::Ring, Proto::Simple).latency_us == Approx(8.4 + 24 * 6.0 + 6 * 14.0));
  // A tree's depth is NCCL's log2i, the floor: 3 nodes of 4 ranks are one level deep, as 2 are.
  v.cpu_amd = false;
  v.nranks = 12;
  v.nnodes = 3;
  CHECK(nccl_cost(v, CollOp::AllReduce, Algo::Tree, Proto::LL).latency_us == Approx(6.8 + 2 * (3 * 0.6 + 1 * 5.0)));
  // PAT (one rank per node): 8.0 + log2i(nodes) x interLat / 3.5 + 2.8 per rank, interLat the
  // Tree's NET Simple step (14 us) as every algorithm's with one rank per node.
  CommView pat = v;
  pat.nranks = pat.nnodes = 8;
  CHECK(nccl_cost(pat, CollOp::AllGather, Algo::PAT, Proto::Simple).latency_us == Approx(8.0 + 3 * 14.0 / 3.5 + 8 * 2.8));
  v.intra_nvlink = false;
  CHECK_FALSE(protocol_enabled(v, TuningEnv{}, CollOp::AllReduce, Algo::Ring, Proto::LL128));
}

TEST_CASE("tuning: the Socket table NCCL printed for 4 processes over lo is reproduced", "[nccl]") {
  // scenarios/validation/h200x4/measured/logs/sock_n4.rank0.log: P2P and SHM disabled, NET/Socket over
  // lo, whose speed NCCL cannot read ("Defaulting to 10 Gbps"): every GPU is its own NCCL node,
  // graph "Pattern 4, nChannels 1, bw 1.2/1.2". Printed: Tree LL 26.8/0.1, LL128 48.0/0.0,
  // Simple 64.4/0.5; Ring LL 36.6/0.4, LL128 65.0/0.0, Simple 92.4/0.8.
  CommView v;
  v.nranks = 4;
  v.nnodes = 4;
  v.sm = 90;
  v.intra_nvlink = false;
  v.inter_gdr_near = false;
  v.bw_intra_gbs = 1.2;
  v.bw_inter_gbs = 1.2;
  v.graph_channels = 1;
  auto c = [&](Algo a, Proto p) { return nccl_cost(v, CollOp::AllReduce, a, p); };
  CHECK(c(Algo::Tree, Proto::LL).latency_us == Approx(26.8).margin(0.05));
  CHECK(c(Algo::Tree, Proto::Simple).latency_us == Approx(64.4).margin(0.05));
  CHECK(c(Algo::Ring, Proto::LL).latency_us == Approx(36.6).margin(0.05));
  CHECK(c(Algo::Ring, Proto::Simple).latency_us == Approx(92.4).margin(0.05));
  CHECK(c(Algo::Tree, Proto::LL).algbw_gbs == Approx(0.1).margin(0.05));
  CHECK(c(Algo::Tree, Proto::Simple).algbw_gbs == Approx(0.5).margin(0.05));
  CHECK(c(Algo::Ring, Proto::LL).algbw_gbs == Approx(0.4).margin(0.05));
  CHECK(c(Algo::Ring, Proto::Simple).algbw_gbs == Approx(0.8).margin(0.05));
  // And the choices the same log shows per size: Tree LL to 1 KiB, Ring LL to 64 KiB, then Simple.
  TuningEnv env;
  CHECK(choose(v, env, CollOp::AllReduce, 1024).algo == Algo::Tree);
  CHECK(choose(v, env, CollOp::AllReduce, 2048).algo == Algo::Ring);
  CHECK(choose(v, env, CollOp::AllReduce, 65536).proto == Proto::LL);
  CHECK(choose(v, env, CollOp::AllReduce, 131072).proto == Proto::Simple);
  // Channels: {0..0} up to 16 KiB, {0..1} from 32 KiB.
  CHECK(choose(v, env, CollOp::AllReduce, 16384).channels == 1);
  CHECK(choose(v, env, CollOp::AllReduce, 32768).channels == 2);
}

TEST_CASE("tuning: PAT's entry in NCCL's Socket table (4 one-GPU nodes) and where NCCL enables PAT", "[nccl]") {
  // sock_n4.rank0.log (NCCL 2.28.9) prints "AllGather ... PAT Simple 27.2/0.9": latency 8 +
  // log2i(4) x 14 / 3.5 + 4 x 2.8 = 27.2 (tuning.cc), bandwidth busBw 1 ch x 1.2 GB/s x 0.75 with
  // no bus -> algorithm conversion (tuning.cc skips it for all but Ring on all-gather and
  // reduce-scatter). Ring LL 21.6/0.8 and Simple 50.4/1.6 on the same line.
  CommView v;
  v.nranks = 4;
  v.nnodes = 4;
  v.intra_nvlink = false;
  v.inter_gdr_near = false;
  v.bw_intra_gbs = v.bw_inter_gbs = 1.2;
  v.graph_channels = 1;
  const AlgoCost pat = nccl_cost(v, CollOp::AllGather, Algo::PAT, Proto::Simple);
  CHECK(pat.latency_us == Approx(27.2).margin(1e-9));
  CHECK(pat.algbw_gbs == Approx(1.2 * 0.75).margin(1e-9));
  CHECK(nccl_cost(v, CollOp::ReduceScatter, Algo::PAT, Proto::Simple).algbw_gbs == Approx(0.9).margin(1e-9));
  CHECK(nccl_cost(v, CollOp::AllGather, Algo::Ring, Proto::LL).algbw_gbs == Approx(0.8).margin(1e-9));
  CHECK(nccl_cost(v, CollOp::AllGather, Algo::Ring, Proto::Simple).algbw_gbs == Approx(1.6).margin(1e-9));
  // ncclPatEnable: NCCL_PAT_ENABLE=2 (default) with one rank per node; 0 off; 1 on; none before 2.23.
  TuningEnv env;
  CHECK(pat_enabled(v, env));
  CHECK(protocol_enabled(v, env, CollOp::AllGather, Algo::PAT, Proto::Simple));
  CHECK_FALSE(protocol_enabled(v, env, CollOp::AllGather, Algo::PAT, Proto::LL));
  // On this table PAT wins where 27.2 + S / 900 beats Ring LL (21.6 + S / 800) and Ring Simple
  // (50.4 + S / 1600): 40320 < S < 47726 bytes; no size NCCL logged falls there.
  CHECK(choose(v, env, CollOp::AllGather, 32768).algo == Algo::Ring);
  CHECK(choose(v, env, CollOp::AllGather, 44000).algo == Algo::PAT);
  CHECK(choose(v, env, CollOp::AllGather, 65536).algo == Algo::Ring);
  CommView two_per_node = v;
  two_per_node.nnodes = 2;
  CHECK_FALSE(pat_enabled(two_per_node, env));
  env.pat_enable = 1;
  CHECK(pat_enabled(two_per_node, env));
  env.pat_enable = 0;
  CHECK_FALSE(pat_enabled(v, env));
  CHECK(choose(v, env, CollOp::AllGather, 44000).algo == Algo::Ring);
  CommView old = v;
  old.nccl_version = nccl_version_number(22, 3);
  CHECK_FALSE(pat_enabled(old, TuningEnv{}));
  // With more one-GPU nodes PAT's log-depth latency wins more sizes: 16 nodes, 8 + 4 x 14 / 3.5 +
  // 16 x 2.8 = 68.8 us + S / 900 against Ring LL's 6.6 + 15 x 5 = 81.6 us + S / 640 and Ring
  // Simple's 8.4 + 15 x 14 = 218.4 us + S / 1280: at 64 KiB 141.6 against 184.0 and 269.6 us.
  CommView wide = v;
  wide.nranks = wide.nnodes = 16;
  CHECK(nccl_cost(wide, CollOp::AllGather, Algo::PAT, Proto::Simple).latency_us == Approx(68.8).margin(1e-9));
  CHECK(nccl_cost(wide, CollOp::AllGather, Algo::Ring, Proto::LL).latency_us == Approx(81.6).margin(1e-9));
  CHECK(nccl_cost(wide, CollOp::AllGather, Algo::Ring, Proto::Simple).latency_us == Approx(218.4).margin(1e-9));
  CHECK(choose(wide, TuningEnv{}, CollOp::AllGather, 65536).algo == Algo::PAT);
}

TEST_CASE("tuning: NCCL_ALGO/NCCL_PROTO leaving a collective nothing: 2.24+ stops, older releases fall back",
          "[nccl]") {
  const CommView v = h200x4_tuning();
  const auto env_of = [](std::map<std::string, std::string> e, int version = 0) {
    return parse_nccl_env(e, version).tuning;
  };
  const auto error_of = [&](const CommView& view, const TuningEnv& env, CollOp op) {
    try {
      choose(view, env, op, 1 << 20);
    } catch (const models::SpecError& e) {
      return e.key() + ": " + e.what();
    }
    return std::string("chosen");
  };
  // All-gather has no Tree: NCCL 2.28.9 "Error : no algorithm/protocol available for function
  // AllGather ... NCCL_ALGO was set to Tree." (enqueue.cc topoGetAlgoInfo, ncclInvalidUsage).
  CHECK(error_of(v, env_of({{"NCCL_ALGO", "Tree"}}), CollOp::AllGather) ==
        "nccl.env.NCCL_ALGO: NCCL_ALGO=Tree leaves all_gather no algorithm/protocol: NCCL 2.30.7 stops at the "
        "first all_gather (\"no algorithm/protocol available for function AllGather\") (expected NCCL_ALGO to "
        "allow one of Ring for all_gather, e.g. per collective: allreduce:tree;allgather:ring)");
  CHECK(error_of(v, env_of({{"NCCL_ALGO", "Tree"}}), CollOp::AllReduce) == "chosen");
  // PAT runs Simple only: NCCL_PROTO=LL with NCCL_ALGO=PAT leaves all-gather nothing on one-GPU nodes.
  CommView nodes = v;
  nodes.nnodes = 4;
  nodes.bw_inter_gbs = 12.5;
  CHECK(error_of(nodes, env_of({{"NCCL_ALGO", "PAT"}, {"NCCL_PROTO", "LL"}}), CollOp::AllGather) ==
        "nccl.env.NCCL_PROTO: NCCL_PROTO=LL leaves all_gather no algorithm/protocol: NCCL 2.30.7 stops at the "
        "first all_gather (\"no algorithm/protocol available for function AllGather\") (expected NCCL_PROTO to "
        "allow one of Simple for all_gather, e.g. per collective: allreduce:tree;allgather:ring)");
  // The per-collective form says Tree for all-reduce alone.
  const TuningEnv per = env_of({{"NCCL_ALGO", "allreduce:tree"}});
  CHECK(choose(v, per, CollOp::AllReduce, 1 << 20).algo == Algo::Tree);
  CHECK(choose(v, per, CollOp::AllGather, 1 << 20).algo == Algo::Ring);
  // An empty value is no value from 2.24.
  CHECK(choose(v, env_of({{"NCCL_ALGO", ""}}), CollOp::AllReduce, 1024).proto == Proto::LL);
  // 2.19 to 2.23: Ring comes back, with every protocol its table has (2.22+: those NCCL_PROTO and
  // LL128's rule leave), and NCCL takes the fastest: LL at 1 MiB here, not Simple.
  CommView v23 = v;
  v23.nccl_version = nccl_version_number(23, 4);
  const Choice fallback = choose(v23, env_of({{"NCCL_ALGO", "Tree"}}, v23.nccl_version), CollOp::AllGather, 1 << 20);
  CHECK(fallback.algo == Algo::Ring);
  CHECK(fallback.proto == Proto::LL);
  CHECK(choose(v23, env_of({{"NCCL_ALGO", "Tree"}, {"NCCL_PROTO", "Simple"}}, v23.nccl_version), CollOp::AllGather,
               1 << 20)
            .proto == Proto::Simple);
  CommView v21 = v;
  v21.nccl_version = nccl_version_number(21, 5);
  CHECK(choose(v21, env_of({{"NCCL_ALGO", "Tree"}, {"NCCL_PROTO", "Simple"}}, v21.nccl_version), CollOp::AllGather,
               1 << 20)
            .proto == Proto::LL);  // ringbdw of every protocol before 2.22 (NVIDIA/nccl#1304)
  // An empty NCCL_ALGO before 2.24 turns every algorithm off: the same fallback.
  CHECK(choose(v23, env_of({{"NCCL_ALGO", ""}}, v23.nccl_version), CollOp::AllReduce, 1 << 20).algo == Algo::Ring);
  // 2.17/2.18 never turn Ring off for other collectives than all-reduce.
  CommView v18 = v;
  v18.nccl_version = nccl_version_number(18, 5);
  CHECK(choose(v18, env_of({{"NCCL_ALGO", "Tree"}}, v18.nccl_version), CollOp::AllGather, 1 << 20).algo == Algo::Ring);
  CHECK(error_of(v18, env_of({{"NCCL_ALGO", "NVLS"}}, v18.nccl_version), CollOp::AllReduce) ==
        "nccl.env.NCCL_ALGO: NCCL_ALGO=NVLS leaves all_reduce no algorithm/protocol: NCCL 2.18.5 stops at the "
        "first all_reduce (\"no algorithm/protocol available for function AllReduce\") (expected NCCL_ALGO to "
        "allow one of Tree, Ring for all_reduce)");
}

TEST_CASE("tuning: NCCL_MAX_CTAS does not lift NCCL_MAX_NCHANNELS, and MAXCHANNELS is the release's", "[nccl]") {
  const CommView v = h200x4_tuning();  // 2 x 12 graph channels
  CHECK(choose(v, parse_nccl_env({{"NCCL_MAX_NCHANNELS", "2"}, {"NCCL_MAX_CTAS", "16"}}).tuning, CollOp::AllReduce,
               1 << 30)
            .channels == 2);
  CHECK(choose(v, parse_nccl_env({{"NCCL_MAX_CTAS", "3"}}).tuning, CollOp::AllReduce, 1 << 30).channels == 3);
  CHECK(coll_channels(v, parse_nccl_env({{"NCCL_MIN_NCHANNELS", "64"}}).tuning) == 64);
  CommView v24 = v;
  v24.nccl_version = nccl_version_number(24, 3);
  CHECK(coll_channels(v24, parse_nccl_env({{"NCCL_MIN_NCHANNELS", "64"}}, v24.nccl_version).tuning) == 32);
}

TEST_CASE("tuning: algorithm, protocol and channels NCCL logged per size on 4xH200 over NVLink", "[nccl]") {
  // scenarios/validation/h200x4/measured/logs/p2p_n4.rank0.log (NCCL 2.28.9, 4 processes, P2P/CUMEM):
  // "AllReduce: N Bytes -> Algo RING proto LL channel{Lo..Hi}={0..k}" lines, one per size.
  struct Row {
    int64_t bytes;
    Proto proto;
    int channels;
  };
  const Row rows[] = {{4, Proto::LL, 1},           {16384, Proto::LL, 1},         {32768, Proto::LL, 2},
                      {65536, Proto::LL, 4},       {131072, Proto::LL, 8},        {262144, Proto::LL, 16},
                      {524288, Proto::LL, 24},     {2097152, Proto::LL, 24},      {4194304, Proto::LL128, 24},
                      {8388608, Proto::LL128, 24}, {16777216, Proto::Simple, 24}, {1073741824, Proto::Simple, 24}};
  for (const Row& r : rows) {
    const Choice c = choose(h200x4_tuning(), TuningEnv{}, CollOp::AllReduce, r.bytes);
    INFO(r.bytes << " bytes");
    CHECK(c.algo == Algo::Ring);
    CHECK(c.proto == r.proto);
    CHECK(c.channels == r.channels);
  }
}

namespace {
// Checks every distinct "<Op>: N Bytes -> Algo A proto P channel{Lo..Hi}={0..k}" line of a real
// NCCL 2.28.9 log against choose() for `view`; returns (lines checked, lines with exact channels).
std::pair<int, int> check_log_choices(const std::string& log, const CommView& view) {
  std::ifstream in(log);
  REQUIRE(in.good());
  const std::regex re(
      R"((AllReduce|AllGather|ReduceScatter|Broadcast): (\d+) Bytes -> Algo (\w+) proto (\w+) channel\{Lo\.\.Hi\}=\{0\.\.(\d+)\})");
  std::set<std::string> seen;
  int checked = 0, exact = 0;
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (!std::regex_search(line, m, re) || !seen.insert(m[0]).second) continue;
    const std::string op = m[1];
    const CollOp c = op == "AllReduce"       ? CollOp::AllReduce
                     : op == "AllGather"     ? CollOp::AllGather
                     : op == "ReduceScatter" ? CollOp::ReduceScatter
                                             : CollOp::Broadcast;
    // NCCL logs count x type size: for all-gather and reduce-scatter that is one rank's share,
    // while choose() takes nccl-tests' total.
    const int64_t logged = std::stoll(m[2]);
    const int64_t total = c == CollOp::AllGather || c == CollOp::ReduceScatter ? logged * view.nranks : logged;
    const Choice got = choose(view, TuningEnv{}, c, total);
    INFO(log << ": " << m[0]);
    CHECK(std::string(algo_name(got.algo)) == (m[3] == "RING" ? "Ring" : m[3] == "TREE" ? "Tree" : std::string(m[3])));
    CHECK(std::string(proto_name(got.proto)) == (m[4] == "SIMPLE" ? "Simple" : std::string(m[4])));
    const int logged_channels = std::stoi(m[5]) + 1;
    CHECK(got.channels == logged_channels);
    exact += got.channels == logged_channels ? 1 : 0;
    ++checked;
  }
  return {checked, exact};
}
}  // namespace

TEST_CASE("tuning: every choice in NCCL's 4xH200 logs (all-reduce, all-gather, reduce-scatter, broadcast)", "[nccl]") {
  // The 4-process PyTorch jobs on the calibration machine: P2P over NVLink, and Socket with P2P
  // and SHM disabled (one NCCL node per GPU, see the Socket table test). Algorithms and protocols
  // must match, and so must channels: the thread-threshold rule, then the planner's cell layout
  // (channel_layout.hpp), which leaves 22 of 24 channels busy in 4 P2P lines (all-gather and
  // reduce-scatter at 512 KiB, broadcast at 512 KiB and 2 MiB).
  const std::string logs = std::string(COMMSIM_SOURCE_DIR) + "/scenarios/validation/h200x4/measured/logs/";
  const auto [p2p, p2p_exact] = check_log_choices(logs + "p2p_n4.rank0.log", h200x4_tuning());
  CHECK(p2p >= 80);
  CHECK(p2p_exact == p2p);
  CommView sock;
  sock.nranks = 4;
  sock.nnodes = 4;
  sock.intra_nvlink = false;
  sock.inter_gdr_near = false;
  sock.bw_intra_gbs = sock.bw_inter_gbs = 1.25;
  sock.graph_channels = 1;
  const auto [s, s_exact] = check_log_choices(logs + "sock_n4.rank0.log", sock);
  CHECK(s >= 80);
  CHECK(s_exact == s);  // with Simple's 256 threads on a graph no faster than PCIe
}

TEST_CASE("tuning: 2 x H200 (NV18): NCCL's table and every choice it logged", "[nccl]") {
  // scenarios/validation/h200x2/n2_tuning.log: NCCL 2.28.9, 2 processes, NCCL_DEBUG_SUBSYS=TUNING.
  // Same graph as 4 GPUs (12 x 30 GB/s) but 2 ranks: Ring all-reduce 7.8/141, 17.8/331.2,
  // 15.2/360; Tree 8.0/61.1, 16.5/180.6, 16.4/232.2; all-gather 7.2/282, 15.9/662.4, 11.8/720.
  CommView v = h200x4_tuning();
  v.nranks = 2;
  auto c = [&](CollOp op, Algo a, Proto p) { return nccl_cost(v, op, a, p); };
  CHECK(c(CollOp::AllReduce, Algo::Ring, Proto::LL).latency_us == Approx(7.8).margin(0.05));
  CHECK(c(CollOp::AllReduce, Algo::Ring, Proto::LL).algbw_gbs == Approx(141.0).margin(0.05));
  CHECK(c(CollOp::AllReduce, Algo::Ring, Proto::LL128).latency_us == Approx(17.8).margin(0.05));
  CHECK(c(CollOp::AllReduce, Algo::Ring, Proto::Simple).latency_us == Approx(15.2).margin(0.05));
  CHECK(c(CollOp::AllReduce, Algo::Ring, Proto::Simple).algbw_gbs == Approx(360.0).margin(0.05));
  CHECK(c(CollOp::AllReduce, Algo::Tree, Proto::LL).latency_us == Approx(8.0).margin(0.05));
  CHECK(c(CollOp::AllReduce, Algo::Tree, Proto::LL).algbw_gbs == Approx(61.1).margin(0.05));
  CHECK(c(CollOp::AllReduce, Algo::Tree, Proto::Simple).algbw_gbs == Approx(232.2).margin(0.05));
  CHECK(c(CollOp::AllGather, Algo::Ring, Proto::LL128).algbw_gbs == Approx(662.4).margin(0.05));
  CHECK(c(CollOp::AllGather, Algo::Ring, Proto::Simple).latency_us == Approx(11.8).margin(0.05));
  // Algorithms, protocols and channels all match, including the 6 lines where the planner's cell
  // layout runs 22 of the 24 channels (all-reduce 256 KiB, all-gather 128/256 KiB per rank, broadcast
  // 256 KiB-2 MiB).
  const auto [n, exact] =
      check_log_choices(std::string(COMMSIM_SOURCE_DIR) + "/scenarios/validation/h200x2/n2_tuning.log", v);
  CHECK(n >= 80);
  CHECK(exact == n);
}
