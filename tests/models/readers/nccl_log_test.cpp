// NCCL log parser and diagnosis on the real logs: the seeds' 4-pod runs on p4d.24xlarge (EFA,
// seeds/000) and g6e.8xlarge (plugin failure, Socket fallback, seeds/004), extracted to
// scenarios/examples/inputs/, and the 4 x H200 calibration logs (scenarios/validation/h200x4/measured).
#include <catch2/catch.hpp>

#include <algorithm>

#include "models/nccl/diagnosis.hpp"
#include "models/parse_error.hpp"
#include "models/readers/nccl_log.hpp"

using namespace models::nccl;
using namespace models::readers;

namespace {
const std::string kInputs = std::string(COMMSIM_SOURCE_DIR) + "/scenarios/examples/inputs/";
const std::string kCal = std::string(COMMSIM_SOURCE_DIR) + "/scenarios/validation/h200x4/measured/";

const Finding* find(const std::vector<Finding>& fs, const std::string& id) {
  for (const auto& f : fs)
    if (f.id == id) return &f;
  return nullptr;
}
}  // namespace

TEST_CASE("nccl log: seed 000, 4 pods x 1 GPU on one p4d.24xlarge over EFA", "[models][nccl]") {
  auto r = parse_nccl_log_file(kInputs + "seed000_p4d_4pods_efa.log");
  CHECK(r.nccl_version == "2.27.3+cuda12.9");
  CHECK(r.hosts == std::vector<std::string>{"llama-3-8b-node-0-0"});
  CHECK(r.nranks == 4);
  CHECK(r.nnodes == 4);
  CHECK(r.local_ranks == 1);
  CHECK(r.comms.size() == 2);  // the init communicator and its ncclCommSplit
  REQUIRE(!r.channels.empty());
  CHECK(r.channels.front().coll == 2);
  CHECK(r.channels.front().p2p == 2);
  REQUIRE(r.rings.size() == 2);
  CHECK(r.rings[0].ranks == std::vector<int>{0, 1, 2, 3});
  // Rank 0's tree entries "[0] 2/-1/-1->0->-1 [1] -1/-1/-1->0->1"
  REQUIRE(r.trees.size() == 2);
  CHECK(r.trees[0].down == std::vector<int>{2});
  CHECK(r.trees[0].up == -1);
  CHECK(r.trees[1].up == 1);
  // Every connection rank 0 made, over both comms, deduplicated: EFA with GPUDirect RDMA.
  CHECK(r.transport_kinds.size() == 1);
  CHECK(r.transport_kinds.at("NET/Libfabric/GDRDMA") == 12);
  CHECK(r.net_plugin_requested == "libnccl-net.so");
  CHECK(r.net_plugin_loaded == "Libfabric (v10)");
  CHECK(r.ofi_version == "aws-ofi-nccl 1.16.2");
  CHECK(r.ofi_provider == "efa");
  CHECK(r.ofi_nics == 1);
  CHECK_FALSE(r.plugin_failed);
  CHECK(r.network == "Libfabric");
  CHECK(r.platform == "p4d.24xlarge");
  CHECK(r.gdr == std::vector<int>{0, 0});
  REQUIRE(r.find_env("NCCL_PROTO"));
  CHECK(r.find_env("NCCL_PROTO")->value == "simple");
  CHECK(r.find_env("NCCL_PROTO")->source == "NET/OFI");
  CHECK(r.find_env("NCCL_BUFFSIZE")->value == "8388608");
  CHECK(r.find_env("NCCL_SOCKET_IFNAME")->source == "environment");
  CHECK(r.topo_file == "/opt/amazon/ofi-nccl/share/aws-ofi-nccl/xml/p4d-24xl-topo.xml");
  CHECK(r.forced_protocol_reason == "byte delivery ordering not supported");
  REQUIRE(r.init_timings.size() == 2);
  CHECK(r.init_timings[0].function == "ncclCommInitRankConfig");
  CHECK(r.init_timings[0].total_s == Approx(8.31));
  CHECK(r.init_timings[0].parts_s.at("bootstrap") == Approx(8.13));
  // The Enabled Func/Proto/Algo matrix: only Simple on, every algorithm on.
  REQUIRE(r.enabled.size() == 5);
  CHECK(r.enabled.back().function == "AllReduce");
  CHECK_FALSE(r.enabled.back().protos.at("LL"));
  CHECK(r.enabled.back().protos.at("Simple"));
  CHECK(r.enabled.back().algos.at("Ring"));
  // Trainer lines among the program output.
  CHECK(r.trainable_parameters == 8030261248LL);
  CHECK(r.micro_batch == 4);
  CHECK(r.grad_accum == 4);
  CHECK(r.total_steps == 50);
  CHECK(r.deepspeed_zero3);

  auto fs = diagnose_log(r);
  CHECK_FALSE(find(fs, "net-plugin-failed"));
  CHECK_FALSE(find(fs, "gdr-off"));         // GDRDMA in the transports
  CHECK_FALSE(find(fs, "long-bootstrap"));  // 8.1 s is under the 10 s threshold
  REQUIRE(find(fs, "ranks-isolated"));
  CHECK(find(fs, "ranks-isolated")->severity == Severity::Warning);  // p4d.24xlarge has 8 GPUs
  CHECK(find(fs, "ranks-isolated")->message.find("8 GPUs") != std::string::npos);
  // The seeds' pods had hostIPC and were still apart: the host hash (hostname) keeps them so.
  CHECK(find(fs, "ranks-isolated")->message.find("hostIPC alone does not change that") != std::string::npos);
  CHECK(find(fs, "ranks-isolated")->advice.find("hostNetwork: true and hostIPC: true") != std::string::npos);
  REQUIRE(find(fs, "protocol-forced"));
  CHECK(find(fs, "protocol-forced")->message.find("NET/OFI") != std::string::npos);
  REQUIRE(find(fs, "few-channels"));
  CHECK(find(fs, "few-channels")->severity == Severity::Info);  // network only: 2 channels is normal
}

