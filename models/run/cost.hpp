#pragma once
// What a run costs: the cluster's nodes at their on-demand price per hour, times the simulated
// step and run.
//   price of one node of instance I: [cluster] price_per_hour (the scenario's own figure, one node
//     of the cluster; not with [[cluster.groups]] of different instances), else the user's price
//     file (--prices FILE, ClusterSpec::prices), else the catalog (models/hw/prices.hpp: on demand,
//     or a Capacity Block's rate where AWS sells no on-demand; the source says which);
//   without price_per_hour, cluster.params "price.gpu_hour" x the node's GPUs comes before the
//     file and the catalog (a price per GPU-hour, as GPU clouds quote it);
//   usd_per_hour = sum over nodes of their price;
//   usd_per_run = sum over the groups sold alike of billed_seconds(their pricing, run_time_s) x their $ / 3600
//     (one group: billed_s x usd_per_hour / 3600), billed_s = usd_per_run x 3600 / usd_per_hour;
//   usd_per_step = step_time_s x usd_per_hour / 3600 x billed_s / run_time_s  (= usd_per_run / steps);
//   usd_per_million_tokens = usd_per_step / tokens_per_step x 1e6 (training steps only);
//   billed_s = run_time_s on demand, so per step is then the step's seconds at the hourly rate.
//   A Capacity Block is paid up front for its whole window, which AWS sells in 1-day increments up
//   to 14 days and 7-day increments beyond, to 182 days (EC2 user guide, "Find and purchase
//   Capacity Blocks"), and extends in 1-day increments ("Extend Capacity Blocks"), so a run pays
//   its whole days, each extension subject to capacity as a new window is. usd_per_run is the windows
//   covering the run (billed_s), not its seconds, and the run's steps and tokens carry the whole
//   window: a 2-hour run on a 1-day block pays 12x the hourly rate per step, so ranking by $ per
//   million tokens never favours a block the run leaves mostly idle.
// A node with no price leaves the cost unknown (known = false) and names the instance (missing);
// nothing is guessed. Whole nodes are paid for even where the placement leaves GPUs idle, except
// a node the provider sells in units (hw::InstancePrice::unit_gpus: Azure's ND GB200 v6 rack, 18
// VMs of 4 GPUs): there a placement using k of its GPUs pays ceil(k / unit) units. Groups of a
// mixed cluster are each billed under their own pricing.
// training.tokens (a target in tokens rather than steps): the run is ceil(tokens / tokens per step)
// steps, and run_time_s says so (apply_token_target).
#include <optional>
#include <string>
#include <vector>

#include "models/result.hpp"
#include "models/spec.hpp"

namespace models {

// One node's price of `instance` as the scenario, the user's file or the catalog gives it.
std::optional<PriceSpec> node_price(const ScenarioSpec& spec, const std::string& instance);

// The GPUs of one node a run pays for when it uses `used_gpus` of its `node_gpus`: all of them,
// except on a node sold in units of price.unit_gpus (the units the used GPUs need).
int billed_gpus_per_node(const PriceSpec& price, int node_gpus, int used_gpus);

// The cluster's $/hour (every node), or nullopt with `missing` set to the first instance that has
// no price ("[cluster.node]" for a custom node without price_per_hour).
struct ClusterPrice {
  double usd_per_hour = 0;
  std::string source;
  std::string pricing;  // PriceSpec::pricing of every node; "mixed" when the groups' differ
  int nodes = 0, gpus = 0;  // what the price bills: every node of the cluster, and their GPUs (0: unknown)
  // The price by how it is sold, each group of nodes apart: a Capacity Block is billed by its
  // windows, the rest by the second (usd_for_seconds adds them up).
  std::vector<PricePart> parts;
};
std::optional<ClusterPrice> cluster_price(const ScenarioSpec& spec, std::string* missing = nullptr);

// The seconds paid for a run of `run_s` sold as `pricing` (CostResult::pricing): the run itself,
// or for "capacity block" the whole days of the windows (and 1-day extensions) that cover it.
double billed_seconds(const std::string& pricing, double run_s);

// Where a price the user gave is more than 3x away from the catalog's for the same instance (a
// price per GPU-hour typed as one per node-hour reads 1/8 of it), one sentence naming both;
// empty otherwise. A negotiated discount of up to two thirds passes silently. Where the scenario's
// own price (price_per_hour, "price.gpu_hour") wins over a price file's for the same instance,
// that is said too.
std::string price_caveat(const ScenarioSpec& spec);

// How many instances AWS sells as Capacity Blocks: "Each Capacity Block can have up to 64
// instances, and you can have up to 256 instances across Capacity Blocks" (AWS EC2 user guide,
// "Capacity Blocks for ML", docs.aws.amazon.com/AWSEC2/latest/UserGuide/ec2-capacity-blocks.html;
// "Work with Capacity Blocks" adds that a block of 64 is not offered for every instance type in
// every Region, so 64 is the most any type gets). A block is one instance type, bought at the
// published rate per instance-hour, so several blocks cost what one block of their instances would.
// An UltraServer Capacity Block is counted in UltraServers, not instances; the guide gives no
// number for it, so a node of several hosts (hw::NodeSpec::hosts) is not counted here.
inline constexpr int kCapacityBlockInstances = 64;
inline constexpr int kCapacityBlockAccountInstances = 256;

// Where the cluster holds more instances at a Capacity Block price than one block sells: per
// instance type with more than kCapacityBlockInstances, the blocks it takes (the $ unchanged: the
// same rate per instance), and where all of them together exceed kCapacityBlockAccountInstances,
// that AWS sells one account no such set of blocks (the $ prices one anyway). Empty otherwise.
std::string capacity_block_caveat(const ScenarioSpec& spec);

// What `seconds` of the cluster cost: each part of its price billed under its own pricing.
double usd_for_seconds(const CostResult& cost, double seconds);

// The steps a run of training.tokens tokens takes: ceil(tokens / tokens_per_step); 0 when the
// scenario sets no token target or the step has no token count.
long long steps_for_tokens(double tokens, double tokens_per_step);

// result.steps and run_time_s from training.tokens (when set and the step has a throughput).
void apply_token_target(const ScenarioSpec& spec, RunResult& result);

CostResult make_cost(const ScenarioSpec& spec, const RunResult& result);

}  // namespace models
