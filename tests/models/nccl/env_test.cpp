// The NCCL environment, parsed once per run (models/nccl/env.hpp): one struct for the transport
// rules, the channel counts and the tuner, one list of modelled variables, one integer syntax.
#include <catch2/catch.hpp>

#include <map>
#include <string>

#include "models/error.hpp"
#include "models/nccl/env.hpp"
#include "models/nccl/ops.hpp"
#include "models/nccl/tuner_tables.hpp"
#include "models/world/world.hpp"
#include "sim/flow_network.hpp"
#include "sim/simulator.hpp"

using namespace models::nccl;

TEST_CASE("nccl env: every modelled variable is parsed, and a value NCCL would refuse is an error", "[nccl]") {
  const auto& names = modelled_nccl_variables();
  REQUIRE(names.size() == 33);  // with NCCL_NVLS_ENABLE/NCHANNELS (NVLS), NCCL_COLLNET_ENABLE, NCCL_PXN_DISABLE,
                                // NCCL_MNNVL_ENABLE (multi-node NVLink domains), NCCL_TUNER_PLUGIN,
                                // NCCL_TUNER_CONFIG_FILE (NCCL's example tuner's rows) and
                                // aws-ofi-nccl's OFI_NCCL_TUNER_TYPE, OFI_NCCL_FORCE_NUM_RAILS, and
                                // NCCL_NVLS_CHUNKSIZE, NCCL_NVLSTREE_MAX_CHUNKSIZE (NVLSTree's chunk),
                                // NCCL_P2P_LL_THRESHOLD (point-to-point's LL limit), NCCL_PAT_ENABLE
  for (const std::string& name : names) {
    INFO(name);
    // NCCL_TUNER_PLUGIN names a library: NCCL refuses no value (one it cannot open falls back to the
    // net plugin's tuner; ofi_tuner_test.cpp checks "none").
    // NCCL_TUNER_CONFIG_FILE names a file, which the scenario loader reads and checks.
    if (name == "NCCL_TUNER_PLUGIN" || name == "NCCL_TUNER_CONFIG_FILE") continue;
    // An empty NCCL_HOSTID is the one value of it NCCL cannot use; for the others, a word.
    const std::string bad = name == "NCCL_HOSTID" ? "" : "not-a-value";
    try {
      parse_nccl_env({{name, bad}});
      FAIL("accepted " + name + "='" + bad + "'");
    } catch (const models::SpecError& e) {
      CHECK(e.key() == "nccl.env." + name);
    }
  }
}

TEST_CASE("nccl env: aws-ofi-nccl's platform variables apply under the scenario's", "[nccl]") {
  // p5: the plugin sets NCCL_BUFFSIZE 8 MiB and the NVLS chunks 512 KiB (src/platform-aws.cpp);
  // a scenario's own value wins; a host without the plugin (DGX, InfiniBand) keeps NCCL's.
  const auto env_of = [](const char* instance, std::map<std::string, std::string> env) {
    models::ScenarioSpec s;
    s.cluster.instance = instance;
    s.cluster.nodes = 1;
    s.placement.pods_per_node = 1;
    s.placement.gpus_per_pod = 8;
    s.nccl_env = std::move(env);
    sim::Simulator sim;
    sim::FlowNetwork net(sim);
    return models::World::build(s, net)->nccl_env();
  };
  const NcclEnv p5 = env_of("p5.48xlarge", {});
  CHECK(p5.buffsize == int64_t{8} << 20);
  CHECK(p5.nvls_chunksize == int64_t{512} << 10);
  CHECK(p5.nvlstree_max_chunksize == int64_t{512} << 10);
  const NcclEnv mine = env_of("p5.48xlarge", {{"NCCL_BUFFSIZE", "4194304"}});
  CHECK(mine.buffsize == int64_t{4} << 20);
  CHECK(mine.nvls_chunksize == int64_t{512} << 10);
  const NcclEnv p4d = env_of("p4d.24xlarge", {});
  CHECK(p4d.buffsize == int64_t{8} << 20);
  // EFA v1 lacks in-order delivery: the plugin adds NCCL_PROTO=simple (seeds/notes/000's log), p5 not.
  CHECK(p4d.raw.at("NCCL_PROTO") == "simple");
  CHECK(p4d.tuning.proto_on(CollOp::AllReduce, Proto::LL) == 0);
  CHECK(p4d.tuning.proto_on(CollOp::AllGather, Proto::LL128) == 0);
  CHECK(p4d.tuning.proto_on(CollOp::AllGather, Proto::Simple) == 1);
  CHECK(p5.raw.count("NCCL_PROTO") == 0);
  CHECK(env_of("p4d.24xlarge", {{"NCCL_PROTO", "LL,Simple"}}).tuning.proto_on(CollOp::AllReduce, Proto::LL) == 1);
  CHECK(p4d.nvls_chunksize == int64_t{128} << 10);  // the plugin sets no NVLS chunk on p4d
  const NcclEnv dgx = env_of("dgx-h100", {});
  CHECK(dgx.buffsize == int64_t{4} << 20);
  CHECK(dgx.nvlstree_max_chunksize == -2);
}

