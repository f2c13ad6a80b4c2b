// The price catalog (models/hw/prices.hpp): every rentable catalog instance has a price or a stated
// reason, every price a pricing model, region, source and date.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include "models/hw/instance.hpp"
#include "models/hw/node.hpp"
#include "models/hw/prices.hpp"

namespace {
bool valid_month(const std::string& d) {
  // YYYY-MM, a month from 2020 to 2026 (this table's figures; none is from the future).
  if (d.size() != 7 || d[4] != '-') return false;
  if (!std::all_of(d.begin(), d.begin() + 4, ::isdigit) || !std::all_of(d.begin() + 5, d.end(), ::isdigit)) return false;
  const int year = std::stoi(d.substr(0, 4)), month = std::stoi(d.substr(5));
  return year >= 2020 && year <= 2026 && month >= 1 && month <= 12;
}
}  // namespace

TEST_CASE("hw: every price names a catalog instance, a positive price, its model, region, source and date",
          "[models][hw]") {
  const auto names = models::hw::instance_names();
  REQUIRE(!models::hw::price_catalog().empty());
  for (const auto& p : models::hw::price_catalog()) {
    INFO(p.instance);
    CHECK(std::find(names.begin(), names.end(), p.instance) != names.end());
    CHECK(p.usd_per_hour > 0);
    CHECK(!p.region.empty());
    CHECK(p.source.size() > 20);
    CHECK(valid_month(p.date));
    CHECK(std::string(models::hw::pricing_model_name(p.model)).size() > 0);
  }
  // Each instance at most once.
  for (const auto& p : models::hw::price_catalog())
    CHECK(std::count_if(models::hw::price_catalog().begin(), models::hw::price_catalog().end(),
                        [&](const auto& q) { return q.instance == p.instance; }) == 1);
}

TEST_CASE("hw: every catalog instance has a price or says why it has none, never both", "[models][hw]") {
  const auto names = models::hw::instance_names();
  for (const auto& name : names) {
    INFO(name);
    const bool priced = models::hw::find_price(name) != nullptr;
    const auto* unpriced = models::hw::find_unpriced(name);
    CHECK(priced != (unpriced != nullptr));
    if (unpriced) CHECK(unpriced->why.size() > 20);
  }
  for (const auto& u : models::hw::unpriced_catalog()) {
    INFO(u.instance);
    CHECK(std::find(names.begin(), names.end(), u.instance) != names.end());
  }
  // Bought machines stay without an hourly price.
  for (const char* bought : {"dgx-h100", "dgx-b200", "gb200-nvl72", "h200x4"}) {
    INFO(bought);
    REQUIRE(models::hw::find_unpriced(bought) != nullptr);
    CHECK(models::hw::find_unpriced(bought)->why.find("bought, not rented") != std::string::npos);
  }
}

TEST_CASE("hw: the rentable H100/H200/B200 nodes of the three clouds are priced, each with how it is sold",
          "[models][hw]") {
  using models::hw::PricingModel;
  for (const char* name : {"p4d.24xlarge", "p5.48xlarge", "p5en.48xlarge", "p6-b200.48xlarge",
                           "p6-b300.48xlarge", "nd-h100-v5", "nd-h200-v5", "a3-highgpu-8g", "a3-ultragpu-8g"}) {
    INFO(name);
    REQUIRE(models::hw::find_price(name) != nullptr);
    CHECK(models::hw::find_price(name)->model == PricingModel::OnDemand);
  }
  // AWS sells p5e.48xlarge and the P6e-GB200 UltraServers on no on-demand price: a Capacity
  // Block's published rate, and the note says there is no on-demand row.
  REQUIRE(models::hw::find_price("p5e.48xlarge") != nullptr);
  CHECK(models::hw::find_price("p5e.48xlarge")->model == PricingModel::CapacityBlock);
  CHECK(models::hw::find_price("p5e.48xlarge")->note.find("no p5e.48xlarge row") != std::string::npos);
  REQUIRE(models::hw::find_price("u-p6e-gb200x72") != nullptr);
  CHECK(models::hw::find_price("u-p6e-gb200x72")->model == PricingModel::CapacityBlock);
  CHECK(std::string(models::hw::pricing_model_name(PricingModel::CapacityBlock)) == "capacity block");
  CHECK(std::string(models::hw::pricing_model_name(PricingModel::OnDemand)) == "on-demand");
  // The June 2025 cut: the P5 price is the one after it, the earlier one kept in the note.
  CHECK(models::hw::find_price("p5.48xlarge")->usd_per_hour == 55.04);
  CHECK(models::hw::find_price("p5.48xlarge")->note.find("$98.32 before the June 2025 cut") != std::string::npos);
  // A multi-host NVLink domain is priced whole: 18 Azure ND GB200 v6 VMs of 4 GPUs at $108.16.
  CHECK(models::hw::find_price("nd-gb200-v6-nvl72")->usd_per_hour == Approx(18 * 108.16));
}

TEST_CASE("hw: a node sold per VM says so with the VM's GPUs, one host of the node", "[models][hw]") {
  // A multi-host NVLink domain is one catalog node; where the provider bills it per VM, unit_gpus is
  // the VM's GPU count, which is the node's host size (a per-GPU or whole-rack figure there would bill
  // a run on part of the rack for the wrong number of units: models/run/cost.cpp).
  for (const auto& p : models::hw::price_catalog()) {
    if (p.unit_gpus == 0) continue;
    INFO(p.instance);
    const auto& node = models::hw::find_instance(p.instance);
    CHECK(node.host_gpus > 0);
    CHECK(p.unit_gpus == node.host_gpus);
    CHECK(node.gpus % p.unit_gpus == 0);
  }
  // A price on a multi-host node is per node (the whole domain), never per VM or per GPU: the
  // per-VM figure times the VMs, as Azure's 18 x $108.16.
  const auto* azure = models::hw::find_price("nd-gb200-v6-nvl72");
  REQUIRE(azure != nullptr);
  CHECK(azure->unit_gpus == 4);
  CHECK(azure->usd_per_hour / (72 / azure->unit_gpus) == Approx(108.16));
}
