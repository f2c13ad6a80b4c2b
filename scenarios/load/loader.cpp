// The scenario loader: TOML (+ --set, profile, DeepSpeed JSON) -> models::ScenarioSpec.
// The schema below is the scenario contract of docs/design.md plus the fields of
// models/spec.hpp; each table is closed, each value is type- and unit-checked where it is read.
#include "scenarios/load/loader.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <functional>
#include <tuple>

#include "scenarios/load/deepspeed_config.hpp"
#include "scenarios/load/input_file.hpp"
#include "scenarios/load/toml_nesting.hpp"
#include "scenarios/load/toml_reader.hpp"
#include "scenarios/load/units.hpp"

namespace scenarios {
namespace {

namespace fs = std::filesystem;
using detail::TomlReader;
using Fields = std::vector<TomlReader::Field>;

constexpr int64_t kMaxCount = 1 << 20;  // GPUs, nodes, batch sizes: far past any real job
constexpr int64_t kMaxSteps = 1000000000;

// The key a line defines, as written: `a."b.c" = 1` -> a."b.c"; `[x.y]` or `[[x.y]]` -> x.y.
std::string key_on_line(std::string_view text, int line) {
  size_t start = 0;
  for (int l = 1; l < line && start != std::string_view::npos; ++l) {
    start = text.find('\n', start);
    if (start != std::string_view::npos) ++start;
  }
  if (start == std::string_view::npos) return "";
  std::string_view s = text.substr(start, text.find('\n', start) - start);
  const size_t a = s.find_first_not_of(" \t");
  if (a == std::string_view::npos) return "";
  s = s.substr(a);
  size_t end = 0;
  char quote = 0;
  const bool header = s.front() == '[';
  for (; end < s.size(); ++end) {
    if (quote) {
      if (s[end] == quote) quote = 0;
    } else if (s[end] == '"' || s[end] == '\'') {
      quote = s[end];
    } else if (header ? s[end] == ']' && end > 0 && s[end - 1] != '[' : s[end] == '=') {
      break;
    }
  }
  std::string key(s.substr(0, end));
  while (!key.empty() && (key.front() == '[' || key.front() == ' ')) key.erase(key.begin());
  while (!key.empty() && (key.back() == ' ' || key.back() == '\t')) key.pop_back();
  return key;
}

// The last part of a dotted key, unquoted: a."b.c" -> b.c.
std::string last_part(const std::string& key) {
  size_t from = 0;
  char quote = 0;
  for (size_t i = 0; i < key.size(); ++i) {
    if (quote) {
      if (key[i] == quote) quote = 0;
    } else if (key[i] == '"' || key[i] == '\'') {
      quote = key[i];
    } else if (key[i] == '.') {
      from = i + 1;
    }
  }
  std::string part = key.substr(from);
  while (!part.empty() && part.front() == ' ') part.erase(part.begin());
  if (part.size() >= 2 && (part.front() == '"' || part.front() == '\'') && part.back() == part.front())
    part = part.substr(1, part.size() - 2);
  return part;
}

// toml++ reports a key or table defined twice at the second place only (and its message can
// garble the key): the first is the latest key of that name in the text before the error's line
// (valid TOML up to there). Empty when it cannot be told.
std::string first_written(std::string_view text, int error_line, const std::string& name,
                          const std::string& file_name) {
  size_t cut = 0;
  for (int line = 1; line < error_line && cut != std::string_view::npos; ++line) {
    cut = text.find('\n', cut);
    if (cut != std::string_view::npos) ++cut;
  }
  if (name.empty() || cut == std::string_view::npos || cut == 0) return "";
  toml::table before;
  try {
    before = toml::parse(text.substr(0, cut), std::string_view(file_name));
  } catch (const toml::parse_error&) {
    return "";
  }
  SourcePos best{file_name, 0, 0};
  std::function<void(const toml::node&)> walk = [&](const toml::node& n) {
    if (const auto* t = n.as_table()) {
      for (auto&& [k, v] : *t) {
        const auto& b = k.source().begin;
        if (k.str() == name && b.line > 0 && std::tie(b.line, b.column) > std::tie(best.line, best.col))
          best = {file_name, static_cast<int>(b.line), static_cast<int>(b.column)};
        walk(v);
      }
    } else if (const auto* a = n.as_array()) {
      for (const auto& v : *a) walk(v);
    }
  };
  walk(before);
  return best.line > 0 ? best.str() : "";
}

toml::table parse_toml(std::string_view text, const std::string& file_name) {
  if (const auto deep = detail::toml_too_deep(text))
    throw UserError({file_name, deep->line, deep->col},
                    "nested more than " + std::to_string(detail::kMaxTomlNesting) +
                        " levels deep (expected tables, arrays and dotted keys a few levels deep)");
  try {
    return toml::parse(text, std::string_view(file_name));
  } catch (const toml::parse_error& e) {
    const auto& b = e.source().begin;
    const int line = std::max(1, static_cast<int>(b.line)), col = std::max(1, static_cast<int>(b.column));
    const std::string what = detail::one_line(std::string(e.description()));
    const std::string key = key_on_line(text, line);
    if (what.find("cannot redefine existing") != std::string::npos && !key.empty()) {
      const std::string first = first_written(text, line, last_part(key), file_name);
      throw UserError({file_name, line, col}, "invalid TOML: '" + key + "' is defined twice" +
                                                  (first.empty() ? "" : ", first at " + first) +
                                                  " (expected each key and table once)");
    }
    throw UserError({file_name, line, col}, "invalid TOML: " + what + " (expected TOML, https://toml.io/en/v1.0.0)");
  }
}

class Loader {
 public:
  Loader(LoadedScenario& out, std::string file_name, fs::path base_dir)
      : out_(out), r_(out, file_name), file_name_(std::move(file_name)), base_dir_(std::move(base_dir)) {}

