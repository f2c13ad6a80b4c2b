// NCCL's tuning model must reproduce, number for number, the table NCCL 2.28.9 printed on the
// 4xH200 machine (scenarios/validation/h200x4/measured/nccl-tests/ar_g4_info.txt, NCCL_DEBUG_SUBSYS=TUNING):
// graph "nChannels 12, bw 30/30, type NVL/PIX".
#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>
#include <regex>
#include <set>
#include <string>

#include "models/error.hpp"
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
  CHECK_FALSE(protocol_enabled(v, TuningEnv{}, Algo::Ring, Proto::LL128));
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
