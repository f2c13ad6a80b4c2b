#pragma once
// Prices of catalog instances, $ per node-hour, each with its pricing model, region, source and
// the month the figure is from. Kept apart from the instance catalog (instance.cpp): prices change
// far more often than hardware. An instance without a public price has no entry (find_price
// returns nullptr) and says why (find_unpriced); callers print "no price", and a scenario's
// [cluster] price_per_hour or the user's --prices file fills the gap (models/run/cost.hpp).
#include <string>
#include <string_view>
#include <vector>

namespace models::hw {

// How the figure is sold. On demand: the list price per hour, no commitment (Azure calls it
// pay-as-you-go). Capacity block: the published effective hourly rate of a reservation bought up
// front for a fixed window (AWS EC2 Capacity Blocks for ML), used only where the provider sells
// the instance on no on-demand price; the rate is revised over time and charged for the whole block.
enum class PricingModel { OnDemand, CapacityBlock };
const char* pricing_model_name(PricingModel m);  // "on-demand", "capacity block"

struct InstancePrice {
  std::string instance;      // catalog name (instance.cpp)
  double usd_per_hour = 0;   // one node (a multi-host NVLink domain: the whole domain), Linux
  PricingModel model = PricingModel::OnDemand;
  std::string region;        // where the figure applies, e.g. "us-east-1"
  std::string source;        // where the number is published
  std::string date;          // when it was that price (YYYY-MM)
  std::string note;          // earlier prices and sources that disagree, and which was chosen; may be empty
  // GPUs per unit the provider sells where a node is several such units (a VM of a multi-VM NVLink
  // domain, billed per VM: Azure's ND GB200 v6 VM holds 4 of a rack's 72 GPUs); 0: the node is
  // sold whole (AWS sells a UltraServer whole). A run on part of such a node pays the units its
  // GPUs need (models/run/cost.hpp).
  int unit_gpus = 0;
};

const std::vector<InstancePrice>& price_catalog();
// The catalog's price of `instance`, or nullptr where it has none.
const InstancePrice* find_price(std::string_view instance);

// Every catalog instance without a price says why: bought, not rented (DGX systems, racks, the
// calibration host), or sold on no public hourly price that could be found. Commands print
// "no price" for these, never a guess.
struct UnpricedInstance {
  std::string instance;
  std::string why;
};
const std::vector<UnpricedInstance>& unpriced_catalog();
// Why `instance` has no catalog price, or nullptr (priced, or not a catalog instance).
const UnpricedInstance* find_unpriced(std::string_view instance);

}  // namespace models::hw
