// Prices per node-hour, Linux, each entry with its pricing model, region, source and month.
//
// Rules of the table (tested in tests/models/hw/prices_test.cpp):
// - On demand wherever the provider sells the instance on demand (the list price, no commitment).
//   Where AWS sells an instance through EC2 Capacity Blocks for ML only, the published effective
//   hourly rate of a Capacity Block (aws.amazon.com/ec2/capacityblocks/pricing/), marked as such:
//   a reservation paid up front for its whole window, revised by AWS every few months.
// - The region is a US region that lists the instance (us-east-1 where it does); other regions
//   often cost more (p5.48xlarge: 1.2-1.3x in Europe and Asia).
// - Sources: the providers' price lists (the AWS Price List API, the Azure Retail Prices API,
//   Google Cloud's GPU pricing page) as read by public catalogs and tables, each named; where
//   sources disagree, `note` says so and which figure was kept. docs/plan.md lists the table.
// - AWS cut the on-demand prices of P4 and P5 by up to 45 % in June 2025 ("Announcing up to 45%
//   price reduction for Amazon EC2 NVIDIA GPU-accelerated instances", AWS What's New, 2025-06): the
//   P5 figures are the prices after the cut, `note` keeps the earlier ones; P4 see below.
// A user's own rates (negotiated, Savings Plans, Spot, other regions) go in a --prices file or in
// [cluster] price_per_hour: both win over this table (models/run/cost.hpp).
#include "models/hw/prices.hpp"

