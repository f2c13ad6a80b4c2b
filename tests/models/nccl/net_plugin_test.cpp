// The network plugin a pod's NCCL ends up with (choose_net_plugin, models/nccl/transport.hpp),
// and the NCCL_NET values that cannot run on the node.
#include <catch2/catch.hpp>

#include <string>

#include "models/error.hpp"
#include "models/nccl/env.hpp"
#include "models/nccl/transport.hpp"

using models::NetPlugin;
using models::hw::NicKind;
using models::nccl::choose_net_plugin;
using models::nccl::parse_nccl_env;

namespace {
std::string refused(NicKind kind, bool efa_ok, bool has_nic, const std::map<std::string, std::string>& env) {
  try {
    choose_net_plugin(kind, efa_ok, has_nic, parse_nccl_env(env));
  } catch (const models::SpecError& e) {
    return e.key();
  }
  return "";
}
}  // namespace

TEST_CASE("net plugin: EFA runs aws-ofi-nccl when it initialises, else NCCL's sockets", "[nccl]") {
  const auto none = parse_nccl_env({});
  CHECK(choose_net_plugin(NicKind::Efa, true, true, none) == NetPlugin::Libfabric);
  CHECK(choose_net_plugin(NicKind::Efa, false, true, none) == NetPlugin::Socket);  // seeds/004: no provider
  CHECK(choose_net_plugin(NicKind::Efa, true, false, none) == NetPlugin::Socket);  // the pod holds no EFA
  CHECK(choose_net_plugin(NicKind::Efa, true, true, parse_nccl_env({{"NCCL_NET", "Socket"}})) == NetPlugin::Socket);
  CHECK(choose_net_plugin(NicKind::Efa, true, true, parse_nccl_env({{"NCCL_NET", "OFI"}})) == NetPlugin::Libfabric);
  CHECK(std::string(models::net_plugin_name(NetPlugin::Libfabric)) == "Libfabric");
}

TEST_CASE("net plugin: IB verbs on InfiniBand and RoCE unless disabled", "[nccl]") {
  const auto none = parse_nccl_env({});
  CHECK(choose_net_plugin(NicKind::Ib, true, true, none) == NetPlugin::IB);
  CHECK(choose_net_plugin(NicKind::Roce, true, true, none) == NetPlugin::IB);
  CHECK(choose_net_plugin(NicKind::Ib, true, true, parse_nccl_env({{"NCCL_IB_DISABLE", "1"}})) == NetPlugin::Socket);
  CHECK(choose_net_plugin(NicKind::Eth, true, true, none) == NetPlugin::Socket);
  CHECK(choose_net_plugin(NicKind::None, true, false, none) == NetPlugin::Socket);
}

TEST_CASE("net plugin: forcing a plugin the node cannot run is an error at NCCL_NET", "[nccl]") {
  CHECK(refused(NicKind::Efa, true, true, {{"NCCL_NET", "IB"}}) == "nccl.env.NCCL_NET");
  CHECK(refused(NicKind::Efa, false, true, {{"NCCL_NET", "Libfabric"}}) == "nccl.env.NCCL_NET");
  CHECK(refused(NicKind::Ib, true, true, {{"NCCL_NET", "Libfabric"}}) == "nccl.env.NCCL_NET");
  CHECK(refused(NicKind::Ib, true, true, {{"NCCL_NET", "IB"}, {"NCCL_IB_DISABLE", "1"}}) == "nccl.env.NCCL_NET");
  CHECK(refused(NicKind::Eth, true, true, {{"NCCL_NET", "IB"}}) == "nccl.env.NCCL_NET");
  CHECK(refused(NicKind::Eth, true, true, {{"NCCL_NET", "Socket"}}).empty());
}