  void load(std::string_view text, const std::vector<std::string>& overrides) {
    models::ScenarioSpec& s = out_.spec;
    s.source_file = file_name_;
    s.name = fs::path(file_name_).stem().string();
    toml::table root = parse_toml(text, file_name_);
    for (size_t i = 0; i < overrides.size(); ++i) r_.apply_override(root, overrides[i], static_cast<int>(i) + 1);

    r_.table(root, "",
             {
                 {"name", [&](auto& n, auto& k) { s.name = r_.string(n, k); }},
                 {"deepspeed_config", [&](auto& n, auto& k) { set_deepspeed_path(n, k); }},
                 {"cluster", [&](auto& n, auto& k) { cluster(n, k); }},
                 {"placement", [&](auto& n, auto& k) { placement(n, k); }},
                 {"nccl",
                  [&](auto& n, auto& k) {
                    r_.table(n, k, {{"env", [&](auto& n2, auto& k2) { nccl_env(n2, k2); }}});
                  }},
                 {"model", [&](auto& n, auto& k) { model(n, k); }},
                 {"training", [&](auto& n, auto& k) { training(n, k); }},
                 {"parallel", [&](auto& n, auto& k) { parallel(n, k); }},
                 {"zero", [&](auto& n, auto& k) { zero(n, k); }},
                 {"collective", [&](auto& n, auto& k) { collective(n, k); }},
                 {"stragglers", [&](auto& n, auto& k) { stragglers(n, k); }},
                 {"jobs", [&](auto& n, auto& k) { jobs(n, k); }},
             });
    finish();
  }

 private:
  // A path written in the scenario is relative to its folder; one given with --set, to the
  // current directory (where the user typed it).
  std::string resolve(const toml::node& n, const std::string& key) {
    const std::string v = r_.string(n, key);
    if (v.empty()) r_.fail(n, key + ": empty path (expected a file name)");
    fs::path p(v);
    if (p.is_relative() && !r_.from_override(n)) p = base_dir_ / p;
    return p.lexically_normal().string();
  }

  void set_deepspeed_path(const toml::node& n, const std::string& key) {
    if (!prefix_.empty())
      r_.fail(n, key + ": a DeepSpeed JSON per job is not read (expected the [" + prefix_ +
                     "zero] keys, DeepSpeed's zero_optimization verbatim)");
    if (ds_path_)
      r_.fail(
          n,
          key + ": DeepSpeed config given twice (expected deepspeed_config at the top level or in [zero], not both)");
    ds_path_ = resolve(n, key);
    ds_named_at_ = r_.pos(n);
  }

  void cluster(const toml::node& n, const std::string& key) {
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
                 {"params",
                  [&](auto& v, auto& k) {
                    r_.open_table(v, k, [&](const std::string& name, const toml::node& value, const SourcePos&) {
                      c.params[name] = r_.quantity(value, k + "." + name);
                    });
                  }},
             });
  }