TEST_CASE("nccl log: seed 004, EFA plugin fails on g6e.8xlarge and NCCL falls back to Socket", "[models][nccl]") {
  auto r = parse_nccl_log_file(kInputs + "seed004_g6e_4pods_socket_fallback.log");
  CHECK(r.nccl_version == "2.27.3+cuda12.9");
  CHECK(r.nranks == 4);
  CHECK(r.nnodes == 4);
  CHECK(r.local_ranks == 1);
  CHECK(r.plugin_failed);
  CHECK(r.plugin_failure.front() == "NET/OFI No eligible providers were found");
  CHECK(r.warnings.size() == 3);  // the three WARN lines with timestamps in front
  CHECK(r.network == "Socket");
  CHECK(r.transport_kinds.size() == 1);
  CHECK(r.transport_kinds.at("NET/Socket") == 7);
  CHECK(r.platform == "g6e.8xlarge");
  CHECK(*r.bootstrap_total_s == Approx(59.827020));
  CHECK(*r.bootstrap_recv_s == Approx(59.819732));
  CHECK(r.init_timings[0].parts_s.at("bootstrap") == Approx(59.83));
  CHECK(r.find_env("NCCL_PROTO") == nullptr);  // the plugin never got far enough to add it

  auto fs = diagnose_log(r);
  REQUIRE(!fs.empty());
  CHECK(fs.front().id == "net-plugin-failed");  // most severe first
  CHECK(fs.front().severity == Severity::Critical);
  CHECK(fs.front().message.find("TCP sockets") != std::string::npos);
  REQUIRE(find(fs, "long-bootstrap"));
  CHECK(find(fs, "long-bootstrap")->message.find("59.8 s") != std::string::npos);
  REQUIRE(find(fs, "ranks-isolated"));
  CHECK(find(fs, "ranks-isolated")->severity == Severity::Info);  // g6e.8xlarge: one GPU per host
  CHECK_FALSE(find(fs, "gdr-off"));  // Socket cannot do GDR: reported as the fallback instead
}

