#pragma once
// On-demand prices of catalog instances, $ per node-hour, each with its source and the date the
// number is from. Kept apart from the instance catalog (instance.cpp): prices change far more
// often than hardware, and an instance without a published on-demand price simply has no entry
// (find_price returns nullptr; callers say so, and a scenario's [cluster] price_per_hour or the
// user's --prices file fills the gap, models/run/cost.hpp).
#include <string>
#include <string_view>
#include <vector>

namespace models::hw {

struct InstancePrice {
  std::string instance;      // catalog name (instance.cpp)
  double usd_per_hour = 0;   // one node, on demand, Linux, the region named in `source`
  std::string source;        // where the number is published
  std::string date;          // when it was that price (YYYY-MM)
};

const std::vector<InstancePrice>& price_catalog();
// The catalog's price of `instance`, or nullptr where it has none.
const InstancePrice* find_price(std::string_view instance);

// Every catalog instance without a price says why: no public on-demand list price (sold through
// reservations or bought, not rented), or a price that is published but was not checked against
// its page when this table was written (the page named, so a user can put the figure in a
// --prices file). Commands print "no price" for these, never a guess.
struct UnpricedInstance {
  std::string instance;
  std::string why;
};
const std::vector<UnpricedInstance>& unpriced_catalog();
// Why `instance` has no catalog price, or nullptr (priced, or not a catalog instance).
const UnpricedInstance* find_unpriced(std::string_view instance);

}  // namespace models::hw
