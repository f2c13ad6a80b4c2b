#pragma once
// The user's price file (`--prices FILE` of run, compare, sweep, plan and instances): on-demand or
// negotiated prices per node-hour by instance name, each with its source. They win over the
// catalog (models/hw/prices.hpp) and lose to a scenario's own [cluster] price_per_hour
// (models/run/cost.hpp). Closed schema:
//   [prices."p5.48xlarge"]
//   usd_per_hour = 55.04                                  # one node, $ per hour (> 0, <= 1e6)
//   source = "AWS EC2 on-demand pricing, us-east-1"       # optional; default FILE:LINE:COL
//   date = "2025-06"                                      # optional
//   pricing = "capacity-block"                            # optional: "on-demand" or "capacity-block"
//                                                         # (paid by whole windows); default: billed by the second
// `usd_per_gpu_hour = 6.88` in place of usd_per_hour gives the price as GPU clouds quote it (the
// node's is that times its GPUs: a node is held whole).
// A shorthand `"p5.48xlarge" = 55.04` inside [prices] takes FILE:LINE:COL as its source. Instance
// names must be catalog instances (a typo is an error with "did you mean").
#include <map>
#include <string>

#include "models/spec.hpp"

namespace scenarios {

// Throws UserError at FILE:LINE:COL.
std::map<std::string, models::PriceSpec> read_price_file(const std::string& path);
std::map<std::string, models::PriceSpec> read_price_text(const std::string& text, const std::string& file_name);

}  // namespace scenarios