TEST_CASE("nccl log: 4 processes on 4 x H200 over NVLink (P2P/CUMEM)", "[models][nccl]") {
  auto r = parse_nccl_log_file(kCal + "logs/p2p_n4.rank0.log");
  CHECK(r.nccl_version == "2.28.9+cuda13.0");
  CHECK(r.nranks == 4);
  CHECK(r.nnodes == 1);
  CHECK(r.local_ranks == 4);
  CHECK(r.channels.front().coll == 24);
  CHECK(r.channels.front().p2p == 32);
  CHECK(r.rings.size() == 24);
  // rank 0 connects to 1 (ring) and to 1, 2, 3 (p2p); all through cuMem handles
  CHECK(r.transport_kinds.size() == 1);
  CHECK(r.transport_kinds.at("P2P/CUMEM") == 96);
  CHECK(r.gdr == std::vector<int>{1});
  CHECK(r.all_direct_p2p == true);
  CHECK(r.direct_mode == false);
  CHECK(r.find_env("NCCL_NVLS_ENABLE")->value == "0");
  // Tuning table: 5 functions x 7 algorithms x 3 protocols; AllReduce Ring Simple = 28.8 us / 240 GB/s
  CHECK(r.tuning.size() == 105);
  auto it = std::find_if(r.tuning.begin(), r.tuning.end(), [](const LogTuningCell& c) {
    return c.function == "AllReduce" && c.algo == "Ring" && c.proto == "Simple";
  });
  REQUIRE(it != r.tuning.end());
  CHECK(it->latency_us == Approx(28.8));
  CHECK(it->bandwidth_gbs == Approx(240.0));
  // The algorithm NCCL picked per size: 1 MiB all-gather -> Ring Simple on all 24 channels.
  auto ch = std::find_if(r.algo_choices.begin(), r.algo_choices.end(),
                         [](const LogAlgoChoice& c) { return c.function == "AllGather" && c.bytes == 1048576; });
  REQUIRE(ch != r.algo_choices.end());
  CHECK(ch->algo == "RING");
  CHECK(ch->proto == "SIMPLE");
  CHECK(ch->channels == 24);

  auto fs = diagnose_log(r);
  CHECK_FALSE(find(fs, "ranks-isolated"));
  CHECK_FALSE(find(fs, "few-channels"));
  CHECK_FALSE(find(fs, "net-plugin-failed"));
  CHECK_FALSE(find(fs, "p2p-read"));  // H200: write mode
}

TEST_CASE("nccl log: 4 processes with P2P and SHM disabled (Socket over lo)", "[models][nccl]") {
  auto r = parse_nccl_log_file(kCal + "logs/sock_n4.rank0.log");
  CHECK(r.nnodes == 4);
  CHECK(r.local_ranks == 1);
  CHECK(r.transport_kinds.at("NET/Socket") == 19);  // "NET/Socket/0" and ".../0/Shared" both
  CHECK(r.find_env("NCCL_SOCKET_IFNAME")->value == "lo");
  CHECK(r.find_env("NCCL_SHM_DISABLE")->value == "1");  // logged as "to 1."
  auto fs = diagnose_log(r);
  REQUIRE(find(fs, "intra-node-transports-disabled"));
  REQUIRE(find(fs, "ranks-isolated"));
  // The variables isolate the ranks, not the pods (tests/models/nccl/diagnosis_test.cpp).
  CHECK(find(fs, "ranks-isolated")->severity == Severity::Info);
  CHECK_FALSE(find(fs, "net-plugin-failed"));  // IB failing to initialise is NCCL probing
}

TEST_CASE("nccl log: one process drives 4 GPUs (nccl-tests -g 4), log mixed with the table", "[models][nccl]") {
  auto r = parse_nccl_log_file(kCal + "nccl-tests/ar_g4_info.txt");
  CHECK(r.comms.size() == 4);  // one communicator per GPU, all in one process
  CHECK(r.processes == 1);
  CHECK(r.nranks == 4);
  CHECK(r.transport_kinds.at("P2P/direct pointer") == 96);
  CHECK(r.trees.size() == 96);  // 24 channels x 4 ranks
  CHECK(r.other_lines > 0);     // the nccl-tests table
  REQUIRE(r.algo_choices.size() == 28);
  CHECK(r.algo_choices.front().bytes == 8);
  CHECK(r.algo_choices.front().algo == "RING");
  CHECK(r.algo_choices.front().proto == "LL");
}

