// $ per step, run and million tokens (see cost.hpp).
#include "models/run/cost.hpp"

#include <algorithm>
#include <cmath>

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
                     pricing};
  }
  return std::nullopt;
}

std::optional<ClusterPrice> cluster_price(const ScenarioSpec& spec, std::string* missing) {
  const ClusterSpec& c = spec.cluster;
  auto fail = [&](const std::string& what) -> std::optional<ClusterPrice> {
    if (missing) *missing = what;
    return std::nullopt;
  };
  ClusterPrice out;
  if (c.groups.empty()) {
    const auto p = c.node ? (c.price ? c.price : per_gpu_price(spec, c.node->gpus)) : node_price(spec, c.instance);
    if (!p && c.node) return fail("[cluster.node]");
    if (!p) return fail(c.instance);
    out.usd_per_hour = p->usd_per_hour * std::max(1, c.nodes);
    out.nodes = std::max(1, c.nodes);
    out.gpus = out.nodes * (c.node ? std::max(0, c.node->gpus) : hw::find_instance(c.instance).gpus);
    out.source = p->source;
    out.pricing = p->pricing;
    return out;
  }
  for (const auto& g : c.groups) {
    const auto p = node_price(spec, g.instance);
    if (!p) return fail(g.instance);
    out.usd_per_hour += p->usd_per_hour * g.nodes;
    out.nodes += g.nodes;
    out.gpus += g.nodes * hw::find_instance(g.instance).gpus;
    out.pricing = out.pricing.empty() || out.pricing == p->pricing ? p->pricing : "mixed";
    if (out.source.find(p->source) == std::string::npos) out.source += (out.source.empty() ? "" : "; ") + p->source;
  }
  return out;
}

double billed_seconds(const std::string& pricing, double run_s) {
  if (pricing != hw::pricing_model_name(hw::PricingModel::CapacityBlock) || run_s <= 0 || !std::isfinite(run_s))
    return run_s;
  constexpr double kDay = 86400, kMaxWindowDays = 182;
  // Windows of at most 182 days: whole days up to 14, whole weeks beyond. Every full window is
  // billed its 182 days, so only the last one is rounded (closed form: an expected wall time of
  // millions of years is a count of windows, not a loop over them).
  const double days = std::ceil(run_s / kDay - 1e-9);
  const double full = std::floor(days / kMaxWindowDays), last = days - full * kMaxWindowDays;
  const double last_billed = last <= 0    ? 0
                             : last <= 14 ? last
                                          : std::min(kMaxWindowDays, 14 + 7 * std::ceil((last - 14) / 7));
  return (full * kMaxWindowDays + last_billed) * kDay;
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
  c.billed_s = billed_seconds(c.pricing, result.run_time_s);
  c.usd_per_run = c.billed_s * c.usd_per_hour / 3600;
  // Per step and per token, what the run pays: a Capacity Block's idle rest of its window is paid
  // for by the run's steps, so $ per step and per million tokens agree with $ per run.
  const double billed_share = result.run_time_s > 0 ? c.billed_s / result.run_time_s : 1.0;
  c.usd_per_step = result.step_time_s * c.usd_per_hour / 3600 * billed_share;
  if (result.throughput.estimated && result.throughput.tokens_per_step > 0)
    c.usd_per_million_tokens = c.usd_per_step / result.throughput.tokens_per_step * 1e6;
  return c;
}

}  // namespace models
