// [nccl.env] names: a misspelt NCCL variable is an error with "did you mean"; real variables that
// commsim does not model are kept and reported, so no setting silently does nothing.
#include <catch2/catch.hpp>

#include <algorithm>

#include "models/error.hpp"
#include "models/nccl/env.hpp"

using namespace models::nccl;

TEST_CASE("nccl env names: a misspelt variable is refused with the name it was meant to be", "[nccl][env]") {
  try {
    parse_nccl_env({{"NCCL_P2P_LEVLE", "NVL"}});
    FAIL("NCCL_P2P_LEVLE was accepted");
  } catch (const models::SpecError& e) {
    CHECK(e.key() == "nccl.env.NCCL_P2P_LEVLE");
    CHECK(std::string(e.what()).find("did you mean NCCL_P2P_LEVEL") != std::string::npos);
  }
  CHECK_THROWS_AS(parse_nccl_env({{"NCCL_SHM_DISABEL", "1"}}), models::SpecError);
  CHECK_THROWS_AS(parse_nccl_env({{"NCCL_BUFSIZE", "1048576"}}), models::SpecError);
  // Real variables, modelled or not, and names far from any known one, pass.
  CHECK_NOTHROW(parse_nccl_env({{"NCCL_P2P_LEVEL", "NVL"},
                                {"NCCL_CROSS_NIC", "1"},
                                {"NCCL_LL128_BUFFSIZE", "1"},
                                {"NCCL_SOMETHING_NEW", "1"},
                                {"FI_EFA_USE_DEVICE_RDMA", "1"}}));
}

TEST_CASE("nccl env names: set but unmodelled variables are named in the notes, modelled ones are not", "[nccl][env]") {
  const auto notes = unmodelled_nccl_env_notes({{"NCCL_P2P_LEVEL", "NVL"},
                                                {"NCCL_DEBUG", "INFO"},
                                                {"NCCL_CROSS_NIC", "1"},
                                                {"FI_PROVIDER", "efa"},
                                                {"NCCL_SOMETHING_NEW", "1"}});
  REQUIRE(notes.size() == 2);
  CHECK(notes[0] ==
        "nccl.env: FI_PROVIDER, NCCL_CROSS_NIC are set but not modelled (no effect on the simulated times)");
  CHECK(notes[1] == "nccl.env: NCCL_SOMETHING_NEW is not known to commsim (kept; no effect on the simulated times)");
  CHECK(unmodelled_nccl_env_notes({{"NCCL_P2P_DISABLE", "1"}, {"NCCL_DEBUG", "WARN"}}).empty());
  // CollNet is modelled (collnet.cpp, where the fabric has SHARP; collnet_note says when it cannot be).
  CHECK(unmodelled_nccl_env_notes({{"NCCL_COLLNET_ENABLE", "0"}}).empty());
  CHECK(unmodelled_nccl_env_notes({{"NCCL_COLLNET_ENABLE", "1"}}).empty());
  // MNNVL is modelled (P2P and NVLS across the hosts of a multi-host NVLink domain, nccl/transport.cpp).
  CHECK(unmodelled_nccl_env_notes({{"NCCL_MNNVL_ENABLE", "1"}}).empty());
  CHECK(unmodelled_nccl_env_notes({{"NCCL_MNNVL_ENABLE", "0"}}).empty());
  // NVLS is modelled (NVLSTree where the node has NVSwitch multicast), and PXN: no note either way.
  CHECK(unmodelled_nccl_env_notes({{"NCCL_NVLS_ENABLE", "1"}, {"NCCL_PXN_DISABLE", "1"}}).empty());
  // Every modelled variable parses (values checked elsewhere); none of them is reported but
  // NCCL_NSOCKS_PERTHREAD, which is read and moves no time (its own test below).
  for (const auto& name : modelled_nccl_variables())
    if (name != "NCCL_NSOCKS_PERTHREAD") CHECK(unmodelled_nccl_env_notes({{name, "1"}}).empty());
}

TEST_CASE("nccl env names: NCCL_NSOCKS_PERTHREAD is read but says that it moves no simulated time", "[nccl]") {
  const auto notes = unmodelled_nccl_env_notes({{"NCCL_NSOCKS_PERTHREAD", "1"}, {"NCCL_SOCKET_NTHREADS", "2"}});
  REQUIRE(notes.size() == 1);
  CHECK(notes[0].find("NCCL_NSOCKS_PERTHREAD moves no simulated time") != std::string::npos);
  CHECK(notes[0].find("per helper thread") != std::string::npos);
  CHECK(unmodelled_nccl_env_notes({{"NCCL_SOCKET_NTHREADS", "2"}}).empty());
}
