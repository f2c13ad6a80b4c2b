// On-demand prices, us-east-1 (N. Virginia), Linux, $ per instance-hour.
//
// AWS cut the on-demand prices of P4 and P5 instances by up to 45 % in June 2025 ("Announcing up
// to 45% price reduction for Amazon EC2 NVIDIA GPU-accelerated instances", AWS What's New,
// 2025-06); the P4/P5 figures below are the list prices published on the instance pages before that
// cut, so they overstate today's on-demand cost of those instances. Put current (or negotiated,
// Savings Plan, Capacity Block) rates in a --prices file or in [cluster] price_per_hour: both win
// over this table (models/run/cost.hpp).
// Instances with no entry are listed in unpriced_catalog() below, each with the reason.
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

const std::vector<UnpricedInstance>& unpriced_catalog() {
  // The reasons. AWS: no on-demand list price was found for p5e, p5en and the P6 family when this
  // table was written; AWS offered them through EC2 Capacity Blocks for ML (a reservation fee it
  // revises over time, aws.amazon.com/ec2/capacityblocks/pricing/) and Savings Plans. Azure
  // publishes pay-as-you-go rates per region and Google Cloud its A3/A4 rates as GPU + vCPU +
  // memory components; those pages were not checked for this table, so their instances have no
  // figure here (a user's --prices file or [cluster] price_per_hour gives one).
  static const std::string capacity_blocks =
      "no on-demand list price: AWS sells it through EC2 Capacity Blocks for ML and Savings Plans "
      "(aws.amazon.com/ec2/capacityblocks/pricing/)";
  static const std::string azure =
      "pay-as-you-go price published per region at azure.microsoft.com/en-us/pricing/details/virtual-machines/linux/, "
      "not checked for this table";
  static const std::string gcp =
      "on-demand price published as GPU, vCPU and memory components at cloud.google.com/compute/gpus-pricing, "
      "not checked for this table";
  static const std::string bought = "bought, not rented: no hourly price";
  static const std::vector<UnpricedInstance> list = {
      {"p5e.48xlarge", capacity_blocks},
      {"p5en.48xlarge", capacity_blocks},
      {"p6-b200.48xlarge", capacity_blocks},
      {"p6-b300.48xlarge", capacity_blocks},
      {"u-p6e-gb200x72", capacity_blocks},
      {"u-p6e-gb200x36", capacity_blocks},
      {"g6e.8xlarge", "on-demand price published on the AWS EC2 G6e instance page, not checked for this table"},
      {"g6e.12xlarge", "on-demand price published on the AWS EC2 G6e instance page, not checked for this table"},
      {"g6e.48xlarge", "on-demand price published on the AWS EC2 G6e instance page, not checked for this table"},
      {"nd-h100-v5", azure},
      {"nd-h200-v5", azure},
      {"nd-gb200-v6-nvl72", azure},
      {"a3-highgpu-8g", gcp},
      {"a3-megagpu-8g", gcp},
      {"a3-ultragpu-8g", gcp},
      {"a4-highgpu-8g", gcp},
      {"a4x-nvl72", gcp},
      {"dgx-a100", bought},
      {"dgx-a100-80gb", bought},
      {"dgx-h100", bought},
      {"dgx-h100-roce", bought},
      {"dgx-h200", bought},
      {"dgx-b200", bought},
      {"dgx-b300", bought},
      {"gb200-nvl72", bought},
      {"gb200-nvl36x2", bought},
      {"gb300-nvl72", bought},
      {"h200x4", "the calibration host (bought, not rented): no hourly price"},
  };
  return list;
}

const UnpricedInstance* find_unpriced(std::string_view instance) {
  for (const auto& u : unpriced_catalog())
    if (u.instance == instance) return &u;
  return nullptr;
}

const InstancePrice* find_price(std::string_view instance) {
  for (const auto& p : price_catalog())
    if (p.instance == instance) return &p;
  return nullptr;
}

}  // namespace models::hw
