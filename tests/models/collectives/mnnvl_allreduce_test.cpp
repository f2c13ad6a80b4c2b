// All-reduce on GB200 NVL72 racks (multi-node NVLink, nccl/transport.cpp): one rack's 72 GPUs are
// one NCCL node, so the whole all-reduce runs on NVLink; two racks are two NCCL nodes joined by
// each GPU's NIC. Closed forms on idle links, whatever algorithm NCCL picks:
//   one domain:  no NET edge exists, so every NIC carries 0 bytes; no GPU port moves more than a
//                ring's 2(n-1)/n S each way (NVLS: (1 + 1/n) S);
//   two domains: each domain needs the other's partial sums, so the cut between them carries at
//                least S each way, over at most 72 NICs a side: some NIC carries >= S / 72.
#include <catch2/catch.hpp>

#include "catalog_run.hpp"
#include "rig.hpp"

using namespace collectives_test;

namespace {
ScenarioSpec racks(int nodes, std::map<std::string, std::string> env = {}) {
  ScenarioSpec spec;
  spec.cluster.instance = "gb200-nvl72";
  spec.cluster.nodes = nodes;
  spec.placement.pods_per_node = 18;  // one pod per compute tray
  spec.placement.gpus_per_pod = 4;
  spec.nccl_env = std::move(env);
  return spec;
}
double nic_bytes(const CatalogRun& r) {
  auto it = r.max_bytes.find("ib");
  return it == r.max_bytes.end() ? 0 : it->second;
}
}  // namespace

TEST_CASE("mnnvl: a 72-GPU all-reduce on one NVL72 rack runs on NVLink alone", "[nccl]") {
  const int64_t S = int64_t{1} << 30;
  for (const char* algo : {"Ring", "NVLS"}) {
    INFO(algo);
    const CatalogRun r = audited_run(racks(1, {{"NCCL_ALGO", algo}}), CollOp::AllReduce, S);
    REQUIRE(r.t > 0);
    CHECK(nic_bytes(r) == 0);
    CHECK(r.max_bytes.at("nvlink") > 0);
    // No GPU port moves more than a ring's 2(n-1)/n S per direction (NVLS: (1 + 1/n) S).
    CHECK(r.max_bytes.at("nvlink") <= 2.0 * 71 / 72 * S * 1.0001);
  }
  // NCCL's own pick on one rack: NVLS (NVLink SHARP over the whole domain), as on one HGX node.
  CHECK(audited_run(racks(1), CollOp::AllReduce, S).rec.algo == Algo::NVLS);
}

TEST_CASE("mnnvl: a 144-GPU all-reduce over two racks crosses the NICs", "[nccl]") {
  const int64_t S = int64_t{1} << 30;
  const CatalogRun two = audited_run(racks(2), CollOp::AllReduce, S);
  REQUIRE(two.t > 0);
  CHECK(nic_bytes(two) >= S / 72.0 * 0.999);
  // Still faster than the same 144 GPUs with MNNVL off (every tray its own NCCL node: 36 nodes
  // joined by 400 Gb/s NICs instead of two domains of NVLink).
  const CatalogRun off = audited_run(racks(2, {{"NCCL_MNNVL_ENABLE", "0"}}), CollOp::AllReduce, S);
  CHECK(nic_bytes(off) > nic_bytes(two));
  CHECK(off.t > two.t);
}
