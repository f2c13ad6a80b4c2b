// The scenario's cluster-wide tables: [cluster] and what it holds, [nccl.env], [[stragglers]].
#include <map>

#include "models/nccl/env_names.hpp"
#include "models/nccl/example_tuner.hpp"
#include "models/nccl/tuner_tables.hpp"
#include "models/parse_error.hpp"
#include "scenarios/load/input_file.hpp"
#include "scenarios/load/table_loader.hpp"
#include "scenarios/load/units.hpp"

namespace scenarios::detail {

void Loader::cluster(const toml::node& n, const std::string& key) {
  models::ClusterSpec& c = out_.spec.cluster;
  r_.table(n, key,
           {
               {"instance", [&](auto& v, auto& k) { c.instance = r_.string(v, k); }},
               {"nodes", [&](auto& v, auto& k) { c.nodes = static_cast<int>(r_.integer(v, k, 1, kMaxCount)); }},
               {"profile",
                [&](auto& v, auto& k) {
                  c.profile = resolve(v, k);
                  profile_at_ = r_.pos(v);
                }},
               {"node", [&](auto& v, auto& k) { custom_node(v, k); }},
               {"fabric", [&](auto& v, auto& k) { fabric(v, k); }},
               {"groups", [&](auto& v, auto& k) { node_groups(v, k); }},
               {"price_per_hour",  // one node, $ per hour (models/run/cost.hpp)
                [&](auto& v, auto& k) {
                  const double usd = r_.number(v, k);
                  if (!(usd > 0)) r_.fail(v, k + ": not above 0 (expected one node's price in $ per hour, e.g. 55.04)");
                  if (usd > models::kMaxUsdPerHour)
                    r_.fail(v, k + ": " + detail::shortest(usd) +
                                   " is above 1e6 $ per hour (expected one node's price in $ per hour, e.g. 55.04)");
                  c.price = models::PriceSpec{usd, "scenario [cluster] price_per_hour"};
                }},
               {"params",
                [&](auto& v, auto& k) {
                  r_.open_table(v, k, [&](const std::string& name, const toml::node& value, const SourcePos&) {
                    c.params[name] = r_.param(value, k + "." + name, name);
                  });
                }},
           });
}

// [[cluster.groups]]: a cluster of several instances, nodes placed group after group
// (models/world/node_kinds.hpp). cluster.instance becomes the first group's, cluster.nodes the
// sum (finish()), so everything that reads one machine reads the first group's.
void Loader::node_groups(const toml::node& n, const std::string& key) {
  const toml::array* arr = n.as_array();
  if (!arr || arr->empty())
    r_.fail(n, key + ": got " + detail::article_type(n) +
                   " (expected [[cluster.groups]] tables, each with instance and nodes)");
  for (std::size_t i = 0; i < arr->size(); ++i) {
    const std::string k = key + "." + std::to_string(i);
    const toml::node& t = *arr->get(i);
    if (!t.is_table()) r_.fail(t, k + ": got " + detail::article_type(t) + " (expected a [[cluster.groups]] table)");
    models::NodeGroupSpec g;
    r_.table(t, k,
             {
                 {"instance", [&](auto& v, auto& kk) { g.instance = r_.string(v, kk); }},
                 {"nodes", [&](auto& v, auto& kk) { g.nodes = static_cast<int>(r_.integer(v, kk, 1, kMaxCount)); }},
             });
    if (g.instance.empty()) r_.fail(t, k + ": instance is missing (expected a catalog instance, e.g. \"p5.48xlarge\")");
    if (!out_.positions.count(k + ".nodes"))
      r_.fail(t, k + ": nodes is missing (expected nodes = N, this group's node count)");
    out_.spec.cluster.groups.push_back(std::move(g));
  }
}

// [cluster.fabric]: the network between nodes (models/topology/fabric.hpp).
void Loader::fabric(const toml::node& n, const std::string& key) {
  models::FabricSpec& f = out_.spec.cluster.fabric;
  r_.table(n, key,
           {
               {"topology",
                [&](auto& v, auto& k) {
                  f.topology = r_.one_of(v, k, {"nonblocking", "rail", "fat_tree"});
                }},
               {"oversubscription",
                [&](auto& v, auto& k) {
                  f.oversubscription = r_.number(v, k);
                  if (f.oversubscription < 1) r_.fail(v, k + ": below 1 (expected 1 for full bisection, 4 for 4:1)");
                }},
               {"pod_nodes", [&](auto& v, auto& k) { f.pod_nodes = static_cast<int>(r_.integer(v, k, 1, kMaxCount)); }},
               {"spreading",
                [&](auto& v, auto& k) {
                  f.spreading = r_.one_of(v, k, {"spray", "ecmp"});
                }},
               {"uplinks", [&](auto& v, auto& k) { f.uplinks = static_cast<int>(r_.integer(v, k, 1, kMaxCount)); }},
               {"uplink_bandwidth", [&](auto& v, auto& k) { f.uplink_bytes_per_s = r_.bandwidth(v, k); }},
               {"switch_latency", [&](auto& v, auto& k) { f.switch_latency_s = r_.time(v, k); }},
               {"superpod_nodes",
                [&](auto& v, auto& k) { f.superpod_nodes = static_cast<int>(r_.integer(v, k, 1, kMaxCount)); }},
               {"superpod_oversubscription",
                [&](auto& v, auto& k) {
                  f.superpod_oversubscription = r_.number(v, k);
                  if (f.superpod_oversubscription < 1)
                    r_.fail(v, k + ": below 1 (expected 1 for full bisection, 7 for 7:1)");
                }},
               {"sharp", [&](auto& v, auto& k) { f.sharp = r_.boolean(v, k); }},
           });
}

void Loader::custom_node(const toml::node& n, const std::string& key) {
  models::CustomNodeSpec& d = out_.spec.cluster.node.emplace();
  // The *_bytes_per_s fields also answer to *_bandwidth, which reads better with units.
  auto rate = [&](double& field, const char* other) {
    return [&, other](const toml::node& v, const std::string& k) {
      if (out_.positions.count(key + "." + other))
        r_.fail(v, k + ": given twice, also as " + key + "." + other + " (expected one of them)");
      field = r_.bandwidth(v, k);
    };
  };
  r_.table(
      n, key,
      {
          {"gpu", [&](auto& v, auto& k) { d.gpu = r_.string(v, k); }},
          {"gpus", [&](auto& v, auto& k) { d.gpus = static_cast<int>(r_.integer(v, k, 1, 1024)); }},
          {"nvlink", [&](auto& v, auto& k) { d.nvlink = r_.string(v, k); }},
          {"nvlink_links", [&](auto& v, auto& k) { d.nvlink_links = static_cast<int>(r_.integer(v, k, 0, 1024)); }},
          {"nvswitch", [&](auto& v, auto& k) { d.nvswitch = r_.boolean(v, k); }},
          {"pcie",
           [&](auto& v, auto& k) {
             d.pcie = r_.one_of(v, k, {"gen3", "gen4", "gen5", "gen6"});
           }},
          {"pcie_lanes",
           [&](auto& v, auto& k) {
             d.pcie_lanes = static_cast<int>(r_.one_of_int(v, k, {1, 2, 4, 8, 16}));
           }},
          {"numa_nodes", [&](auto& v, auto& k) { d.numa_nodes = static_cast<int>(r_.integer(v, k, 1, 64)); }},
          {"nics", [&](auto& v, auto& k) { d.nics = static_cast<int>(r_.integer(v, k, 0, 1024)); }},
          {"nic_bytes_per_s", rate(d.nic_bytes_per_s, "nic_bandwidth")},
          {"nic_bandwidth", rate(d.nic_bytes_per_s, "nic_bytes_per_s")},
          {"nic_kind",
           [&](auto& v, auto& k) {
             d.nic_kind = r_.one_of(v, k, {"efa", "ib", "roce", "eth"});
           }},
          {"eth_bytes_per_s", rate(d.eth_bytes_per_s, "eth_bandwidth")},
          {"eth_bandwidth", rate(d.eth_bytes_per_s, "eth_bytes_per_s")},
          {"host_mem_bytes_per_s", rate(d.host_mem_bytes_per_s, "host_mem_bandwidth")},
          {"host_mem_bandwidth", rate(d.host_mem_bytes_per_s, "host_mem_bytes_per_s")},
          {"topo_file",
           [&](auto& v, auto& k) {
             d.topo_file = resolve(v, k);
             check_input_file(d.topo_file, r_.pos(v), "topology file", "an nvidia-smi topo -m file");
             out_.files.push_back(d.topo_file);
           }},
      });
}

// NCCL, aws-ofi-nccl and libfabric variables verbatim; their values are checked by the models that read them.
void Loader::nccl_env(const toml::node& n, const std::string& key) {
  r_.open_table(n, key, [&](const std::string& name, const toml::node& v, const SourcePos& at) {
    if (!models::nccl::is_nccl_env_name(name))
      throw UserError(at, "'" + name +
                              "' in [nccl.env] is not an NCCL, aws-ofi-nccl or libfabric variable (expected a " +
                              "name starting with " + models::nccl::kNcclEnvNames + ")");
    const std::string k = key + "." + name;
    if (name == "NCCL_TUNER_CONFIG_FILE") {
      nccl_tuner_config(v, k);
      return;
    }
    if (v.is_integer())
      out_.spec.nccl_env[name] = std::to_string(v.as_integer()->get());
    else if (v.is_string())
      out_.spec.nccl_env[name] = v.as_string()->get();
    else
      r_.fail(v, k + ": got " + detail::article_type(v) + " (expected a string, as in the environment)");
  });
}

// NCCL's example tuner plugin's CSV (models/nccl/example_tuner.hpp): a path like the profile's,
// read and checked here so that a row the plugin would misread is refused at its line and column.
void Loader::nccl_tuner_config(const toml::node& v, const std::string& key) {
  const std::string path = resolve(v, key);
  const std::string text = read_input_file(path, r_.pos(v), "NCCL tuner config", "NCCL's example tuner CSV");
  try {
    (void)models::nccl::parse_example_tuner_config(text, path);
  } catch (const models::ParseError& e) {
    throw UserError({e.file(), e.line(), e.col()}, e.message());
  }
  out_.spec.nccl_env["NCCL_TUNER_CONFIG_FILE"] = path;
  out_.spec.nccl_tuner_config = text;
}

void Loader::nccl_version(const toml::node& n, const std::string& key) {
  if (!n.is_string())
    r_.fail(
        n,
        key + ": got " + detail::article_type(n) +
            " (expected the release as a string, such as \"2.28.9\": quoted, also in --set 'nccl.version=\"2.28\"')");
  const std::string text = r_.string(n, key);
  const int v = models::nccl::parse_nccl_version(text);
  if (v == 0) r_.fail(n, key + ": '" + text + "' is not an NCCL release (expected a version such as \"2.28.9\")");
  if (v < models::nccl::nccl_version_number(17, 0))
    r_.fail(n, key + ": NCCL " + text + " is older than the tuner tables commsim carries (expected 2.17 to 2.30)");
  if (!models::nccl::nccl_version_in_tables(v))
    r_.fail(
        n,
        key + ": NCCL " + text +
            " is newer than the tuner tables commsim carries (expected 2.17 to 2.30; \"2.30.7\" is the newest read)");
  out_.spec.nccl_version = v;
}

// [[stragglers]]: slow ranks or nodes (models/spec.hpp StragglerSpec).
void Loader::stragglers(const toml::node& n, const std::string& key) {
  const toml::array* arr = n.as_array();
  if (!arr) r_.fail(n, key + ": got " + detail::article_type(n) + " (expected [[stragglers]] tables)");
  for (std::size_t i = 0; i < arr->size(); ++i) {
    models::StragglerSpec st;
    const std::string k = key + "." + std::to_string(i);
    const toml::node& t = *arr->get(i);
    r_.table(t, k,
             {
                 {"ranks",
                  [&](auto& v, auto& kk) {
                    const toml::array* ranks = v.as_array();
                    if (!ranks) r_.fail(v, kk + ": got " + detail::article_type(v) + " (expected a list of ranks)");
                    // A rank listed twice would be slowed twice (the factor applies per listing):
                    // refused, as a key written twice is.
                    std::map<int, SourcePos> seen;
                    for (std::size_t j = 0; j < ranks->size(); ++j) {
                      const toml::node& rn = *ranks->get(j);
                      const int rank = static_cast<int>(r_.integer(rn, kk + "." + std::to_string(j), 0, kMaxCount));
                      if (auto [it, fresh] = seen.emplace(rank, r_.pos(rn)); !fresh)
                        r_.fail(rn, kk + ": rank " + std::to_string(rank) + " listed twice, first at " +
                                        it->second.str() +
                                        " (expected each rank once: one straggler's factors apply once per rank)");
                      st.ranks.push_back(rank);
                    }
                  }},
                 {"node", [&](auto& v, auto& kk) { st.node = static_cast<int>(r_.integer(v, kk, 0, kMaxCount)); }},
                 {"compute_slowdown",
                  [&](auto& v, auto& kk) {
                    st.compute_slowdown = r_.number(v, kk);
                    if (st.compute_slowdown < 1 || st.compute_slowdown > 1000)
                      r_.fail(v, kk + ": out of range (expected a factor from 1 to 1000, 1.3 = 30 % slower)");
                  }},
                 {"nic_bandwidth_factor",
                  [&](auto& v, auto& kk) {
                    st.nic_bandwidth_factor = r_.number(v, kk);
                    if (!(st.nic_bandwidth_factor > 0 && st.nic_bandwidth_factor <= 1))
                      r_.fail(v, kk + ": out of range (expected a fraction of the line rate in (0, 1])");
                  }},
                 {"link",
                  [&](auto& v, auto& kk) {
                    st.link = r_.string(v, kk);
                    if (st.link.empty())
                      r_.fail(v, kk + ": empty (expected a link name as run --json names links, e.g. "
                                      "\"node1/gpu3/nvlink.tx\" or \"fabric/pod0/up\", '*' for any characters)");
                  }},
                 {"bandwidth_factor",
                  [&](auto& v, auto& kk) {
                    st.bandwidth_factor = r_.number(v, kk);
                    if (!(st.bandwidth_factor > 0 && st.bandwidth_factor <= 1))
                      r_.fail(v, kk + ": out of range (expected a fraction of the link's capacity in (0, 1])");
                  }},
                 {"latency_factor",
                  [&](auto& v, auto& kk) {
                    st.latency_factor = r_.number(v, kk);
                    if (!(st.latency_factor >= 1 && st.latency_factor <= 1e6))
                      r_.fail(v, kk + ": out of range (expected a factor from 1 to 1e6, 2 = twice the latency)");
                  }},
             });
    const int targets = !st.ranks.empty() + st.node.has_value() + !st.link.empty();
    if (targets != 1) r_.fail(t, k + ": give one of ranks = [...], node = N or link = \"...\" (expected exactly one)");
    // A link's factors and a rank's or node's are kept apart: each names what it slows.
    for (const char* own : {"bandwidth_factor", "latency_factor"})
      if (st.link.empty() && out_.positions.count(k + "." + own))
        throw UserError(
            out_.position_of(k + "." + own),
            k + "." + own + ": applies to a link (expected link = \"...\" in this entry, or " +
                (std::string(own) == "bandwidth_factor" ? "nic_bandwidth_factor for a rank's or node's NICs)"
                                                        : "no latency_factor for a rank or node)"));
    for (const char* other : {"compute_slowdown", "nic_bandwidth_factor"})
      if (!st.link.empty() && out_.positions.count(k + "." + other))
        throw UserError(out_.position_of(k + "." + other),
                        k + "." + other + ": applies to ranks or a node (expected bandwidth_factor or " +
                            "latency_factor with link = \"...\")");
    out_.spec.stragglers.push_back(std::move(st));
  }
}

}  // namespace scenarios::detail
