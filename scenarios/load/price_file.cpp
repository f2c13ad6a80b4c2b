// The user's price file (price_file.hpp).
#include "scenarios/load/price_file.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <tuple>
#include <vector>

#include <toml++/toml.h>

#include "models/hw/instance.hpp"
#include "models/hw/prices.hpp"
#include "models/suggest.hpp"
#include "scenarios/load/input_file.hpp"
#include "scenarios/load/table_loader.hpp"

namespace scenarios {

namespace {

SourcePos at(const std::string& file, const toml::source_region& r) {
  return {file, std::max(1, int(r.begin.line)), std::max(1, int(r.begin.column))};
}

// Where a key was written (its value's place where toml++ kept none for the key).
SourcePos price_key_pos(const std::string& file, const toml::key& k, const toml::node& value) {
  return k.source().begin.line > 0 ? at(file, k.source()) : at(file, value.source());
}

// The keys an entry may hold, in the order the messages list them.
const std::vector<std::string> kEntryKeys = {"usd_per_hour", "usd_per_gpu_hour", "pricing", "source", "date"};

// A key of `t` that is none of `known`, the one written first (a table iterates sorted by key):
// refused at its place with the nearest known key (models::near_names), or the list of them
// where none is near.
void refuse_unknown_key(const toml::table& t, const std::string& file, const std::string& dotted,
                        const std::vector<std::string>& known, const std::string& noun, const std::string& expected) {
  std::optional<SourcePos> first;
  std::string name;
  for (const auto& [k, v] : t) {
    if (std::find(known.begin(), known.end(), std::string(k.str())) != known.end()) continue;
    const SourcePos p = price_key_pos(file, k, v);
    if (first && std::tie(first->line, first->col) <= std::tie(p.line, p.col)) continue;
    first = p;
    name = std::string(k.str());
  }
  if (!first) return;
  const std::vector<std::string> near = models::near_names(name, known, 1);
  throw UserError(*first, (dotted.empty() ? "" : dotted + ".") + name + ": unknown " + noun + " (" +
                              (near.empty() ? "expected " + expected : "did you mean '" + near[0] + "'?") + ")");
}

double price_value(const toml::node& n, const std::string& file, const std::string& key) {
  const auto v = n.value<double>();
  if (!v || !std::isfinite(*v))
    throw UserError(at(file, n.source()), key + ": not a number (expected one node's price in $ per hour, e.g. 55.04)");
  if (!(*v > 0)) throw UserError(at(file, n.source()), key + ": not above 0 (expected one node's price in $ per hour)");
  if (*v > models::kMaxUsdPerHour)
    throw UserError(at(file, n.source()),
                    key + ": above 1e6 $ per hour (expected one node's price in $ per hour, e.g. 55.04)");
  return *v;
}

// How the figure is sold: "on-demand" (billed by the second, as "given") or "capacity-block" (a
// reservation paid by whole windows: models/run/cost.hpp billed_seconds).
std::string pricing_value(const toml::node& n, const std::string& file, const std::string& key) {
  const auto v = n.value<std::string>();
  const std::string block = models::hw::pricing_model_name(models::hw::PricingModel::CapacityBlock);
  const std::string on_demand = models::hw::pricing_model_name(models::hw::PricingModel::OnDemand);
  if (v && (*v == "capacity-block" || *v == block)) return block;
  if (v && (*v == on_demand || *v == "on demand")) return on_demand;
  throw UserError(at(file, n.source()),
                  key + ": " + (v ? "'" + *v + "'" : std::string("not a string")) +
                      " is not a pricing (expected \"on-demand\", billed by the second, or \"capacity-block\", "
                      "paid by whole days)");
}

void check_instance(const std::string& name, const toml::node& entry, const SourcePos& pos) {
  const auto names = models::hw::instance_names();
  for (const auto& n : names)
    if (n == name) return;
  // TOML reads [prices.p5.48xlarge] as table p5 holding table 48xlarge: a name with a dot is quoted.
  if (const toml::table* t = entry.as_table())
    for (const auto& [rest, sub] : *t) {
      const std::string dotted = name + "." + std::string(rest.str());
      if (sub.is_table() && std::find(names.begin(), names.end(), dotted) != names.end())
        throw UserError(pos, "prices." + name +
                                 ": unknown instance (TOML splits an unquoted name at its dots: did you "
                                 "mean [prices.\"" +
                                 dotted + "\"]?)");
    }
  const std::string near = closest_match(name, names);
  throw UserError(pos, "prices." + name + ": unknown instance" +
                           (near.empty() ? std::string(" (expected a name `commsim instances` lists)")
                                         : " (did you mean '" + near + "'?)"));
}

}  // namespace

std::map<std::string, models::PriceSpec> read_price_text(const std::string& text, const std::string& file) {
  const toml::table root = detail::parse_toml(text, file);
  std::map<std::string, models::PriceSpec> out;
  refuse_unknown_key(root, file, "", {"prices"}, "table", "[prices]");
  for (const auto& [key, node] : root) {
    const toml::table* prices = node.as_table();
    if (!prices) throw UserError(at(file, node.source()), "prices: not a table (expected [prices.\"INSTANCE\"] tables)");
    for (const auto& [name_key, entry] : *prices) {
      const std::string name(name_key.str());
      const SourcePos pos = at(file, entry.source());
      check_instance(name, entry, price_key_pos(file, name_key, entry));
      models::PriceSpec p;
      p.source = pos.str();
      if (const toml::table* t = entry.as_table()) {
        refuse_unknown_key(*t, file, "prices." + name, kEntryKeys, "key",
                           "usd_per_hour or usd_per_gpu_hour, pricing, source, date");
        std::string date;
        const toml::node* per_node = nullptr;
        const toml::node* per_gpu = nullptr;
        for (const auto& [field, v] : *t) {
          const std::string f(field.str()), k = "prices." + name + "." + f;
          if (f == "usd_per_hour") {
            p.usd_per_hour = price_value(v, file, k);
            per_node = &v;
          } else if (f == "usd_per_gpu_hour") {
            // As GPU clouds quote it: the node's price is this times its GPUs (a node is held whole).
            p.usd_per_hour = price_value(v, file, k) * models::hw::find_instance(name).gpus;
            per_gpu = &v;
          } else if (f == "source" || f == "date") {
            const auto s = v.value<std::string>();
            if (!s) throw UserError(at(file, v.source()), k + ": not a string (expected text)");
            (f == "source" ? p.source : date) = *s;
          } else if (f == "pricing") {
            p.pricing = pricing_value(v, file, k);
          }
        }
        if (per_node && per_gpu)
          throw UserError(
              at(file, per_gpu->source()),
              "prices." + name + ".usd_per_gpu_hour: the entry also gives usd_per_hour (expected one of the two)");
        if (!per_node && !per_gpu)
          throw UserError(
              pos, "prices." + name + ": usd_per_hour is missing (expected $ per node-hour, or usd_per_gpu_hour)");
        if (per_gpu)
          p.source += " (" + detail::shortest(p.usd_per_hour / models::hw::find_instance(name).gpus) +
                      " per GPU-hour x " + std::to_string(models::hw::find_instance(name).gpus) + " GPUs)";
        if (!date.empty()) p.source += ", " + date;
      } else {
        p.usd_per_hour = price_value(entry, file, "prices." + name);
      }
      out[name] = p;
    }
  }
  return out;
}

std::map<std::string, models::PriceSpec> read_price_file(const std::string& path) {
  return read_price_text(read_input_file(path, {"--prices", 1, 1}, "price file", "a TOML file of [prices] tables"),
                         path);
}

}  // namespace scenarios