namespace models::hw {

const char* pricing_model_name(PricingModel m) {
  return m == PricingModel::CapacityBlock ? "capacity block" : "on-demand";
}

namespace {

constexpr PricingModel kOnDemand = PricingModel::OnDemand;
constexpr PricingModel kCapacityBlock = PricingModel::CapacityBlock;

}  // namespace

const std::vector<InstancePrice>& price_catalog() {
  static const std::vector<InstancePrice> catalog = {
      // ---- AWS EC2 -------------------------------------------------------------------------
      // P4: the list prices since AWS's June 2025 cut, as every other AWS entry here.
      {"p4d.24xlarge", 21.957642, kOnDemand, "us-east-1",
       "AWS EC2 on-demand price list (instances.vantage.sh/aws/ec2/p4d.24xlarge)", "2026-08",
       "$32.7726 before the June 2025 cut (-33 %, the same as p4de's); pages written before the cut still "
       "quote $32.77"},
      {"p4de.24xlarge", 27.44705, kOnDemand, "us-east-1", "AWS EC2 on-demand price list, us-east-1", "2026-09",
       "$40.96575 before the June 2025 cut (-33 %)"},
      {"p5.48xlarge", 55.04, kOnDemand, "us-east-1",
       "AWS EC2 on-demand price list (instances.vantage.sh/aws/ec2/p5.48xlarge)", "2026-08",
       "$98.32 before the June 2025 cut (-44 %); pages written before the cut, and a few since, still quote "
       "$98.32. Capacity Blocks: $39.33 (us-east-1, us-east-2; the 2024 rate table)"},
      {"p5e.48xlarge", 39.80, kCapacityBlock, "us-east-2",
       "AWS EC2 Capacity Blocks for ML pricing page, the January 2026 revision (sjramblings.io and "
       "administraciondesistemas.com both report $39.80; Data Center Dynamics reported the 15 % rise)",
       "2026-01",
       "AWS's on-demand price list has no p5e.48xlarge row in the US (the SkyPilot catalog, read from the AWS "
       "Price List API, lists it without an on-demand price); the $87-107/h figures of some pages are estimates "
       "or other regions. Capacity Block rate $34.61 before January 2026, $43.26 in the 2024 table"},
      {"p5en.48xlarge", 63.296, kOnDemand, "us-east-1",
       "AWS EC2 on-demand price list (cloudprice.net/aws/ec2/instances/p5en.48xlarge)", "2026-08",
       "$84.80 before the June 2025 cut (AWS Price List API, as read by the SkyPilot catalog). Capacity Blocks: "
       "$41.61 from January 2026 ($36.18 before)"},
      {"p6-b200.48xlarge", 113.9328, kOnDemand, "us-east-1",
       "AWS EC2 on-demand price list (doit.com/compute/spot/us-east-1/p6-b200.48xlarge; a 2026-09 TCO table "
       "gives the same figure)",
       "2026-08",
       "At general availability (2025-05) AWS sold P6-B200 through Capacity Blocks only; on demand came later"},
      {"p6-b300.48xlarge", 142.416, kOnDemand, "us-east-1",
       "AWS EC2 on-demand price list, as quoted with the AWS EC2 P6 instance page (two public tables agree)", "2026-09",
       ""},
      {"u-p6e-gb200x72", 761.904, kCapacityBlock, "Dallas Local Zone",
       "AWS EC2 Capacity Blocks for ML pricing page, UltraServer rate published 2026-04 (as given by a public "
       "cloud price comparison, 2026-04-20)",
       "2026-04",
       "$10.582 per GPU-hour for the 72-GPU UltraServer; AWS sells P6e-GB200 UltraServers through Capacity "
       "Blocks only. One source"},
      {"g5.48xlarge", 16.288, kOnDemand, "us-east-1", "AWS EC2 G5 instance page", "2025-05", ""},
      {"g6e.8xlarge", 4.52856, kOnDemand, "us-east-1",
       "AWS Price List API, as read by the SkyPilot catalog (skypilot-org/skypilot-catalog, catalogs/v7/aws/vms.csv)",
       "2025-05", "G6e was not part of the June 2025 cut"},
      {"g6e.12xlarge", 10.49264, kOnDemand, "us-east-1",
       "AWS Price List API, as read by the SkyPilot catalog (skypilot-org/skypilot-catalog, catalogs/v7/aws/vms.csv)",
       "2025-05", "G6e was not part of the June 2025 cut"},
      {"g6e.48xlarge", 30.13118, kOnDemand, "us-east-1",
       "AWS Price List API, as read by the SkyPilot catalog (skypilot-org/skypilot-catalog, catalogs/v7/aws/vms.csv)",
       "2025-05", "Public pages quote $21.12 (no region) and ~$29-32; the price list's figure is kept"},
      // ---- Azure (pay-as-you-go = on demand) --------------------------------------------------
      {"nd-h100-v5", 98.32, kOnDemand, "East US",
       "Azure Retail Prices API (prices.azure.com), Standard_ND96isr_H100_v5, Linux pay-as-you-go", "2026-09",
       "Azure's $6.98/GPU-hour quoted by some pages is the NC H100 v5 (PCIe) series, not this VM"},
      {"nd-h200-v5", 84.80, kOnDemand, "West US 3",
       "Azure Retail Prices API (prices.azure.com), Standard_ND96isr_H200_v5, Linux pay-as-you-go", "2026-09",
       "A 2026-04 comparison table gives the same figure"},
      {"nd-gb200-v6-nvl72", 18 * 108.16, kOnDemand, "East US",
       "Azure Retail Prices API (prices.azure.com), Standard_ND128isr_NDR_GB200_v6 (4 GPUs) at $108.16 per "
       "VM-hour, x 18 VMs of one NVL72 domain",
       "2026-09", "One source", 4},
      // ---- Google Cloud (on demand: GPUs + vCPUs + memory of the machine type) ---------------
      {"a3-highgpu-8g", 88.49, kOnDemand, "us-central1",
       "Google Cloud GPU pricing (cloud.google.com/compute/gpus-pricing), A3 High", "2026-04",
       "Two public tables agree ($88.490000119)"},
      {"a3-megagpu-8g", 93.40, kOnDemand, "us-central1",
       "Google Cloud GPU pricing (cloud.google.com/compute/gpus-pricing), A3 Mega, as given by a "
       "public cloud price comparison (2026-04-20)",
       "2026-04", "One source, given there as approximate"},
      {"a3-ultragpu-8g", 84.806908, kOnDemand, "us-central1",
       "Google Cloud GPU pricing (cloud.google.com/compute/gpus-pricing), A3 Ultra", "2026-04",
       "Two public tables agree ($84.806908493); Google raised A3 Ultra in Europe and Asia from 2026-05, US "
       "unchanged"},
  };
  return catalog;
}

const std::vector<UnpricedInstance>& unpriced_catalog() {
  static const std::string bought = "bought, not rented: no hourly price";
  static const std::vector<UnpricedInstance> list = {
      {"u-p6e-gb200x36",
       "sold through EC2 Capacity Blocks only, and the one UltraServer rate found is the 72-GPU "
       "u-p6e-gb200x72's (aws.amazon.com/ec2/capacityblocks/pricing/ lists the current rates)"},
      {"a4-highgpu-8g",
       "no on-demand price found: Google sells A4 through reservations and Dynamic Workload Scheduler (calendar "
       "mode, flex-start); one public table gives $90.22/h in calendar mode (us-central1), not confirmed by a "
       "second source"},
      {"a4x-nvl72", "no public hourly price found: Google sells A4X through reservations"},
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
