// What a log means (models/nccl/diagnosis.cpp) where the obvious reading contradicts the log: ranks
// isolated by NCCL_P2P_DISABLE / NCCL_SHM_DISABLE rather than by pods, few channels set by a ring
// that crosses the network rather than by NVLink, and the machine named by --instance.
#include <catch2/catch.hpp>

#include <string>

#include "models/nccl/diagnosis.hpp"
#include "models/readers/nccl_log.hpp"

using namespace models::nccl;
using namespace models::readers;

namespace {
const std::string kH200x4 = std::string(COMMSIM_SOURCE_DIR) + "/scenarios/validation/h200x4/measured/";

const Finding& finding(const std::vector<Finding>& fs, const std::string& id) {
  for (const auto& f : fs)
    if (f.id == id) return f;
  FAIL("no finding " + id);
  throw;
}
}  // namespace

TEST_CASE("diagnosis: P2P and SHM disabled isolate the ranks of one process, not pods", "[models][nccl]") {
  // nccl-tests -g 4 in one process, NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1: nNodes 4, NET/Socket.
  const auto r = parse_nccl_log_file(kH200x4 + "nccl-tests/ar_g4_sock.txt");
  const auto fs = diagnose_log(r);
  const Finding& f = finding(fs, "ranks-isolated");
  CHECK(f.severity == Severity::Info);
  CHECK(f.message.find("leave NCCL no path between GPUs of one host but the network: the environment isolates the "
                       "ranks (one process drives them all, so pods are not the cause).") != std::string::npos);
  CHECK(f.message.find("pods without a shared IPC namespace") == std::string::npos);
  CHECK(f.advice.find("unset NCCL_P2P_DISABLE and NCCL_SHM_DISABLE") == 0);
}

TEST_CASE("diagnosis: few channels from a ring that crosses the network do not blame NVLink", "[models][nccl]") {
  // Two pods of two GPUs (NCCL_HOSTID per pod): P2P/CUMEM inside each, NET/Socket between, 2 channels.
  const auto r = parse_nccl_log_file(kH200x4 + "tcp/logs/z3_pod2_n4.rank0.log");
  const auto fs = diagnose_log(r);
  const Finding& f = finding(fs, "few-channels");
  CHECK(f.severity == Severity::Info);
  CHECK(f.message.find("NVLink") == std::string::npos);
  CHECK(f.message.find("they cross the network (NET/Socket") != std::string::npos);
}

TEST_CASE("diagnosis: the instance given names the machine, not the log's platform line", "[models][nccl]") {
  const auto r =
      parse_nccl_log_file(std::string(COMMSIM_SOURCE_DIR) + "/scenarios/examples/inputs/seed000_p4d_4pods_efa.log");
  CHECK(finding(diagnose_log(r), "ranks-isolated").message.find("(p4d.24xlarge has 8 GPUs)") != std::string::npos);
  const auto fs = diagnose_log(r, "h200x4");
  const Finding& f = finding(fs, "ranks-isolated");
  CHECK(f.message.find("(h200x4 has 4 GPUs)") != std::string::npos);
  CHECK(f.message.find("p4d.24xlarge") == std::string::npos);
}

TEST_CASE("diagnosis: a per-rank NCCL_HOSTID isolates the ranks, not pods", "[models][nccl]") {
  // One launch on one host (torchrun --standalone, 4 processes), each with NCCL_HOSTID=host<rank>:
  // nNodes 4 = nRanks, NET/Socket (scenarios/validation/h200x1/measured/nccl_socket/, README there).
  const auto r = parse_nccl_log_file(std::string(COMMSIM_SOURCE_DIR) +
                                     "/scenarios/validation/h200x1/measured/nccl_socket/nccl_rank0.log");
  const auto fs = diagnose_log(r, "h200x4");
  const Finding& f = finding(fs, "ranks-isolated");
  CHECK(f.severity == Severity::Warning);
  CHECK(f.message ==
        "each of the 4 ranks is alone on its NCCL node (nNodes 4 = nRanks, localRanks 1), so all their traffic goes "
        "over the network (NET/Socket). NCCL_HOSTID=host0 (set by environment, line 17) replaces the host's identity "
        "NCCL counts nodes by: with a value per rank, every rank is a node of its own, even on one host (pods or IPC "
        "namespaces need not be the cause).");
  CHECK(f.advice ==
        "unset NCCL_HOSTID, or give every rank of one host the same value; the scenario --scenario writes leaves it "
        "out and models the log's nodes with its placement");
}

TEST_CASE("diagnosis: NCCL's example tuner plugin runs what its rows do not match on one channel", "[models][nccl]") {
  // The seed's log with the example plugin loaded from its library path.
  const std::string at = "llama-3-8b-node-0-0:188:188 [0] NCCL INFO ";
  const std::string log = at + "NCCL version 2.28.9+cuda12.9\n" + at +
                          "NCCL_TUNER_PLUGIN set by environment to /opt/nccl/libnccl-tuner-example.so\n";
  const auto fs = diagnose_log(parse_nccl_log(log, "t.log"));
  const Finding& f = finding(fs, "example-tuner");
  CHECK(f.severity == Severity::Warning);
  CHECK(f.message.find("(line 2) loads NCCL's example tuner plugin: every collective none of its rows matches, and "
                       "every row whose channels are -1, runs on one channel") != std::string::npos);
  CHECK(f.advice.find("0 keeps NCCL's own") != std::string::npos);
  // Before 2.27.5 the plugin has no rows: Ring/Simple on one channel for everything.
  const std::string old =
      at + "NCCL version 2.26.2+cuda12.8\n" + at + "NCCL_TUNER_PLUGIN set by environment to example\n";
  CHECK(finding(diagnose_log(parse_nccl_log(old, "t.log")), "example-tuner")
            .message.find("in NCCL 2.26.2 it runs every collective as Ring/Simple on one channel") !=
        std::string::npos);
  // Another plugin: no finding.
  const std::string other = at + "NCCL_TUNER_PLUGIN set by environment to libnccl-tuner-mine.so\n";
  for (const auto& g : diagnose_log(parse_nccl_log(other, "t.log"))) CHECK(g.id != "example-tuner");
}