TEST_CASE("nccl env: integers are read as NCCL reads them (strtoll, base 0), by every reader", "[nccl]") {
  const NcclEnv e = parse_nccl_env({{"NCCL_BUFFSIZE", "0x100000"}, {"NCCL_MAX_NCHANNELS", "010"}});
  CHECK(e.buffsize == 1 << 20);
  CHECK(e.max_nchannels == 8);  // octal, as NCCL's strtoll(.., 0) reads it
  REQUIRE(e.tuning.max_channels);
  CHECK(*e.tuning.max_channels == 8);  // the tuner sees the same number
  try {
    parse_nccl_env({{"NCCL_MIN_NCHANNELS", "65"}});
    FAIL("65 channels accepted");
  } catch (const models::SpecError& e) {
    CHECK(std::string(e.what()) == "NCCL_MIN_NCHANNELS=65 is out of range (expected an integer from 1 to 64)");
  }
}

TEST_CASE("nccl env: NCCL_MIN/MAX_CTAS combine with NCCL_MIN/MAX_NCHANNELS as connect.cc does", "[nccl]") {
  // connect.cc: nChannels = min(ncclMaxNchannels(), nChannels, maxCTAs), copied up to
  // max(ncclMinNchannels(), minCTAs): the smaller maximum and the larger minimum.
  const NcclEnv e = parse_nccl_env({{"NCCL_MAX_CTAS", "8"},
                                    {"NCCL_MAX_NCHANNELS", "4"},
                                    {"NCCL_MIN_CTAS", "2"},
                                    {"NCCL_MIN_NCHANNELS", "1"},
                                    {"NCCL_PROTO", "Simple"}});
  CHECK(*e.tuning.max_channels == 4);
  CHECK(*e.tuning.min_channels == 2);
  const NcclEnv f = parse_nccl_env({{"NCCL_MAX_CTAS", "16"}, {"NCCL_MAX_NCHANNELS", "2"}});
  CHECK(*f.tuning.max_channels == 2);
  CHECK(*parse_nccl_env({{"NCCL_MAX_CTAS", "3"}}).tuning.max_channels == 3);
  CHECK(*parse_nccl_env({{"NCCL_MIN_NCHANNELS", "5"}, {"NCCL_MIN_CTAS", "3"}}).tuning.min_channels == 5);
  // MAXCHANNELS caps them: 64 from 2.25, 32 before (src/include/device.h).
  CHECK(*parse_nccl_env({{"NCCL_MIN_NCHANNELS", "64"}}).tuning.min_channels == 64);
  CHECK(*parse_nccl_env({{"NCCL_MIN_NCHANNELS", "64"}}, models::nccl::nccl_version_number(24, 3)).tuning.min_channels ==
        32);
  CHECK(max_channels_of(models::nccl::nccl_version_number(24, 3)) == 32);
  CHECK(max_channels_of(models::nccl::nccl_version_number(25, 1)) == 64);
  CHECK(max_channels_of(0) == 64);
  CHECK(e.tuning.proto_on(CollOp::AllReduce, Proto::LL) == 0);
  CHECK(e.tuning.proto_on(CollOp::AllReduce, Proto::LL128) == 0);
  CHECK(e.tuning.proto_on(CollOp::AllReduce, Proto::Simple) == 1);
  const NcclEnv none = parse_nccl_env({});
  CHECK_FALSE(none.tuning.max_channels);
  CHECK(none.tuning.proto_on(CollOp::AllGather, Proto::LL128) == 2);  // NCCL's own LL128 rule
}

