// The price catalog (models/hw/prices.hpp): every entry names a catalog instance, a source and a date.
#include <catch2/catch.hpp>

#include "models/hw/instance.hpp"
#include "models/hw/prices.hpp"

TEST_CASE("hw: every price names a catalog instance, a positive price, a source and a date", "[models][hw]") {
  const auto names = models::hw::instance_names();
  REQUIRE(!models::hw::price_catalog().empty());
  for (const auto& p : models::hw::price_catalog()) {
    INFO(p.instance);
    CHECK(std::find(names.begin(), names.end(), p.instance) != names.end());
    CHECK(p.usd_per_hour > 0);
    CHECK(!p.source.empty());
    CHECK(p.date.size() == 7);  // YYYY-MM
  }
  CHECK(models::hw::find_price("dgx-h100") == nullptr);  // bought, not rented: no entry
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
  REQUIRE(models::hw::find_unpriced("p5en.48xlarge") != nullptr);
  CHECK(models::hw::find_unpriced("p5en.48xlarge")->why.find("Capacity Blocks") != std::string::npos);
}