  // [[cluster.groups]]: a cluster of several instances, nodes placed group after group
  // (models/world/node_kinds.hpp). cluster.instance becomes the first group's, cluster.nodes the
  // sum (finish()), so everything that reads one machine reads the first group's.
  void node_groups(const toml::node& n, const std::string& key) {
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
      if (g.instance.empty())
        r_.fail(t, k + ": instance is missing (expected a catalog instance, e.g. \"p5.48xlarge\")");
      if (!out_.positions.count(k + ".nodes"))
        r_.fail(t, k + ": nodes is missing (expected nodes = N, this group's node count)");
      out_.spec.cluster.groups.push_back(std::move(g));
    }
  }

  // [cluster.fabric]: the network between nodes (models/topology/fabric.hpp).
  void fabric(const toml::node& n, const std::string& key) {
    models::FabricSpec& f = out_.spec.cluster.fabric;
    r_.table(
        n, key,
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
            {"sharp", [&](auto& v, auto& k) { f.sharp = r_.boolean(v, k); }},  // SHARP switches (CollNet)
        });
  }

  // [[stragglers]]: slow ranks or nodes (models/spec.hpp StragglerSpec).
  void stragglers(const toml::node& n, const std::string& key) {
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
                      for (std::size_t j = 0; j < ranks->size(); ++j)
                        st.ranks.push_back(
                            static_cast<int>(r_.integer(*ranks->get(j), kk + "." + std::to_string(j), 0, kMaxCount)));
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
      if (targets != 1)
        r_.fail(t, k + ": give one of ranks = [...], node = N or link = \"...\" (expected exactly one)");
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

  // [[jobs]]: several jobs on one cluster (models/run/jobs.hpp). Each holds the tables a
  // single-job scenario has at its top level, read by the same functions into the job's own spec
  // (cur_), with keys and positions under "jobs.<i>.".
  void jobs(const toml::node& n, const std::string& key) {
    const toml::array* arr = n.as_array();
    if (!arr || arr->empty())
      r_.fail(n, key + ": got " + detail::article_type(n) + " (expected [[jobs]] tables, one per job)");
    for (std::size_t i = 0; i < arr->size(); ++i) {
      const std::string k = key + "." + std::to_string(i);
      const toml::node& t = *arr->get(i);
      if (!t.is_table()) r_.fail(t, k + ": got " + detail::article_type(t) + " (expected a [[jobs]] table)");
      models::ScenarioSpec own;
      models::JobSpec job;
      job.name = "job" + std::to_string(i);
      cur_ = &own;
      prefix_ = k + ".";
      ZeroEntries top_zero = std::move(zero_toml_);
      zero_toml_.clear();
      r_.table(t, k,
               {
                   {"name", [&](auto& v, auto& kk) { job.name = r_.string(v, kk); }},
                   {"nodes", [&](auto& v, auto& kk) { job_nodes(v, kk, job); }},
                   {"placement", [&](auto& v, auto& kk) { placement(v, kk); }},
                   {"model", [&](auto& v, auto& kk) { model(v, kk); }},
                   {"training", [&](auto& v, auto& kk) { training(v, kk); }},
                   {"parallel", [&](auto& v, auto& kk) { parallel(v, kk); }},
                   {"zero", [&](auto& v, auto& kk) { zero(v, kk); }},
                   {"collective", [&](auto& v, auto& kk) { collective(v, kk); }},
               });
      if (job.nodes == 0)
        r_.fail(t, k + ": nodes is missing (expected nodes = [first, last], a range of the cluster's nodes, or "
                       "nodes = N, placed first-fit)");
      if (!own.model && !own.collective)
        r_.fail(t, k + ": nothing to simulate (expected a [" + k.substr(0, 4) + ".model] or [" + k.substr(0, 4) +
                       ".collective] table in this job)");
      if (own.collective && own.collective->bytes == 0)
        throw UserError(out_.position_of(k + ".collective"),
                        k + ".collective.bytes is missing (expected a size such as \"1 GiB\")");
      // The job's [zero] and DeepSpeed's rules, as for a single job, its positions under jobs.<i>.
      DeepSpeedSettings ds;
      for (auto& [name, e] : zero_toml_) ds.zero[canonical_zero_key(name)] = e;
      std::map<std::string, SourcePos> own_positions;
      for (const auto& [dotted, pos] : out_.positions)
        if (dotted.rfind(prefix_, 0) == 0) own_positions[dotted.substr(prefix_.size())] = pos;
      apply_deepspeed(ds, own, own_positions);
      for (const auto& [dotted, pos] : own_positions) out_.positions.emplace(prefix_ + dotted, pos);
      zero_toml_ = std::move(top_zero);
      cur_ = &out_.spec;
      prefix_.clear();
      job.placement = own.placement;
      job.model = own.model;
      job.training = own.training;
      job.parallel = own.parallel;
      job.zero = own.zero;
      job.collective = own.collective;
      out_.spec.jobs.push_back(std::move(job));
    }
  }

  // jobs.<i>.nodes: [first, last] (inclusive, the cluster's node numbers) or a count.
  void job_nodes(const toml::node& v, const std::string& k, models::JobSpec& job) {
    if (v.is_integer()) {
      job.nodes = static_cast<int>(r_.integer(v, k, 1, kMaxCount));
      return;
    }
    const toml::array* range = v.as_array();
    if (!range || range->size() != 2)
      r_.fail(v, k + ": got " + detail::article_type(v) +
                     (range ? " of " + std::to_string(range->size()) + " items" : std::string()) +
                     " (expected [first, last], a range of the cluster's nodes, or a node count)");
    const int a = static_cast<int>(r_.integer(*range->get(0), k + ".0", 0, kMaxCount));
    const int b = static_cast<int>(r_.integer(*range->get(1), k + ".1", 0, kMaxCount));
    if (b < a)
      r_.fail(v, k + ": [" + std::to_string(a) + ", " + std::to_string(b) +
                     "] ends before it starts (expected [first, last] with first <= last)");
    job.first_node = a;
    job.nodes = b - a + 1;
  }

  void custom_node(const toml::node& n, const std::string& key) {
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
               d.pcie_lanes = static_cast<int>(r_.one_of_int(v, k, {1, 2, 4, 8, 16, 32}));
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

  void placement(const toml::node& n, const std::string& key) {
    models::PlacementSpec& p = cur_->placement;
    r_.table(n, key,
             {
                 {"pods_per_node",
                  [&](auto& v, auto& k) { p.pods_per_node = static_cast<int>(r_.integer(v, k, 1, kMaxCount)); }},
                 {"gpus_per_pod",
                  [&](auto& v, auto& k) { p.gpus_per_pod = static_cast<int>(r_.integer(v, k, 1, kMaxCount)); }},
                 {"host_ipc", [&](auto& v, auto& k) { p.host_ipc = r_.boolean(v, k); }},
                 {"host_network", [&](auto& v, auto& k) { p.host_network = r_.boolean(v, k); }},
                 {"efa_plugin_ok", [&](auto& v, auto& k) { p.efa_plugin_ok = r_.boolean(v, k); }},
                 {"single_process", [&](auto& v, auto& k) { p.single_process = r_.boolean(v, k); }},
                 {"nics_per_pod",
                  [&](auto& v, auto& k) { p.nics_per_pod = static_cast<int>(r_.integer(v, k, 1, kMaxCount)); }},
             });
  }

  // NCCL and libfabric variables verbatim; their values are checked by the models that read them.
  void nccl_env(const toml::node& n, const std::string& key) {
    r_.open_table(n, key, [&](const std::string& name, const toml::node& v, const SourcePos& at) {
      if (name.rfind("NCCL_", 0) != 0 && name.rfind("FI_", 0) != 0)
        throw UserError(
            at,
            "'" + name +
                "' in [nccl.env] is not an NCCL or libfabric variable (expected a name starting with NCCL_ or FI_)");
      const std::string k = key + "." + name;
      if (v.is_integer())
        out_.spec.nccl_env[name] = std::to_string(v.as_integer()->get());
      else if (v.is_string())
        out_.spec.nccl_env[name] = v.as_string()->get();
      else
        r_.fail(v, k + ": got " + detail::article_type(v) + " (expected a string, as in the environment)");
    });
  }

  void model(const toml::node& n, const std::string& key) {
    models::ModelSpec& m = cur_->model.emplace();
    auto dim = [&](int& field) {
      return [&](const toml::node& v, const std::string& k) { field = static_cast<int>(r_.integer(v, k, 1, 1 << 24)); };
    };
    r_.table(n, key,
             {
                 {"preset", [&](auto& v, auto& k) { m.preset = r_.string(v, k); }},
                 {"layers", dim(m.layers)},
                 {"hidden", dim(m.hidden)},
                 {"heads", dim(m.heads)},
                 {"kv_heads", dim(m.kv_heads)},
                 {"ffn", dim(m.ffn)},
                 {"vocab", dim(m.vocab)},
                 {"seq", dim(m.seq)},
                 {"tied_embeddings", [&](auto& v, auto& k) { m.tied_embeddings = r_.boolean(v, k); }},
                 {"mlp",
                  [&](auto& v, auto& k) {
                    m.mlp = r_.one_of(v, k, {"swiglu", "gelu"});
                  }},
                 // Mixture of experts (models/workload/moe.hpp).
                 {"experts", [&](auto& v, auto& k) { m.experts = int(r_.integer(v, k, 0, 1 << 16)); }},
                 {"top_k", [&](auto& v, auto& k) { m.top_k = int(r_.integer(v, k, 1, 1 << 16)); }},
                 {"moe_ffn", [&](auto& v, auto& k) { m.moe_ffn = int(r_.integer(v, k, 1, 1 << 24)); }},
                 {"shared_experts", [&](auto& v, auto& k) { m.shared_experts = int(r_.integer(v, k, 0, 1 << 16)); }},
                 {"moe_first_dense", [&](auto& v, auto& k) { m.moe_first_dense = int(r_.integer(v, k, 0, 1 << 16)); }},
                 {"moe_layers",
                  [&](auto& v, auto& k) {
                    if (v.is_string()) {
                      r_.one_of(v, k, {"every"});
                      m.moe_stride = 1;
                    } else if (v.is_integer()) {
                      m.moe_stride = int(r_.integer(v, k, 1, 1 << 16));
                    } else {
                      r_.fail(v, k + ": got " + detail::article_type(v) +
                                     " (expected \"every\" or a stride: every n-th layer is MoE)");
                    }
                  }},
                 {"capacity_factor",
                  [&](auto& v, auto& k) {
                    m.capacity_factor = r_.number(v, k);
                    if (*m.capacity_factor < 1)
                      r_.fail(v, k + " = " + detail::shortest(*m.capacity_factor) +
                                     " drops tokens, which is not modelled (expected >= 1; 1: dropless, balanced)");
                  }},
                 {"token_skew",
                  [&](auto& v, auto& k) {
                    m.token_skew = r_.number(v, k);
                    if (*m.token_skew < 1)
                      r_.fail(v, k + " = " + detail::shortest(*m.token_skew) +
                                     " (expected >= 1: the busiest expert rank's tokens over the average)");
                  }},
             });
  }

  void training(const toml::node& n, const std::string& key) {
    models::TrainingSpec& t = cur_->training;
    r_.table(
        n, key,
        {
            {"micro_batch",
             [&](auto& v, auto& k) { t.micro_batch = static_cast<int>(r_.integer(v, k, 1, kMaxCount)); }},
            {"grad_accum", [&](auto& v, auto& k) { t.grad_accum = static_cast<int>(r_.integer(v, k, 1, kMaxCount)); }},
            {"steps", [&](auto& v, auto& k) { t.steps = static_cast<int>(r_.integer(v, k, 1, kMaxSteps)); }},
            {"grad_checkpointing", [&](auto& v, auto& k) { t.grad_checkpointing = r_.boolean(v, k); }},
            {"dtype",
             [&](auto& v, auto& k) {
               t.dtype = r_.one_of(v, k, {"bf16", "fp16", "fp32"});
             }},
            {"param_dtype",
             [&](auto& v, auto& k) {
               t.param_dtype = r_.one_of(v, k, {"bf16", "fp16", "fp32"});
             }},
            // The GEMMs' format; the older training.dtype says the same for bf16/fp16 (activations
            // and collectives): both may be written only where they agree. fp8 keeps bf16 (or
            // fp16) activations (models/compute/precision.hpp).
            {"precision",
             [&](auto& v, auto& k) {
               t.precision = r_.one_of(v, k, {"bf16", "fp16", "fp8"});
               const bool fp8 = t.precision == "fp8";
               if (out_.positions.count(prefix_ + "training.dtype")) {
                 if (fp8 ? t.dtype == "fp32" : t.dtype != t.precision)
                   r_.fail(v,
                           k + ": \"" + t.precision + "\" conflicts with training.dtype = \"" + t.dtype +
                               (fp8 ? "\" (expected dtype bf16 or fp16 beside fp8 GEMMs, or only one of the two keys)"
                                    : "\" (expected the same format in both keys, or only one of them)"));
               } else {
                 t.dtype = fp8 ? "bf16" : t.precision;
                 out_.positions[prefix_ + "training.dtype"] = r_.pos(v);  // DeepSpeed's bf16/fp16 must agree
               }
             }},
            {"optimizer", [&](auto& v, auto& k) { t.optimizer = r_.one_of(v, k, {"adamw"}); }},
            {"optimizer_impl",
             [&](auto& v, auto& k) {
               t.optimizer_impl = r_.one_of(v, k, {"foreach", "fused", "for_loop"});
             }},
            {"cpu_threads", [&](auto& v, auto& k) { t.cpu_threads = static_cast<int>(r_.integer(v, k, 1, 4096)); }},
            {"global_batch",
             [&](auto& v, auto& k) { t.global_batch = static_cast<int>(r_.integer(v, k, 1, kMaxCount)); }},
            {"recompute",
             [&](auto& v, auto& k) {
               t.recompute = r_.one_of(v, k, {"full", "selective", "none"});
             }},
            {"attention_backend",
             [&](auto& v, auto& k) {
               t.attention_backend = r_.one_of(v, k, {"flash", "unfused"});
             }},
            {"compute_efficiency",
             [&](auto& v, auto& k) {
               t.compute_efficiency = r_.number(v, k);
               if (t.compute_efficiency <= 0 || t.compute_efficiency > 1)
                 r_.fail(v, k + ": " + detail::shortest(t.compute_efficiency) +
                                " is out of range (expected a fraction of peak in (0, 1])");
             }},
        });
  }

  void parallel(const toml::node& n, const std::string& key) {
    models::ParallelSpec& p = cur_->parallel;
    auto degree = [&](int& field) {
      return
          [&](const toml::node& v, const std::string& k) { field = static_cast<int>(r_.integer(v, k, 1, kMaxCount)); };
    };
    auto flag = [&](bool& field) {
      return [&](const toml::node& v, const std::string& k) { field = r_.boolean(v, k); };
    };
    r_.table(n, key,
             {
                 {"strategy",
                  [&](auto& v, auto& k) {
                    p.strategy = r_.one_of(v, k, {"zero3", "fsdp", "ddp", "megatron"});
                  }},
                 {"tp", degree(p.tp)},
                 {"pp", degree(p.pp)},
                 {"dp", degree(p.dp)},
                 {"micro_batches", degree(p.micro_batches)},
                 {"cp", degree(p.cp)},
                 {"ep", degree(p.ep)},
                 {"etp", degree(p.etp)},
                 {"vp", degree(p.vp)},
                 {"decoder_first_pipeline_num_layers", degree(p.decoder_first_pipeline_num_layers)},
                 {"decoder_last_pipeline_num_layers", degree(p.decoder_last_pipeline_num_layers)},
                 {"account_for_embedding_in_pipeline_split", flag(p.account_for_embedding_in_pipeline_split)},
                 {"account_for_loss_in_pipeline_split", flag(p.account_for_loss_in_pipeline_split)},
                 {"use_tp_pp_dp_mapping", flag(p.use_tp_pp_dp_mapping)},
                 {"sequence_parallel", flag(p.sequence_parallel)},
                 {"distributed_optimizer", flag(p.distributed_optimizer)},
                 {"overlap_grad_reduce", flag(p.overlap_grad_reduce)},
                 {"overlap_param_gather", flag(p.overlap_param_gather)},
                 {"tp_comm_overlap", flag(p.tp_comm_overlap)},
                 {"scatter_gather_tensors_in_pipeline", flag(p.scatter_gather_tensors_in_pipeline)},
                 {"overlap_p2p_comm", [&](auto& v, auto& k) { p.overlap_p2p_comm = r_.boolean(v, k); }},
                 {"vocab_parallel", flag(p.vocab_parallel)},
                 {"async_tensor_model_parallel_allreduce", flag(p.async_tensor_model_parallel_allreduce)},
             });
  }

  // [zero] takes DeepSpeed's zero_optimization keys verbatim (values as in the JSON, "auto"
  // included); they are applied after the DeepSpeed JSON, so the scenario's own keys win.
  void zero(const toml::node& n, const std::string& key) {
    Fields fields{{"deepspeed_config", [&](auto& v, auto& k) { set_deepspeed_path(v, k); }}};
    for (const std::string& name : zero_keys())
      fields.push_back(
          {name, [&, name](const toml::node& v, const std::string& k) { zero_toml_[name] = zero_entry(name, v, k); }});
    r_.table(n, key, fields);
  }

  ZeroEntry zero_entry(const std::string& name, const toml::node& v, const std::string& k) {
    ZeroEntry e;
    e.pos = r_.pos(v);
    const bool offload = name == "offload_optimizer" || name == "offload_param";
    if (TomlReader::is_auto(v))
      e.is_auto = true;
    else if (v.is_boolean())
      e.flag = v.as_boolean()->get();
    else if (offload && v.is_string())
      e.text = v.as_string()->get();
    else if (offload && v.is_table()) {
      e.text = "none";
      Fields fields;
      for (const std::string& o : offload_keys())
        fields.push_back({o, [&, o](const toml::node& ov, const std::string& ok) {
                            if (o == "device") e.text = r_.string(ov, ok);
                          }});
      r_.table(v, k, fields);
    } else if (v.is_integer() || v.is_floating_point() || v.is_string()) {
      e.number = r_.count(v, k);
    } else {
      r_.fail(v, k + ": got " + detail::article_type(v) + " (expected a number, a boolean or \"auto\")");
    }
    return e;
  }

  void collective(const toml::node& n, const std::string& key) {
    models::CollectiveSpec& c = cur_->collective.emplace();
    r_.table(
        n, key,
        {
            {"op",
             [&](auto& v, auto& k) {
               c.op = r_.one_of(
                   v, k, {"all_reduce", "all_gather", "reduce_scatter", "broadcast", "reduce", "alltoall", "sendrecv"});
             }},
            {"bytes", [&](auto& v, auto& k) { c.bytes = r_.size(v, k); }},
            {"iterations", [&](auto& v, auto& k) { c.iterations = static_cast<int>(r_.integer(v, k, 1, kMaxSteps)); }},
        });
  }

  // The calibration profile's [params] go under the scenario's own [cluster.params].
  void merge_profile() {
    const std::string& path = out_.spec.cluster.profile;
    const std::string text = read_input_file(path, profile_at_, "calibration profile");
    out_.files.push_back(path);
    toml::table prof = parse_toml(text, path);
    const toml::node* params = prof.get("params");
    if (!params)
      throw UserError({path, 1, 1},
                      "no [params] table in calibration profile (expected a file written by commsim calibrate)");
    LoadedScenario scratch;
    TomlReader pr(scratch, path);
    pr.open_table(*params, "params", [&](const std::string& name, const toml::node& v, const SourcePos&) {
      const double value = pr.quantity(v, "params." + name);
      const std::string dotted = "cluster.params." + name;
      if (out_.spec.cluster.params.count(name)) return;  // the scenario's own value wins
      out_.spec.cluster.params[name] = value;
      out_.positions[dotted] = pr.pos(v);
    });
  }

  void finish() {
    models::ScenarioSpec& s = out_.spec;
    const SourcePos top{file_name_, 1, 1};
    if (!s.cluster.groups.empty()) {
      if (!s.jobs.empty())
        throw UserError(out_.position_of("cluster.groups"),
                        "cluster.groups: mixed instance groups beside [[jobs]] are not modelled yet (expected one "
                        "cluster.instance for a cluster shared by several jobs)");
      for (const char* one : {"cluster.instance", "cluster.nodes", "cluster.node"})
        if (out_.positions.count(one))
          throw UserError(out_.position_of(one), std::string(one) +
                                                     ": given beside [[cluster.groups]] (expected either "
                                                     "cluster.instance and cluster.nodes, or groups of instance and "
                                                     "nodes each)");
      s.cluster.instance = s.cluster.groups.front().instance;
      s.cluster.nodes = 0;
      for (const auto& g : s.cluster.groups) s.cluster.nodes += g.nodes;
    }
    if (!s.cluster.instance.empty() && s.cluster.node)
      throw UserError(
          out_.position_of("cluster.node"),
          "cluster.node: both cluster.instance and [cluster.node] given (expected one machine description)");
    if (s.cluster.instance.empty() && !s.cluster.node)
      throw UserError(out_.position_of("cluster"),
                      "no machine described (expected cluster.instance or a [cluster.node] table)");
    if (!s.jobs.empty()) {
      // [[jobs]] hold the job's own tables; the top level keeps what they share.
      for (const char* table :
           {"model", "collective", "placement", "training", "parallel", "zero", "deepspeed_config", "stragglers"})
        if (out_.positions.count(table))
          throw UserError(out_.position_of(table),
                          std::string(table) + ": given at the top level beside [[jobs]] (expected it inside each " +
                              "[[jobs]] table as [jobs." + table +
                              "]; the top level holds name, [cluster] and [nccl.env])");
    } else if (!s.model && !s.collective) {
      throw UserError(top, "nothing to simulate (expected a [model] or a [collective] table)");
    }
    if (s.collective && s.collective->bytes == 0)
      throw UserError(out_.position_of("collective"),
                      "collective.bytes is missing (expected a size such as \"1 GiB\")");
    if (!s.cluster.profile.empty()) merge_profile();
    DeepSpeedSettings ds;
    if (ds_path_) {
      ds = read_deepspeed_json(*ds_path_, *ds_path_, ds_named_at_);
      out_.files.push_back(*ds_path_);
    }
    // The scenario's [zero] wins over the JSON, whichever of DeepSpeed's two spellings each uses.
    for (auto& [k, e] : zero_toml_) ds.zero[canonical_zero_key(k)] = e;
    apply_deepspeed(ds, s, out_.positions);
    out_.files = {file_name_};
    for (const std::string* f :
         {&s.cluster.profile, ds_path_ ? &*ds_path_ : nullptr, s.cluster.node ? &s.cluster.node->topo_file : nullptr})
      if (f && !f->empty()) out_.files.push_back(*f);
  }

  LoadedScenario& out_;
  TomlReader r_;
  std::string file_name_;
  fs::path base_dir_;
  std::optional<std::string> ds_path_;
  SourcePos ds_named_at_;
  SourcePos profile_at_;
  ZeroEntries zero_toml_;
  models::ScenarioSpec* cur_ = &out_.spec;  // where the job tables go: the scenario, or a [[jobs]] entry's own
  std::string prefix_;                      // "" or "jobs.<i>.": the keys of that entry
};

}  // namespace