TEST_CASE("nccl env: NCCL_ALGO / NCCL_PROTO per collective (2.24+), empty values, older releases", "[nccl]") {
  const auto algo = [](const std::string& v, int version = 0) {
    return parse_nccl_env({{"NCCL_ALGO", v}}, version).tuning;
  };
  const TuningEnv per = algo("allreduce:tree;allgather:ring");
  CHECK(per.algo_on(CollOp::AllReduce, Algo::Tree));
  CHECK_FALSE(per.algo_on(CollOp::AllReduce, Algo::Ring));
  CHECK(per.algo_on(CollOp::AllGather, Algo::Ring));
  CHECK_FALSE(per.algo_on(CollOp::AllGather, Algo::PAT));
  CHECK(per.algo_on(CollOp::ReduceScatter, Algo::PAT));  // not named: unchanged
  CHECK(per.algo_on(CollOp::Broadcast, Algo::Tree));
  // The first entry may set every collective, the later ones override theirs.
  const TuningEnv first = algo("ring;AllReduce:^ring");
  CHECK(first.algo_on(CollOp::AllGather, Algo::Ring));
  CHECK_FALSE(first.algo_on(CollOp::AllGather, Algo::Tree));
  CHECK_FALSE(first.algo_on(CollOp::AllReduce, Algo::Ring));
  CHECK(first.algo_on(CollOp::AllReduce, Algo::NVLS));
  // "^LL128;allreduce:LL128": the prefixed entry resets all-reduce's row before naming LL128.
  const TuningEnv proto = parse_nccl_env({{"NCCL_PROTO", "^LL128;allreduce:LL128"}}).tuning;
  CHECK(proto.proto_on(CollOp::AllGather, Proto::LL) == 1);
  CHECK(proto.proto_on(CollOp::AllGather, Proto::LL128) == 0);
  CHECK(proto.proto_on(CollOp::AllReduce, Proto::LL128) == 1);
  CHECK(proto.proto_on(CollOp::AllReduce, Proto::Simple) == 0);
  // 2.24 on: an empty value changes nothing (parseList's strtok finds no entry).
  const TuningEnv empty = algo("");
  CHECK(empty.algo_on(CollOp::AllReduce, Algo::Tree));
  CHECK(empty.algo_on(CollOp::AllGather, Algo::Ring));
  CHECK(parse_nccl_env({{"NCCL_PROTO", ""}}).tuning.proto_on(CollOp::AllReduce, Proto::LL128) == 2);
  // Before 2.24: one list for every collective, and an empty one turns every algorithm off.
  const int v23 = models::nccl::nccl_version_number(23, 4);
  CHECK_FALSE(algo("", v23).algo_on(CollOp::AllReduce, Algo::Ring));
  CHECK(algo("^tree", v23).algo_on(CollOp::AllGather, Algo::Ring));
  CHECK_FALSE(algo("^tree", v23).algo_on(CollOp::AllReduce, Algo::Tree));
  const auto message = [](const std::map<std::string, std::string>& env, int version) {
    try {
      parse_nccl_env(env, version);
    } catch (const models::SpecError& e) {
      return e.key() + ": " + e.what();
    }
    return std::string("accepted");
  };
  CHECK(message({{"NCCL_ALGO", "allreduce:tree"}}, v23) ==
        "nccl.env.NCCL_ALGO: unknown value 'allreduce:tree' in NCCL_ALGO (the per-collective form FUNC:LIST came "
        "with NCCL 2.24; expected nccl.version 2.24 or later, or a comma-separated list of Tree, Ring, PAT, "
        "CollNetDirect, CollNetChain, NVLS, NVLSTree)");
  CHECK(message({{"NCCL_ALGO", "ring;tree"}}, 0) ==
        "nccl.env.NCCL_ALGO: NCCL_ALGO='ring;tree': every entry after the first needs a FUNC: prefix (expected a "
        "comma-separated list of Tree, Ring, PAT, CollNetDirect, CollNetChain, NVLS, NVLSTree, optionally starting "
        "with ^; or FUNC:LIST entries separated by ;, FUNC one of Broadcast, Reduce, AllGather, ReduceScatter, "
        "AllReduce)");
  CHECK(message({{"NCCL_PROTO", "alltoall:simple"}}, 0) ==
        "nccl.env.NCCL_PROTO: unknown collective 'alltoall' in NCCL_PROTO (expected a comma-separated list of LL, "
        "LL128, Simple, optionally starting with ^; or FUNC:LIST entries separated by ;, FUNC one of Broadcast, "
        "Reduce, AllGather, ReduceScatter, AllReduce)");
  CHECK(parse_nccl_env({{"NCCL_PAT_ENABLE", "0"}}).tuning.pat_enable == 0);
  CHECK(message({{"NCCL_PAT_ENABLE", "3"}}, 0) ==
        "nccl.env.NCCL_PAT_ENABLE: NCCL_PAT_ENABLE=3 is out of range (expected an integer from 0 to 2)");
}

TEST_CASE("nccl env: the World parses the scenario's [nccl.env] once and hands it out", "[nccl]") {
  models::ScenarioSpec spec;
  spec.cluster.instance = "h200x4";
  spec.nccl_env = {{"NCCL_BUFFSIZE", "8388608"}, {"NCCL_ALGO", "Ring"}};
  sim::Simulator simulator;
  sim::FlowNetwork net(simulator);
  const auto world = models::World::build(spec, net);
  CHECK(world->nccl_env().buffsize == 8388608);
  CHECK(world->nccl_env().tuning.algo_on(CollOp::AllReduce, Algo::Ring));
  CHECK_FALSE(world->nccl_env().tuning.algo_on(CollOp::AllReduce, Algo::Tree));
  CHECK(world->nccl_env().raw == spec.nccl_env);
}
