// The scenario loader: TOML (+ --set, profile, DeepSpeed JSON) -> models::ScenarioSpec.
// The schema is the scenario contract of docs/design.md plus the fields of models/spec.hpp; each
// table is closed, each value is type- and unit-checked where it is read. The tables are read by
// family (table_loader.hpp); this file holds the top level and the checks made once all is read.
#include "scenarios/load/loader.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <tuple>

#include "models/params.hpp"
#include "models/utf8.hpp"
#include "scenarios/load/held_pipe.hpp"
#include "scenarios/load/input_file.hpp"
#include "scenarios/load/table_loader.hpp"
#include "scenarios/load/units.hpp"

namespace scenarios {
namespace fs = std::filesystem;

namespace detail {

void Loader::load(std::string_view text, const std::vector<std::string>& overrides) {
  models::ScenarioSpec& s = out_.spec;
  s.source_file = file_name_;
  s.name = models::utf8_text(fs::path(file_name_).stem().string());  // a file name is bytes; a name is text
  toml::table root = parse_toml(text, file_name_);
  if (const auto instance = root.at_path("cluster.instance").value<std::string>()) file_instance_ = *instance;
  for (size_t i = 0; i < overrides.size(); ++i) r_.apply_override(root, overrides[i], static_cast<int>(i) + 1);

  r_.table(root, "",
           {
               {"name", [&](auto& n, auto& k) { s.name = r_.string(n, k); }},
               {"deepspeed_config", [&](auto& n, auto& k) { set_deepspeed_path(n, k); }},
               {"cluster", [&](auto& n, auto& k) { cluster(n, k); }},
               {"placement", [&](auto& n, auto& k) { placement(n, k); }},
               {"nccl",
                [&](auto& n, auto& k) {
                  r_.table(n, k,
                           {{"env", [&](auto& n2, auto& k2) { nccl_env(n2, k2); }},
                            {"version", [&](auto& n2, auto& k2) { nccl_version(n2, k2); }}});
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

// A path written in the scenario is relative to its folder; one given with --set, to the
// current directory (where the user typed it).
std::string Loader::resolve(const toml::node& n, const std::string& key) {
  const std::string v = r_.string(n, key);
  if (v.empty()) r_.fail(n, key + ": empty path (expected a file name)");
  fs::path p(v);
  if (p.is_relative() && !r_.from_override(n)) p = base_dir_ / p;
  return p.lexically_normal().string();
}

void Loader::set_deepspeed_path(const toml::node& n, const std::string& key) {
  if (!prefix_.empty())
    r_.fail(n, key + ": a DeepSpeed JSON per job is not read (expected the [" + prefix_ +
                   "zero] keys, DeepSpeed's zero_optimization verbatim)");
  if (ds_path_)
    r_.fail(n,
            key + ": DeepSpeed config given twice (expected deepspeed_config at the top level or in [zero], not both)");
  ds_path_ = resolve(n, key);
  ds_named_at_ = r_.pos(n);
}

// The calibration profile's [params] go under the scenario's own [cluster.params].
void Loader::merge_profile() {
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
  // A profile holds [params] and [fitted] (what calibrate and profile write): another table, such as
  // a [cluster] copied from a scenario, would be ignored without a word, so it is refused.
  pr.table(prof, "",
           {{"params",
             [&](const toml::node&, const std::string&) {
               pr.open_table(*params, "params", [&](const std::string& name, const toml::node& v, const SourcePos&) {
                 const double value = pr.param(v, "params." + name, name);
                 const std::string dotted = "cluster.params." + name;
                 if (out_.spec.cluster.params.count(name)) return;  // the scenario's own value wins
                 out_.spec.cluster.params[name] = value;
                 out_.positions[dotted] = pr.pos(v);
               });
             }},
            // Where calibrate measured it (models::ClusterSpec::ProfileFit).
            {"fitted", [&](const toml::node& t, const std::string&) {
               models::ClusterSpec::ProfileFit fit;
               fit.file = path;
               pr.table(
                   t, "fitted",
                   {{"instance", [&](const toml::node& v, const std::string& k) { fit.instance = pr.string(v, k); }},
                    {"gpu", [&](const toml::node& v, const std::string& k) { fit.gpu = pr.string(v, k); }},
                    {"nodes",
                     [&](const toml::node& v, const std::string& k) {
                       const toml::array* list = v.as_array();
                       if (!list)
                         pr.fail(v, k + ": got " + detail::article_type(v) + " (expected a list of node counts)");
                       for (std::size_t i = 0; i < list->size(); ++i)
                         fit.nodes.push_back(
                             static_cast<int>(pr.integer(*list->get(i), k + "." + std::to_string(i), 1, kMaxCount)));
                     }},
                    {"fixed", [&](const toml::node& v, const std::string& k) {
                       const toml::array* list = v.as_array();
                       if (!list)
                         pr.fail(v, k + ": got " + detail::article_type(v) + " (expected a list of parameter names)");
                       for (std::size_t i = 0; i < list->size(); ++i) {
                         const toml::node& item = *list->get(i);
                         const std::string name = pr.string(item, k + "." + std::to_string(i));
                         if (!models::find_param(name))
                           pr.fail(item, k + "." + std::to_string(i) + ": '" + name +
                                             "' is not a registered parameter (commsim params lists them)");
                         fit.fixed.push_back(name);
                       }
                     }}});
               out_.spec.cluster.profile_fit = std::move(fit);
             }}});
}

// A job simulates a training step or one collective: with both tables run_scenario would take the
// collective and drop the step without a word. Refused at the table written second (a --set after
// the file).
void Loader::refuse_model_and_collective(const std::string& prefix) const {
  const auto model = out_.positions.find(prefix + "model");
  const auto collective = out_.positions.find(prefix + "collective");
  if (model == out_.positions.end() || collective == out_.positions.end()) return;
  auto rank = [](const SourcePos& p) { return std::make_tuple(p.file == "--set", p.line, p.col); };
  const bool collective_second = rank(model->second) < rank(collective->second);
  const auto& second = collective_second ? *collective : *model;
  throw UserError(second.second, second.first +
                                     ": a scenario is a training step ([model]) or one collective ([collective]), not "
                                     "both (expected one of the two tables" +
                                     (prefix.empty() ? std::string(")") : " in this job)"));
}

void Loader::drop_file_price_of_other_instance() {
  models::ScenarioSpec& s = out_.spec;
  const auto set = out_.positions.find("cluster.instance");
  if (set == out_.positions.end() || set->second.file != "--set" || file_instance_ == s.cluster.instance) return;
  const auto from_set = [&](const char* key) {
    const auto it = out_.positions.find(key);
    return it != out_.positions.end() && it->second.file == "--set";
  };
  if (s.cluster.price && !from_set("cluster.price_per_hour")) {
    s.cluster.price.reset();
    out_.positions.erase("cluster.price_per_hour");
  }
  if (s.cluster.params.count("price.gpu_hour") && !from_set("cluster.params.price.gpu_hour")) {
    s.cluster.params.erase("price.gpu_hour");
    out_.positions.erase("cluster.params.price.gpu_hour");
  }
}

void Loader::finish() {
  models::ScenarioSpec& s = out_.spec;
  const SourcePos top{file_name_, 1, 1};
  refuse_model_and_collective("");
  if (!s.cluster.groups.empty()) {
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
    throw UserError(out_.position_of("cluster.node"),
                    "cluster.node: both cluster.instance and [cluster.node] given (expected one machine description)");
  if (s.cluster.instance.empty() && !s.cluster.node)
    throw UserError(out_.position_of("cluster"),
                    "no machine described (expected cluster.instance or a [cluster.node] table)");
  if (!s.jobs.empty()) {
    // [[jobs]] hold the job's own tables; the top level keeps what they share. Slow ranks and a
    // DeepSpeed JSON have no per-job form (models/run/jobs.hpp): say so rather than name one.
    if (out_.positions.count("stragglers"))
      throw UserError(out_.position_of("stragglers"),
                      "stragglers: [[stragglers]] beside [[jobs]] is not modelled, at the top level or in a job "
                      "(expected a scenario without [[jobs]] to simulate slow ranks, nodes or links)");
    if (out_.positions.count("deepspeed_config"))
      throw UserError(out_.position_of("deepspeed_config"),
                      "deepspeed_config: a DeepSpeed JSON is not read beside [[jobs]] (expected each job's DeepSpeed "
                      "settings as [jobs.zero] keys, zero_optimization verbatim, and its batch in [jobs.training])");
    for (const char* table : {"model", "collective", "placement", "training", "parallel", "zero"})
      if (out_.positions.count(table))
        throw UserError(out_.position_of(table),
                        std::string(table) + ": given at the top level beside [[jobs]] (expected it inside each " +
                            "[[jobs]] table as [jobs." + table +
                            "]; the top level holds name, [cluster] and [nccl.env])");
  } else if (!s.model && !s.collective) {
    throw UserError(top, "nothing to simulate (expected a [model] or a [collective] table)");
  }
  if (out_.positions.count("training.tokens") && out_.positions.count("training.steps"))
    throw UserError(out_.position_of("training.tokens"),
                    "training.tokens: given beside training.steps (expected one training target: tokens or steps)");
  if (s.cluster.price && !s.cluster.groups.empty())
    for (const auto& g : s.cluster.groups)
      if (g.instance != s.cluster.instance)
        throw UserError(out_.position_of("cluster.price_per_hour"),
                        "cluster.price_per_hour: one price for [[cluster.groups]] of different instances (expected a "
                        "--prices file naming each instance's price)");
  if (s.collective && s.collective->bytes == 0)
    throw UserError(out_.position_of("collective"), "collective.bytes is missing (expected a size such as \"1 GiB\")");
  if (!s.cluster.profile.empty()) merge_profile();
  drop_file_price_of_other_instance();
  DeepSpeedSettings ds;
  if (ds_path_) {
    ds = read_deepspeed_json(*ds_path_, *ds_path_, ds_named_at_);
    out_.files.push_back(*ds_path_);
    out_.deepspeed_config = *ds_path_;
  }
  // The scenario's [zero] wins over the JSON, whichever of DeepSpeed's two spellings each uses.
  for (auto& [k, e] : zero_toml_) ds.zero[canonical_zero_key(k)] = e;
  apply_deepspeed(ds, s, out_.positions);
  out_.files = {file_name_};
  for (const std::string* f :
       {&s.cluster.profile, ds_path_ ? &*ds_path_ : nullptr, s.cluster.node ? &s.cluster.node->topo_file : nullptr})
    if (f && !f->empty()) out_.files.push_back(*f);
  if (auto tuner = s.nccl_env.find("NCCL_TUNER_CONFIG_FILE"); tuner != s.nccl_env.end())
    out_.files.push_back(tuner->second);  // NCCL's example tuner's rows (cluster_tables.cpp)
}

}  // namespace detail

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
  SourcePos at = position_of(error.key());
  if (at.file != "--set")
    for (const auto& k : error.also())
      if (auto it = positions.find(k); it != positions.end() && it->second.file == "--set") at = it->second;
  return UserError(at, error.what());
}

LoadedScenario load_scenario_text(std::string_view text, const std::string& file_name,
                                  const std::vector<std::string>& overrides, const std::string& base_dir) {
  LoadedScenario out;
  detail::Loader loader(out, file_name, base_dir);
  loader.load(text, overrides);
  return out;
}

LoadedScenario load_scenario(const std::string& path, const std::vector<std::string>& overrides) {
  const std::string text = read_input_file(path, {path, 1, 1}, "scenario", "a scenario file in TOML");
  fs::path base = is_held_descriptor(path) ? fs::path() : fs::path(path).parent_path();  // <(generate.sh): here
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
