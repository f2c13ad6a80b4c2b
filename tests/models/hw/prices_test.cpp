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
