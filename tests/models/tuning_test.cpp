// NCCL's tuning model must reproduce, number for number, the table NCCL 2.28.9 printed on the
// 4xH200 machine (../shared/calibration/h200x4/nccl-tests/ar_g4_info.txt, NCCL_DEBUG_SUBSYS=TUNING):
// graph "nChannels 12, bw 30/30, type NVL/PIX".
#include <catch2/catch.hpp>

#include "models/error.hpp"
#include "models/nccl/tuning.hpp"

using namespace models::nccl;

namespace {
CommView h200x4() {
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
  const AlgoCost c = nccl_cost(h200x4(), op, a, p);
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
  check(CollOp::AllReduce, Algo::Ring, Proto::LL, 10.2, 94.0);       // 6.6 + 6 x .6; 141 x 4/6
  check(CollOp::AllReduce, Algo::Ring, Proto::LL128, 25.4, 220.8);
  check(CollOp::AllReduce, Algo::Ring, Proto::Simple, 28.8, 240.0);
  // Tree all-reduce: base + 2 (ppn-1) hop; busBw x .92, LL / 3.8, LL128 x 7/9, algBw = busBw / 2.
  check(CollOp::AllReduce, Algo::Tree, Proto::LL, 10.4, 43.6);
  check(CollOp::AllReduce, Algo::Tree, Proto::LL128, 21.5, 128.8);
  check(CollOp::AllReduce, Algo::Tree, Proto::Simple, 32.4, 165.6);
  // Tree exists only for all-reduce.
  CHECK(nccl_cost(h200x4(), CollOp::AllGather, Algo::Tree, Proto::Simple).algbw_gbs == 0);
}

TEST_CASE("tuning: NCCL picks LL, then LL128, then Simple as messages grow", "[nccl]") {
  const TuningEnv env;
  // Crossovers from the table: LL/LL128 at 10.2 + S/94e3 = 25.4 + S/220.8e3 -> S = 2.49 MB;
  // LL128/Simple at 25.4 + S/220.8e3 = 28.8 + S/240e3 -> S = 9.4 MB.
  CHECK(choose(h200x4(), env, CollOp::AllReduce, 8).proto == Proto::LL);
  CHECK(choose(h200x4(), env, CollOp::AllReduce, 2 << 20).proto == Proto::LL);
  CHECK(choose(h200x4(), env, CollOp::AllReduce, 4 << 20).proto == Proto::LL128);
  CHECK(choose(h200x4(), env, CollOp::AllReduce, 8 << 20).proto == Proto::LL128);
  CHECK(choose(h200x4(), env, CollOp::AllReduce, 16 << 20).proto == Proto::Simple);
  CHECK(choose(h200x4(), env, CollOp::AllReduce, 1 << 30).algo == Algo::Ring);
  // 24 channels for large messages (the log's "24 coll channels"), fewer for small ones.
  CHECK(choose(h200x4(), env, CollOp::AllReduce, 1 << 30).channels == 24);
  CHECK(choose(h200x4(), env, CollOp::AllReduce, 8).channels == 1);
}

TEST_CASE("tuning: NCCL_ALGO, NCCL_PROTO and channel limits use NCCL's syntax", "[nccl]") {
  TuningEnv env = TuningEnv::from({{"NCCL_PROTO", "Simple"}, {"NCCL_ALGO", "Tree"}});
  const Choice c = choose(h200x4(), env, CollOp::AllReduce, 1 << 20);
  CHECK(c.algo == Algo::Tree);
  CHECK(c.proto == Proto::Simple);
  env = TuningEnv::from({{"NCCL_PROTO", "^LL128,LL"}});
  CHECK(choose(h200x4(), env, CollOp::AllReduce, 8).proto == Proto::Simple);
  env = TuningEnv::from({{"NCCL_MAX_NCHANNELS", "4"}});
  CHECK(choose(h200x4(), env, CollOp::AllReduce, 1 << 30).channels == 4);
  CHECK_THROWS_AS(TuningEnv::from({{"NCCL_PROTO", "Fast"}}), models::SpecError);
  CHECK_THROWS_WITH(TuningEnv::from({{"NCCL_MAX_NCHANNELS", "many"}}),
                    Catch::Contains("expected an integer"));
}

TEST_CASE("tuning: multi-node rings pay network hops; LL128 needs NVLink inside the node", "[nccl]") {
  CommView v = h200x4();
  v.nranks = 16;
  v.nnodes = 4;
  v.bw_inter_gbs = 12.5;
  v.graph_channels = 4;
  // Ring all-reduce LL latency: 6.6 + (30 - 6) x .6 + 6 x 2.7 = 37.2 us (nInter = 2 (nodes-1)).
  CHECK(nccl_cost(v, CollOp::AllReduce, Algo::Ring, Proto::LL).latency_us == Approx(37.2));
  v.intra_nvlink = false;
  CHECK_FALSE(protocol_enabled(v, TuningEnv{}, Algo::Ring, Proto::LL128));
}
