// NCCL's example tuner plugin (models/nccl/example_tuner.hpp) against its plugin.c: the CSV as
// loadConfig reads it, the first usable row that matches, the channel answer NCCL keeps (1 before
// any match, -1 leaves it at 1, 0 gives NCCL's own), the releases, and the constants its init
// writes from 2.28.3.
#include <catch2/catch.hpp>

#include "models/comm_plan/comm_plan.hpp"
#include "models/nccl/env.hpp"
#include "models/nccl/example_tuner.hpp"
#include "models/nccl/tuner_tables.hpp"
#include "models/nccl/tuning.hpp"
#include "models/parse_error.hpp"
#include "models/world/world.hpp"
#include "sim/flow_network.hpp"
#include "sim/simulator.hpp"
#include "tests/models/nccl/tuner_view.hpp"

using namespace models::nccl;

namespace {
const auto kAnyCombination = [](Algo, Proto) { return true; };
constexpr int kRelease = 22809;  // 2.28.9: rows and constants

std::string parse_error_of(const std::string& text) {
  try {
    parse_example_tuner_config(text, "t.csv");
  } catch (const models::ParseError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("example tuner: rows as plugin.c reads them (comments, spaces, optional fields, CRLF)", "[nccl]") {
  const auto rows = parse_example_tuner_config(
      "# header\n"
      "\n"
      "allreduce,0,65536,tree,simple,2,1,-1,-1,1\r\n"
      " allgather , 65537 ,\t1048576, ring ,ll128,-1,4,32\n"
      "broadcast,0,4294967295,nvls_tree,ll,0,-1,-1,4\n",
      "t.csv");
  REQUIRE(rows.size() == 3);
  CHECK(rows[0].op == CollOp::AllReduce);
  CHECK(rows[0].max_bytes == 65536);
  CHECK(rows[0].algo == Algo::Tree);
  CHECK(rows[0].channels == 2);
  CHECK(rows[0].reg_buff == 1);
  CHECK(rows[0].line == 3);
  CHECK(rows[1].op == CollOp::AllGather);
  CHECK(rows[1].min_bytes == 65537);
  CHECK(rows[1].proto == Proto::LL128);
  CHECK(rows[1].nodes == 4);
  CHECK(rows[1].ranks == 32);
  CHECK(rows[1].pipe_ops == -1);  // absent: any
  CHECK(rows[1].reg_buff == -1);
  CHECK(rows[2].algo == Algo::NVLSTree);
  CHECK(rows[2].proto == Proto::LL);
  CHECK(rows[2].channels == 0);
  CHECK(rows[2].pipe_ops == 4);
}

TEST_CASE("example tuner: what the plugin would misread or skip is an error at its line and column", "[nccl]") {
  // strcmp: "Tree" is read as ring.
  CHECK(parse_error_of("#\nallreduce,0,1,Tree,simple,1,-1,-1\n").starts_with("t.csv:2:15: unknown algorithm 'Tree'"));
  CHECK(parse_error_of("allreduce,0,1,Tree,simple,1,-1,-1").find("reads this one as ring") != std::string::npos);
  CHECK(parse_error_of("all_reduce,0,1,ring,simple,1,-1,-1").starts_with("t.csv:1:1: unknown collective"));
  CHECK(parse_error_of("allreduce,0,1,ring,LL,1,-1,-1").find("as simple") != std::string::npos);
  // strtoull stops at the first non-digit: 1M is 1.
  CHECK(parse_error_of("allreduce,0,1M,ring,simple,1,-1,-1").starts_with("t.csv:1:13: max_bytes '1M'"));
  CHECK(parse_error_of("allreduce,0,1M,ring,simple,1,-1,-1").find("(1)") != std::string::npos);
  // strtok drops an empty field and shifts the rest.
  CHECK(parse_error_of("allreduce,0,,ring,simple,1,-1,-1,-1").starts_with("t.csv:1:13: an empty field"));
  CHECK(parse_error_of("allreduce,0,1,ring,simple,1,-1").starts_with("t.csv:1:1: 7 fields"));
  CHECK(parse_error_of("allreduce,0,1,ring,simple,1,-1,-1,-1,-1,9").starts_with("t.csv:1:1: 11 fields"));
  CHECK(parse_error_of("allreduce,9,1,ring,simple,1,-1,-1").starts_with("t.csv:1:13: max_bytes 1 is below"));
  CHECK(parse_error_of("allreduce,0,1,ring,simple,-2,-1,-1").starts_with("t.csv:1:27: channels -2 is out of range"));
  CHECK(parse_error_of("allreduce,0,1,ring,simple,1,0,-1").starts_with("t.csv:1:29: 0 never matches"));
  CHECK(parse_error_of("allreduce,0,1,ring,simple,1,-1,-1,-1,2").find("regBuff 2 is out of range") !=
        std::string::npos);
  // fgets reads 255 characters, the newline among them: 254 is the longest row.
  const std::string row = "allreduce,0,1,ring,simple,1,-1,-1";
  CHECK(parse_error_of(row + std::string(254 - row.size(), ' ')).empty());
  CHECK(parse_error_of(row + std::string(255 - row.size(), ' ')).starts_with("t.csv:1:255: line of 255 characters"));
}

TEST_CASE("example tuner: the first usable row that matches, and the channels NCCL keeps", "[nccl]") {
  const auto rows = parse_example_tuner_config(
      "allreduce,0,1048575,tree,ll,-1,-1,-1\n"
      "allreduce,1048576,1048576,ring,ll128,0,2,16\n"
      "allreduce,1048576,8388608,nvls,simple,8,-1,-1\n"
      "allreduce,1048576,8388608,ring,simple,4,-1,-1\n"
      "allgather,0,100,ring,simple,3,-1,-1,2\n"
      "allgather,0,100,ring,simple,5,-1,-1,-1,1\n",
      "t.csv");
  const auto pick = [&](CollOp op, int64_t bytes, int nodes, int ranks, auto usable) {
    return example_tuner_choice(rows, kRelease, ranks, nodes, op, bytes, usable);
  };
  // Row 1, channels -1: the plugin's default answer, 1 channel.
  auto c = pick(CollOp::AllReduce, 4096, 2, 16, kAnyCombination);
  CHECK((c.algo == Algo::Tree && c.proto == Proto::LL && c.channels == 1 && c.row_line == 1));
  // Both bounds inclusive; nodes and ranks must equal the communicator's: row 2 on 2 x 8, row 3 on 4 x 8.
  c = pick(CollOp::AllReduce, 1048576, 2, 16, kAnyCombination);
  CHECK((c.algo == Algo::Ring && c.proto == Proto::LL128 && c.channels == 0 && c.row_line == 2));
  c = pick(CollOp::AllReduce, 1048576, 4, 32, kAnyCombination);
  CHECK((c.algo == Algo::NVLS && c.channels == 8 && c.row_line == 3));
  // NVLS unusable (no multicast): the plugin goes on to row 4.
  c = pick(CollOp::AllReduce, 8388608, 4, 32, [](Algo a, Proto) { return a != Algo::NVLS; });
  CHECK((c.algo == Algo::Ring && c.proto == Proto::Simple && c.channels == 4 && c.row_line == 4));
  // No row: NCCL's own algorithm, but the plugin's 1 channel stands.
  c = pick(CollOp::AllReduce, 8388609, 4, 32, kAnyCombination);
  CHECK((!c.algo && c.channels == 1 && c.row_line == 0));
  c = pick(CollOp::ReduceScatter, 64, 4, 32, kAnyCombination);
  CHECK((!c.algo && c.channels == 1));
  // One call on unregistered buffers: rows for 2 pipelined operations or registered buffers never match.
  CHECK_FALSE(pick(CollOp::AllGather, 64, 1, 8, kAnyCombination).algo);
}

TEST_CASE("example tuner: releases -- Ring/Simple everywhere before 2.27.5, no plugin before 2.19", "[nccl]") {
  const auto rows = parse_example_tuner_config("allreduce,0,100,tree,ll,8,-1,-1\n", "t.csv");
  auto c = example_tuner_choice(rows, 22703, 16, 2, CollOp::AllReduce, 64, kAnyCombination);
  CHECK((c.algo == Algo::Ring && c.proto == Proto::Simple && c.channels == 1));
  c = example_tuner_choice(rows, 22703, 16, 2, CollOp::AllReduce, 64, [](Algo a, Proto) { return a != Algo::Ring; });
  CHECK((!c.algo && c.channels == 1));
  c = example_tuner_choice(rows, 22705, 16, 2, CollOp::AllReduce, 64, kAnyCombination);
  CHECK((c.algo == Algo::Tree && c.channels == 8));
  // parse_nccl_env: loaded by "example" or the library's path, not before 2.19.
  const std::map<std::string, std::string> env{{"NCCL_TUNER_PLUGIN", "/opt/nccl/libnccl-tuner-example.so"}};
  CHECK(parse_nccl_env(env, 22809).tuning.example_tuner);
  CHECK_FALSE(parse_nccl_env(env, 21805).tuning.example_tuner);
  CHECK_FALSE(parse_nccl_env({{"NCCL_TUNER_PLUGIN", "libnccl-tuner-mine.so"}}, 22809).tuning.example_tuner);
  CHECK(parse_nccl_env({{"NCCL_TUNER_PLUGIN", "example"}}, 22809, "allreduce,0,1,ring,simple,1,-1,-1\n")
            .tuning.example_rows.size() == 1);
}

TEST_CASE("example tuner: from 2.28.3 its init rewrites three Blackwell constants at 3+ nodes", "[nccl]") {
  const TunerTables& nccl = tuner_tables(22809);
  const TunerTables& plugin = tuner_tables(22809, true);
  CHECK(plugin.tree_per_ch[3][2] == 15.0);
  CHECK(plugin.ring_ll128_per_ch[3][2] == 20.0);
  CHECK(plugin.nvls_inter_lat == 24.0);
  // Everything else is NCCL's: one and two nodes, Hopper.
  CHECK(plugin.tree_per_ch[3][1] == nccl.tree_per_ch[3][1]);
  CHECK(plugin.ring_ll128_per_ch[2][2] == nccl.ring_ll128_per_ch[2][2]);
  CHECK(plugin.base_lat[1][2] == nccl.base_lat[1][2]);
  // Before 2.28.3 (tuner API v4) the plugin has no constants.
  CHECK(&tuner_tables(22707, true) == &tuner_tables(22707));
}

TEST_CASE("example tuner: NCCL's choice on 2 x a4-highgpu-8g follows the rows, on the rows' channels", "[nccl]") {
  CommView v = tuner_test::whole_cluster_view("a4-highgpu-8g", 2);
  v.nccl_version = kRelease;
  v.example_tuner = true;
  TuningEnv env;
  env.example_tuner = true;
  env.example_rows = parse_example_tuner_config(
      "allgather,1048576,33554432,ring,simple,0,2,-1\n"
      "allgather,33554433,1073741824,ring,simple,4,-1,-1\n",
      "t.csv");
  const TuningEnv nccl = TuningEnv{};
  const TuningEnv simple = parse_nccl_env({{"NCCL_PROTO", "Simple"}}, kRelease).tuning;
  // 4 MiB: row 1, Ring/Simple on NCCL's own channel count for Ring/Simple (channels 0).
  const Choice row1 = choose(v, env, CollOp::AllGather, 4 << 20);
  const Choice forced = choose(v, simple, CollOp::AllGather, 4 << 20);
  CHECK((row1.algo == Algo::Ring && row1.proto == Proto::Simple));
  CHECK(row1.channels == forced.channels);
  CHECK(row1.channels > 1);
  // NCCL alone runs LL128 there (the measured runs of Google's GKE table took Simple: 80-84 us at 1-4 MiB).
  CHECK(choose(v, nccl, CollOp::AllGather, 4 << 20).proto == Proto::LL128);
  // 64 MiB: row 2, 4 channels.
  const Choice row2 = choose(v, env, CollOp::AllGather, 64 << 20);
  CHECK((row2.proto == Proto::Simple && row2.channels == 4));
  // 512 KiB: no row, NCCL's algorithm and protocol on the plugin's one channel (NCCL alone: 8).
  const Choice none = choose(v, env, CollOp::AllGather, 512 << 10);
  const Choice own = choose(v, nccl, CollOp::AllGather, 512 << 10);
  CHECK((none.algo == own.algo && none.proto == own.proto));
  CHECK(own.channels > 1);
  CHECK(none.channels == 1);
}

TEST_CASE("example tuner: the run's note by what [nccl.env] sets and the release", "[nccl]") {
  const std::map<std::string, std::string> both{{"NCCL_TUNER_PLUGIN", "example"}, {"NCCL_TUNER_CONFIG_FILE", "t.csv"}};
  CHECK(example_tuner_note(both, kRelease)->find("a row whose channels are -1, run on 1 channel") != std::string::npos);
  CHECK(example_tuner_note(both, kRelease)->find("Blackwell constants") != std::string::npos);
  CHECK(example_tuner_note(both, 22705)->find("Blackwell constants") == std::string::npos);
  CHECK(example_tuner_note(both, 22703)->find("runs every collective as Ring/Simple on 1 channel") !=
        std::string::npos);
  CHECK(example_tuner_note(both, 21805)->find("loads no tuner plugin") != std::string::npos);
  CHECK(example_tuner_note({{"NCCL_TUNER_PLUGIN", "example"}}, kRelease)
            ->find("without NCCL_TUNER_CONFIG_FILE: the plugin would read nccl_tuner.conf") != std::string::npos);
  CHECK(example_tuner_note({{"NCCL_TUNER_CONFIG_FILE", "t.csv"}}, kRelease)->find("no tuner reads it") !=
        std::string::npos);
  CHECK_FALSE(example_tuner_note({{"NCCL_TUNER_PLUGIN", "none"}}, kRelease));
}
