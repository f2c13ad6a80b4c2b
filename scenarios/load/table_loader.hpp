#pragma once
// The scenario loader's working state (private to scenarios/load/): one Loader reads one file's
// tables into a LoadedScenario. Its methods live by table family: loader.cpp (the top level, the
// calibration profile, DeepSpeed JSON and the final checks), cluster_tables.cpp ([cluster],
// [cluster.node], [cluster.fabric], [[cluster.groups]], [nccl.env], [[stragglers]]) and
// job_tables.cpp ([[jobs]] and the tables each job has: [placement], [model], [training],
// [parallel], [zero], [collective]).
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "scenarios/load/deepspeed_config.hpp"
#include "scenarios/load/loader.hpp"
#include "scenarios/load/toml_reader.hpp"

namespace scenarios::detail {

inline constexpr int64_t kMaxCount = 1 << 20;  // GPUs, nodes, batch sizes: far past any real job
inline constexpr int64_t kMaxSteps = 1000000000;

// `text` parsed as TOML; a syntax error becomes a UserError at its place (a key defined twice
// names both places), nesting past kMaxTomlNesting is refused before toml++ sees it.
toml::table parse_toml(std::string_view text, const std::string& file_name);

class Loader {
 public:
  Loader(LoadedScenario& out, std::string file_name, std::filesystem::path base_dir)
      : out_(out), r_(out, file_name), file_name_(std::move(file_name)), base_dir_(std::move(base_dir)) {}

  // Reads the whole scenario: `text`, then the `--set` overrides in order, then finish().
  void load(std::string_view text, const std::vector<std::string>& overrides);

 private:
  using Fields = std::vector<TomlReader::Field>;

  // loader.cpp: paths, the profile, the final checks.
  // A path written in the scenario is relative to its folder; one given with --set, to the
  // current directory (where the user typed it).
  std::string resolve(const toml::node& n, const std::string& key);
  void set_deepspeed_path(const toml::node& n, const std::string& key);
  // The calibration profile's [params] go under the scenario's own [cluster.params].
  void merge_profile();
  // What can be checked only once every table is read; applies the DeepSpeed JSON and [zero].
  void finish();
  // Both [model] and [collective] under `prefix` ("" or "jobs.<i>."): refused at the second one.
  void refuse_model_and_collective(const std::string& prefix) const;
  // A price the file gives ([cluster] price_per_hour, [cluster.params] "price.gpu_hour") is its
  // own instance's: a --set cluster.instance naming another drops it, unless --set gives one too.
  void drop_file_price_of_other_instance();

  // cluster_tables.cpp.
  void cluster(const toml::node& n, const std::string& key);
  void custom_node(const toml::node& n, const std::string& key);  // [cluster.node]
  // [[cluster.groups]]: a cluster of several instances, nodes placed group after group
  // (models/world/node_kinds.hpp). cluster.instance becomes the first group's, cluster.nodes the
  // sum (finish()), so everything that reads one machine reads the first group's.
  void node_groups(const toml::node& n, const std::string& key);
  // [cluster.fabric]: the network between nodes (models/topology/fabric.hpp).
  void fabric(const toml::node& n, const std::string& key);
  // NCCL and libfabric variables verbatim; their values are checked by the models that read them.
  void nccl_env(const toml::node& n, const std::string& key);
  void nccl_tuner_config(const toml::node& v, const std::string& key);
  // nccl.version = "2.17.1": the release whose tuner picks algorithms (models/nccl/tuner_tables.hpp).
  void nccl_version(const toml::node& n, const std::string& key);
  // [[stragglers]]: slow ranks, nodes or links (models/spec.hpp StragglerSpec).
  void stragglers(const toml::node& n, const std::string& key);

  // job_tables.cpp.
  // [[jobs]]: several jobs on one cluster (models/run/jobs.hpp). Each holds the tables a
  // single-job scenario has at its top level, read by the same functions into the job's own spec
  // (cur_), with keys and positions under "jobs.<i>.".
  void jobs(const toml::node& n, const std::string& key);
  // jobs.<i>.nodes: [first, last] (inclusive, the cluster's node numbers) or a count.
  void job_nodes(const toml::node& v, const std::string& k, models::JobSpec& job);
  void placement(const toml::node& n, const std::string& key);
  void model(const toml::node& n, const std::string& key);
  void training(const toml::node& n, const std::string& key);
  void parallel(const toml::node& n, const std::string& key);
  // [zero] takes DeepSpeed's zero_optimization keys verbatim (values as in the JSON, "auto"
  // included); they are applied after the DeepSpeed JSON, so the scenario's own keys win.
  void zero(const toml::node& n, const std::string& key);
  ZeroEntry zero_entry(const std::string& name, const toml::node& v, const std::string& k);
  void collective(const toml::node& n, const std::string& key);

  LoadedScenario& out_;
  TomlReader r_;
  std::string file_name_;
  std::filesystem::path base_dir_;
  std::optional<std::string> ds_path_;
  std::optional<std::string> file_instance_;  // cluster.instance as the file writes it, before --set
  SourcePos ds_named_at_;
  SourcePos profile_at_;
  ZeroEntries zero_toml_;
  models::ScenarioSpec* cur_ = &out_.spec;  // where the job tables go: the scenario, or a [[jobs]] entry's own
  std::string prefix_;                      // "" or "jobs.<i>.": the keys of that entry
};

}  // namespace scenarios::detail