TEST_CASE("nccl log: prefixes optional, P2P read mode, SHM, bad input", "[models][nccl]") {
  SECTION("without host prefix, with kubectl timestamps, and read mode") {
    const std::string text =
        "2026-01-01T10:00:00.000Z NCCL INFO NCCL version 2.21.5+cuda12.4\n"
        "2026-01-01T10:00:00.100Z NCCL INFO comm 0x1 rank 0 nRanks 8 nNodes 1 localRanks 8 localRank 0 MNNVL 0\n"
        "NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read\n"
        "NCCL INFO Channel 01/0 : 0[0] -> 2[2] via SHM/direct/direct\n"
        "some program output\n";
    auto r = parse_nccl_log(text, "x.log");
    CHECK(r.nccl_version == "2.21.5+cuda12.4");
    CHECK(r.nranks == 8);
    CHECK(r.transport_kinds.at("P2P/CUMEM/read") == 1);
    CHECK(r.transport_kinds.at("SHM/direct/direct") == 1);
    CHECK(r.other_lines == 1);
    CHECK(find(diagnose_log(r), "p2p-read"));
  }
  SECTION("two hosts interleaved, torchrun's [defaultN]: tags") {
    const std::string text =
        "[default0]:node-a:10:11 [0] NCCL INFO NCCL version 2.21.5+cuda12.4\n"
        "[default1]:node-b:20:21 [0] NCCL INFO comm 0x2 rank 1 nRanks 2 nNodes 2 localRanks 1 localRank 0 MNNVL 0\n"
        "[default0]:node-a:10:11 [0] NCCL INFO comm 0x1 rank 0 nRanks 2 nNodes 2 localRanks 1 localRank 0 MNNVL 0\n"
        "[default0]:node-a:10:12 [0] NCCL INFO Channel 00/0 : 1[0] -> 0[0] [receive] via NET/IB/0/GDRDMA\n"
        "[default1]:node-b:20:22 [0] NCCL INFO Channel 00/0 : 1[0] -> 0[0] [send] via NET/IB/0/GDRDMA\n";
    auto r = parse_nccl_log(text, "two.log");
    CHECK(r.hosts == std::vector<std::string>{"node-a", "node-b"});
    CHECK(r.processes == 2);
    CHECK(r.comms.size() == 2);
    CHECK(r.nnodes == 2);
    CHECK(r.transport_kinds.at("NET/IB/GDRDMA") == 2);  // the send and the receive side
  }
  SECTION("a transport line cut short") {
    const std::string text =
        "h:1:2 [0] NCCL INFO NCCL version 2.21.5\n"
        "h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[ via NET/Socket/0\n";
    try {
      parse_nccl_log(text, "cut.log");
      FAIL("no error");
    } catch (const models::ParseError& e) {
      CHECK(e.file() == "cut.log");
      CHECK(e.line() == 2);
      CHECK(e.col() == 21);  // where the message starts, after "NCCL INFO "
    }
  }
  SECTION("binary input") {
    const std::string text = std::string("h:1:2 [0] NCCL INFO x\n\0\0\x01garbage", 32);
    try {
      parse_nccl_log(text, "bin.log");
      FAIL("no error");
    } catch (const models::ParseError& e) {
      CHECK(e.line() == 2);
      CHECK(e.col() == 1);
    }
  }
  SECTION("no NCCL line at all") { CHECK_THROWS_AS(parse_nccl_log("hello\nworld\n", "none.log"), models::ParseError); }
}

