// $ per step, run and million tokens (see cost.hpp).
#include "models/run/cost.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "models/hw/instance.hpp"
#include "models/hw/prices.hpp"
#include "models/params.hpp"

namespace models {

namespace {
// cluster.params "price.gpu_hour" (a price per GPU-hour, as GPU clouds quote it) for a node of
// `gpus` GPUs: the whole node, as every other price (a node's GPUs are held together).
std::optional<PriceSpec> per_gpu_price(const ScenarioSpec& spec, int gpus) {
  const double per_gpu = param_or(spec.cluster.params, "price.gpu_hour", 0);
  if (per_gpu <= 0 || gpus <= 0) return std::nullopt;
  return PriceSpec{per_gpu * gpus, "cluster.params \"price.gpu_hour\" x " + std::to_string(gpus) + " GPUs per node",
                   "given"};
}
}  // namespace

std::optional<PriceSpec> node_price(const ScenarioSpec& spec, const std::string& instance) {
  const ClusterSpec& c = spec.cluster;
  if (c.price && (c.groups.empty() || instance == c.instance)) return c.price;
  if (!c.price) {
    const bool custom = c.node && instance == c.instance;
    if (auto p = per_gpu_price(spec, custom ? c.node->gpus : hw::find_instance(instance).gpus)) return p;
  }
  if (auto it = c.prices.find(instance); it != c.prices.end()) return it->second;
  if (const hw::InstancePrice* p = hw::find_price(instance)) {
    const std::string pricing = hw::pricing_model_name(p->model);
    return PriceSpec{p->usd_per_hour, "catalog: " + pricing + ", " + p->region + ", " + p->source + ", " + p->date,
                     pricing, p->unit_gpus};
  }
  return std::nullopt;
}

int billed_gpus_per_node(const PriceSpec& price, int node_gpus, int used_gpus) {
  const int unit = price.unit_gpus;
  if (unit <= 0 || node_gpus % unit != 0 || used_gpus >= node_gpus || used_gpus <= 0) return node_gpus;
  return (used_gpus + unit - 1) / unit * unit;
}

namespace {
// The GPUs of each node the placement uses (pods x GPUs per pod), at most the node's.
int used_gpus_per_node(const ScenarioSpec& spec, int node_gpus) {
  const PlacementSpec& p = spec.placement;
  if (p.gpus_per_pod <= 0) return node_gpus;
  return std::min(node_gpus, std::max(1, p.pods_per_node) * p.gpus_per_pod);
}
}  // namespace

std::optional<ClusterPrice> cluster_price(const ScenarioSpec& spec, std::string* missing) {
  const ClusterSpec& c = spec.cluster;
  auto fail = [&](const std::string& what) -> std::optional<ClusterPrice> {
    if (missing) *missing = what;
    return std::nullopt;
  };
  ClusterPrice out;
  // One group of nodes at one price: a node sold in units (VMs of an NVLink domain) pays the units
  // its used GPUs need, ceil(used / unit) of gpus / unit; any other node is paid whole.
  const auto add = [&](const PriceSpec& p, int nodes, int node_gpus, int used) {
    const int billed_gpus = billed_gpus_per_node(p, node_gpus, used);
    const double share = node_gpus > 0 ? static_cast<double>(billed_gpus) / node_gpus : 1.0;
    const double usd = p.usd_per_hour * share * nodes;
    out.usd_per_hour += usd;
    out.nodes += nodes;
    out.gpus += nodes * billed_gpus;
    out.pricing = out.pricing.empty() || out.pricing == p.pricing ? p.pricing : "mixed";
    std::string source = p.source;
    if (share < 1)
      source += ", " + std::to_string(billed_gpus / p.unit_gpus) + " of " + std::to_string(node_gpus / p.unit_gpus) +
                " units of " + std::to_string(p.unit_gpus) + " GPUs billed per node";
    if (out.source.find(source) == std::string::npos) out.source += (out.source.empty() ? "" : "; ") + source;
    out.parts.push_back({p.pricing, usd});
  };
  if (c.groups.empty()) {
    const auto p = c.node ? (c.price ? c.price : per_gpu_price(spec, c.node->gpus)) : node_price(spec, c.instance);
    if (!p && c.node) return fail("[cluster.node]");
    if (!p) return fail(c.instance);
    const int node_gpus = c.node ? std::max(0, c.node->gpus) : hw::find_instance(c.instance).gpus;
    add(*p, std::max(1, c.nodes), node_gpus, used_gpus_per_node(spec, node_gpus));
    return out;
  }
  for (const auto& g : c.groups) {
    const auto p = node_price(spec, g.instance);
    if (!p) return fail(g.instance);
    const int node_gpus = hw::find_instance(g.instance).gpus;
    add(*p, g.nodes, node_gpus, used_gpus_per_node(spec, node_gpus));
  }
  return out;
}

double billed_seconds(const std::string& pricing, double run_s) {
  if (pricing != hw::pricing_model_name(hw::PricingModel::CapacityBlock) || run_s <= 0 || !std::isfinite(run_s))
    return run_s;
  constexpr double kDay = 86400;
  // Whole days: a window is sold in 1-day increments up to 14 days and 7-day increments to 182,
  // and a window is extended in 1-day increments with no limit on their number (EC2 user guide,
  // "Extend Capacity Blocks"), so every whole number of days is a chain of windows: a 15-day run
  // pays a 14-day window and a 1-day one, not 21 days (closed form: an expected wall time of
  // millions of years is a count of days, not a loop over windows).
  return std::ceil(run_s / kDay - 1e-9) * kDay;
}

std::string price_caveat(const ScenarioSpec& spec) {
  const ClusterSpec& c = spec.cluster;
  std::vector<std::string> instances;
  if (c.groups.empty() && !c.node) instances.push_back(c.instance);
  for (const auto& g : c.groups) instances.push_back(g.instance);
  std::string out;
  for (const auto& instance : instances) {
    const auto given = node_price(spec, instance);
    // Two prices for one instance, the file's not used: say which won, so neither is lost unseen.
    if (const auto file = c.prices.find(instance);
        given && file != c.prices.end() && given->source != file->second.source) {
      char text[512];
      std::snprintf(text, sizeof text,
                    "%s: priced by %s at $%.2f per node-hour; the price file's $%.2f (%s) is not used",
                    instance.c_str(), given->source.c_str(), given->usd_per_hour, file->second.usd_per_hour,
                    file->second.source.c_str());
      out += (out.empty() ? "" : "; ") + std::string(text);
    }
    const hw::InstancePrice* catalog = hw::find_price(instance);
    if (!given || !catalog || given->source.rfind("catalog:", 0) == 0) continue;
    const double ratio = given->usd_per_hour / catalog->usd_per_hour;
    if (ratio >= 1.0 / 3 && ratio <= 3) continue;
    const int gpus = hw::find_instance(instance).gpus;
    char text[512];
    std::snprintf(
        text, sizeof text, "%s: the given $%.2f per node-hour (%s) is %.2g x the catalog's $%.2f (%s, %s)%s",
        instance.c_str(), given->usd_per_hour, given->source.c_str(), ratio, catalog->usd_per_hour,
        hw::pricing_model_name(catalog->model), catalog->date.c_str(),
        ratio < 1.0 / 3 && std::abs(ratio * gpus - 1) < 0.5
            ? ": a price per GPU-hour? (a price file's usd_per_gpu_hour, or cluster.params \"price.gpu_hour\", "
              "takes one)"
            : "");
    out += (out.empty() ? "" : "; ") + std::string(text);
  }
  return out;
}

std::string capacity_block_caveat(const ScenarioSpec& spec) {
  const ClusterSpec& c = spec.cluster;
  if (c.node) return "";                            // a custom node is priced as given, never as a block
  std::vector<std::pair<std::string, int>> counts;  // instance type -> its nodes, first written first
  const auto count = [&](const std::string& instance, int nodes) {
    for (auto& [name, n] : counts)
      if (name == instance) return void(n += nodes);
    counts.emplace_back(instance, nodes);
  };
  if (c.groups.empty()) count(c.instance, std::max(1, c.nodes));
  for (const auto& g : c.groups) count(g.instance, g.nodes);
  const std::string block = hw::pricing_model_name(hw::PricingModel::CapacityBlock);
  std::string out;
  int total = 0;
  for (const auto& [instance, nodes] : counts) {
    const auto price = node_price(spec, instance);
    if (!price || price->pricing != block || hw::find_instance(instance).hosts() > 1) continue;
    total += nodes;
    if (nodes <= kCapacityBlockInstances) continue;
    const int blocks = (nodes + kCapacityBlockInstances - 1) / kCapacityBlockInstances;
    char text[512];
    std::snprintf(text, sizeof text,
                  "%s: %d instances at a Capacity Block rate take %d Capacity Blocks (one holds at most %d "
                  "instances: AWS EC2 user guide, \"Capacity Blocks for ML\"), each a reservation bought on its own, "
                  "subject to its own capacity; the $ is the same rate per instance, but AWS says a block's instances "
                  "are placed close together, not that several blocks are",
                  instance.c_str(), nodes, blocks, kCapacityBlockInstances);
    out += (out.empty() ? "" : "; ") + std::string(text);
  }
  if (total > kCapacityBlockAccountInstances) {
    char text[512];
    std::snprintf(text, sizeof text,
                  "%d instances at Capacity Block rates are more than the %d one account may hold across Capacity "
                  "Blocks (AWS EC2 user guide, \"Capacity Blocks for ML\"): AWS does not sell this cluster as "
                  "Capacity Blocks, and its $ prices it as if it did",
                  total, kCapacityBlockAccountInstances);
    out += (out.empty() ? "" : "; ") + std::string(text);
  }
  return out;
}

double usd_for_seconds(const CostResult& cost, double seconds) {
  if (cost.parts.empty()) return billed_seconds(cost.pricing, seconds) * cost.usd_per_hour / 3600;
  double usd = 0;
  for (const auto& part : cost.parts) usd += billed_seconds(part.pricing, seconds) * part.usd_per_hour / 3600;
  return usd;
}

long long steps_for_tokens(double tokens, double tokens_per_step) {
  if (tokens <= 0 || tokens_per_step <= 0) return 0;
  return static_cast<long long>(std::ceil(tokens / tokens_per_step - 1e-9));
}

void apply_token_target(const ScenarioSpec& spec, RunResult& result) {
  if (spec.training.tokens <= 0 || !result.throughput.estimated || result.partial) return;
  const long long steps = steps_for_tokens(spec.training.tokens, result.throughput.tokens_per_step);
  if (steps <= 0) return;
  result.steps = static_cast<int>(std::min<long long>(steps, 2'000'000'000LL));
  result.run_time_s = result.step_time_s * double(steps);
}

CostResult make_cost(const ScenarioSpec& spec, const RunResult& result) {
  CostResult c;
  const std::optional<ClusterPrice> price = cluster_price(spec, &c.missing);
  if (!price || result.partial) return c;
  c.known = true;
  c.usd_per_hour = price->usd_per_hour;
  c.source = price->source;
  c.pricing = price->pricing;
  c.nodes = price->nodes;
  c.gpus = price->gpus;
  // Each group of nodes under its own pricing (a Capacity Block's windows beside nodes billed by
  // the second); billed_s is then the time the whole cluster's rate pays for the same dollars.
  c.parts = price->parts;
  c.usd_per_run = usd_for_seconds(c, result.run_time_s);
  c.billed_s = c.usd_per_hour > 0 ? c.usd_per_run * 3600 / c.usd_per_hour : result.run_time_s;
  // Per step and per token, what the run pays: a Capacity Block's idle rest of its window is paid
  // for by the run's steps, so $ per step and per million tokens agree with $ per run.
  const double billed_share = result.run_time_s > 0 ? c.billed_s / result.run_time_s : 1.0;
  c.usd_per_step = result.step_time_s * c.usd_per_hour / 3600 * billed_share;
  if (result.throughput.estimated && result.throughput.tokens_per_step > 0)
    c.usd_per_million_tokens = c.usd_per_step / result.throughput.tokens_per_step * 1e6;
  return c;
}

}  // namespace models
