// A scenario file rewritten (scenario_rewrite.hpp).
#include "scenarios/load/scenario_rewrite.hpp"

#include <filesystem>
#include <sstream>

#include <toml++/toml.h>

#include "scenarios/load/input_file.hpp"
#include "scenarios/load/loader.hpp"
#include "scenarios/load/table_loader.hpp"
#include "scenarios/load/toml_reader.hpp"

namespace scenarios {

namespace {

// `key` as --set writes it: cluster.params."price.gpu_hour" is one key with a dot, and
// cluster.params.price.gpu_hour the same key as a dotted TOML key (nested tables, which
// [cluster.params] reads alike); tables the removal leaves empty go too.
void remove_key(toml::table& root, const std::string& key) {
  const auto parts = override_key_parts(key);
  std::vector<toml::table*> path = {&root};
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    toml::node* next = path.back()->get(parts[i]);
    if (!next || !next->is_table()) return;
    path.push_back(next->as_table());
  }
  if (!path.back()->erase(parts.back())) return;
  for (size_t i = path.size() - 1; i > 0 && path[i]->empty(); --i) path[i - 1]->erase(parts[i - 1]);
}

void absolute_path(toml::table& root, const std::string& dotted, const std::filesystem::path& dir) {
  const auto parts = override_key_parts(dotted);
  toml::table* t = &root;
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    toml::node* next = t->get(parts[i]);
    if (!next || !next->is_table()) return;
    t = next->as_table();
  }
  toml::node* v = t->get(parts.back());
  if (!v || !v->is_string()) return;
  const std::filesystem::path p(v->as_string()->get());
  if (p.is_relative()) t->insert_or_assign(parts.back(), std::filesystem::absolute(dir / p).lexically_normal().string());
}

}  // namespace

std::string rewrite_scenario(const std::string& path, const std::vector<std::string>& remove,
                             const std::vector<std::string>& overrides, const std::vector<std::string>& header) {
  const std::string text = read_input_file(path, {path, 1, 1}, "scenario");
  toml::table root = detail::parse_toml(text, path);
  const std::filesystem::path dir = std::filesystem::path(path).parent_path();
  for (const char* k : {"cluster.profile", "deepspeed_config", "zero.deepspeed_config", "cluster.node.topo_file"})
    absolute_path(root, k, dir);
  for (const auto& k : remove) remove_key(root, k);
  LoadedScenario scratch;
  detail::TomlReader reader(scratch, path);
  for (size_t i = 0; i < overrides.size(); ++i) reader.apply_override(root, overrides[i], int(i) + 1);
  std::ostringstream out;
  for (const auto& h : header) out << "# " << h << "\n";
  out << toml::toml_formatter(root) << "\n";
  return out.str();
}

}  // namespace scenarios
