// On-demand prices, us-east-1 (N. Virginia), Linux, $ per instance-hour.
//
// AWS cut the on-demand prices of P4 and P5 instances by up to 45 % in June 2025 ("Announcing up
// to 45% price reduction for Amazon EC2 NVIDIA GPU-accelerated instances", AWS What's New,
// 2025-06); the P4/P5 figures below are the list prices published on the instance pages before that
// cut, so they overstate today's on-demand cost of those instances. Put current (or negotiated,
// Savings Plan, Capacity Block) rates in a --prices file or in [cluster] price_per_hour: both win
// over this table (models/run/cost.hpp).
// Instances with no entry: p5e/p5en/p6-b200 (sold through Capacity Blocks and Savings Plans when
// this table was written; no on-demand list price found), g6e (no checked figure), the DGX systems
// and the h200x4 calibration host (bought, not rented).
#include "models/hw/prices.hpp"

namespace models::hw {

const std::vector<InstancePrice>& price_catalog() {
  static const std::vector<InstancePrice> catalog = {
      // AWS EC2 P4 instance page (aws.amazon.com/ec2/instance-types/p4/), "On-Demand Price/hr",
      // p4d.24xlarge $32.77 and p4de.24xlarge $40.96 (us-east-1), as listed 2023-2025 before the
      // June 2025 reduction.
      {"p4d.24xlarge", 32.7726, "AWS EC2 P4 instance page, on-demand us-east-1 (before the June 2025 cut)", "2025-05"},
      {"p4de.24xlarge", 40.9657, "AWS EC2 P4 instance page, on-demand us-east-1 (before the June 2025 cut)", "2025-05"},
      // AWS EC2 P5 instance page, p5.48xlarge $98.32 per hour on demand (us-east-1), the rate The
      // Next Platform analysed ("H100 GPU Instance Pricing On AWS: Grin And Bear It", 2023-07-27)
      // and buyer guides still list as ~$98.30/hr in 2026; before the June 2025 reduction.
      {"p5.48xlarge", 98.32, "AWS EC2 P5 instance page, on-demand us-east-1 (before the June 2025 cut)", "2025-05"},
      // AWS EC2 G5 instance page, g5.48xlarge $16.288 per hour on demand (us-east-1).
      {"g5.48xlarge", 16.288, "AWS EC2 G5 instance page, on-demand us-east-1", "2025-05"},
  };
  return catalog;
}

const InstancePrice* find_price(std::string_view instance) {
  for (const auto& p : price_catalog())
    if (p.instance == instance) return &p;
  return nullptr;
}

}  // namespace models::hw
