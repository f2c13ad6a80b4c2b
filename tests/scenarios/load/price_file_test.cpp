// The user's price file (scenarios/load/price_file.hpp): a price above 0 and at most 1e6 $ per
// node-hour (models::kMaxUsdPerHour), refused at its value otherwise, as [cluster] price_per_hour.
#include <catch2/catch.hpp>

#include <string>

#include "scenarios/load/loader.hpp"
#include "scenarios/load/price_file.hpp"

TEST_CASE("prices: a node's price is above 0 and at most 1e6 $ per hour, at its value", "[scenarios]") {
  const auto ok = scenarios::read_price_text("[prices.\"p5.48xlarge\"]\nusd_per_hour = 1e6\n", "p.toml");
  CHECK(ok.at("p5.48xlarge").usd_per_hour == 1e6);
  for (const std::string v : {"1e308", "1000000.5"}) {
    INFO(v);
    try {
      scenarios::read_price_text("[prices]\n\"p5.48xlarge\" = " + v + "\n", "p.toml");
      FAIL("no error");
    } catch (const scenarios::UserError& e) {
      CHECK(std::string(e.what()) ==
            "p.toml:2:17: prices.p5.48xlarge: above 1e6 $ per hour (expected one node's "
            "price in $ per hour, e.g. 55.04)");
    }
  }
}