SourcePos LoadedScenario::position_of(std::string_view dotted_key) const {
  std::string key(dotted_key);
  while (!key.empty()) {
    if (auto it = positions.find(key); it != positions.end()) return it->second;
    const size_t dot = key.rfind('.');
    if (dot == std::string::npos) break;
    key.resize(dot);
  }
  return {spec.source_file, 1, 1};
}

UserError LoadedScenario::to_user_error(const models::SpecError& error) const {
  return UserError(position_of(error.key()), error.what());
}

LoadedScenario load_scenario_text(std::string_view text, const std::string& file_name,
                                  const std::vector<std::string>& overrides, const std::string& base_dir) {
  LoadedScenario out;
  Loader loader(out, file_name, base_dir);
  loader.load(text, overrides);
  return out;
}

LoadedScenario load_scenario(const std::string& path, const std::vector<std::string>& overrides) {
  const std::string text = read_input_file(path, {path, 1, 1}, "scenario", "a scenario file in TOML");
  fs::path base = fs::path(path).parent_path();
  if (base.empty()) base = ".";
  return load_scenario_text(text, path, overrides, base.string());
}

// Damerau-Levenshtein (optimal string alignment), case-insensitive: a swapped pair of letters
// ("nmae") is one typo, as people make them.
std::string closest_match(std::string_view word, const std::vector<std::string>& candidates) {
  auto lower = [](std::string_view s) {
    std::string r(s);
    for (char& c : r) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return r;
  };
  const std::string a = lower(word);
  const size_t limit = a.size() <= 4 ? 1 : a.size() <= 8 ? 2 : 3;
  std::string best;
  size_t best_d = limit + 1;
  for (const auto& cand : candidates) {
    const std::string b = lower(cand);
    std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
    for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
    for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
    for (size_t i = 1; i <= a.size(); ++i)
      for (size_t j = 1; j <= b.size(); ++j) {
        const size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
        d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
        if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
          d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    if (d[a.size()][b.size()] < best_d) {
      best_d = d[a.size()][b.size()];
      best = cand;
    }
  }
  return best;
}

}  // namespace scenarios