// Older NCCL versions print no "nRanks N nNodes M localRanks L" line, only "comm 0x... rank R
// nranks N cudaDev D busId B - Init COMPLETE" (NCCL 2.4 to 2.18; later versions add nvmlDev,
// commId and the function name). The nodes come from the hosts of the ranks.
TEST_CASE("nccl log: older versions' 'Init COMPLETE' lines give ranks and nodes", "[models][nccl]") {
  const std::string full =
      "node-a:10:10 [0] NCCL INFO NCCL version 2.10.3+cuda11.4\n"
      "node-a:10:10 [0] NCCL INFO comm 0x55d1c0 rank 0 nranks 4 cudaDev 0 busId 1000 - Init COMPLETE\n"
      "node-a:11:11 [1] NCCL INFO comm 0x55d1c8 rank 1 nranks 4 cudaDev 1 busId 2000 - Init COMPLETE\n"
      "node-b:20:20 [0] NCCL INFO comm 0x77a000 rank 2 nranks 4 cudaDev 0 busId 1000 - Init COMPLETE\n"
      "node-b:21:21 [1] NCCL INFO comm 0x77a008 rank 3 nranks 4 cudaDev 1 nvmlDev 1 busId 2000 commId 0x1f - Init "
      "COMPLETE\n"
      "node-a:10:10 [0] NCCL INFO Channel 00 : 3[2000] -> 0[1000] [receive] via NET/IB/0\n";
  SECTION("every rank's line: 2 nodes x 2 local ranks") {
    const auto r = parse_nccl_log(full, "old.log");
    CHECK(r.nccl_version == "2.10.3+cuda11.4");
    CHECK(r.comms.size() == 4);
    CHECK(r.nranks == 4);
    CHECK(r.nnodes == 2);
    CHECK(r.local_ranks == 2);
    CHECK(r.node_layout_from_hosts);
    CHECK(r.ranks_seen == 4);
    CHECK(r.comms[3].local_rank == 1);
  }
  SECTION("one host's lines only: ranks known, nodes not") {
    const auto r = parse_nccl_log(full.substr(0, full.find("node-b:20")), "half.log");
    CHECK(r.nranks == 4);
    CHECK(r.nnodes == 0);
    CHECK(r.ranks_seen == 2);
  }
  SECTION("a newer log keeps its nNodes line, Init COMPLETE is not counted twice") {
    const auto r = parse_nccl_log(
        "h:1:1 [0] NCCL INFO comm 0x1 rank 0 nRanks 2 nNodes 2 localRanks 1 localRank 0 MNNVL 0\n"
        "h:1:1 [0] NCCL INFO ncclCommInitRankConfig comm 0x1 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 18000 commId "
        "0x2 - Init COMPLETE\n",
        "new.log");
    CHECK(r.comms.size() == 1);
    CHECK(r.nnodes == 2);
    CHECK_FALSE(r.node_layout_from_hosts);
  }
  SECTION("an Init COMPLETE line cut short is an error at its line") {
    try {
      parse_nccl_log("h:1:1 [0] NCCL INFO comm 0x1 rank 0 nranks - Init COMPLETE\n", "cut.log");
      FAIL("no error");
    } catch (const models::ParseError& e) {
      CHECK(e.line() == 1);
      CHECK(std::string(e.what()).find("(expected 'comm 0x... rank R nranks N cudaDev D ... - Init COMPLETE')") !=
            std::string::npos);
    }
  }
}

// A log saved with a UTF-8 byte-order mark: the mark used to become part of the first host name.
TEST_CASE("nccl log: a byte-order mark is not a host", "[models][nccl]") {
  const auto r = parse_nccl_log(
      "\xEF\xBB\xBFnode-a:10:10 [0] NCCL INFO NCCL version 2.21.5+cuda12.4\n"
      "node-a:10:10 [0] NCCL INFO comm 0x1 rank 0 nRanks 1 nNodes 1 localRanks 1 localRank 0 MNNVL 0\n",
      "bom.log");
  CHECK(r.hosts == std::vector<std::string>{"node-a"});
  CHECK(r.processes == 1);
  CHECK(r.nccl_version == "2.21.5+cuda12.4");
}
