// The user's price file (scenarios/load/price_file.hpp): a price above 0 and at most 1e6 $ per
// node-hour (models::kMaxUsdPerHour), refused at its value otherwise, as [cluster] price_per_hour.
#include <catch2/catch.hpp>

#include <string>

#include "models/run/cost.hpp"
#include "scenarios/load/loader.hpp"
#include "scenarios/load/price_file.hpp"

namespace {
// The message a price file "p.toml" holding `text` is refused with; "no error" where it is read.
std::string error_of(const std::string& text) {
  try {
    scenarios::read_price_text(text, "p.toml");
  } catch (const scenarios::UserError& e) {
    return e.what();
  }
  return "no error";
}
}  // namespace

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

// A file's own price is its instance's: a --set naming another instance drops it (the catalog or
// the --prices file prices that one, as `plan` does), a price given by --set as well stays, and
// setting the file's own instance again keeps the file's price.
TEST_CASE("prices: the file's price follows its instance, not one a --set names", "[scenarios]") {
  const std::string text =
      "[cluster]\ninstance = \"p4d.24xlarge\"\nnodes = 1\nprice_per_hour = 10\n"
      "[cluster.params]\n\"price.gpu_hour\" = 2.5\n"
      "[collective]\nop = \"all_reduce\"\nbytes = \"1 MiB\"\n";
  const auto own = scenarios::load_scenario_text(text, "s.toml");
  REQUIRE(own.spec.cluster.price);
  CHECK(own.spec.cluster.price->usd_per_hour == 10);
  CHECK(own.spec.cluster.params.at("price.gpu_hour") == 2.5);

  const auto same = scenarios::load_scenario_text(text, "s.toml", {"cluster.instance=\"p4d.24xlarge\""});
  REQUIRE(same.spec.cluster.price);
  CHECK(same.spec.cluster.params.count("price.gpu_hour") == 1);

  const auto other = scenarios::load_scenario_text(text, "s.toml", {"cluster.instance=\"p5.48xlarge\""});
  CHECK_FALSE(other.spec.cluster.price);
  CHECK(other.spec.cluster.params.count("price.gpu_hour") == 0);
  CHECK(other.positions.count("cluster.price_per_hour") == 0);

  const auto priced = scenarios::load_scenario_text(
      text, "s.toml",
      {"cluster.instance=\"p5.48xlarge\"", "cluster.price_per_hour=55", "cluster.params.\"price.gpu_hour\"=7"});
  REQUIRE(priced.spec.cluster.price);
  CHECK(priced.spec.cluster.price->usd_per_hour == 55);
  CHECK(priced.spec.cluster.params.at("price.gpu_hour") == 7);
}

// A price file says how its figure is sold (a Capacity Block is paid by whole windows, as the
// catalog's) and may give it per GPU-hour, as GPU clouds quote it; anything else is refused at
// its place.
TEST_CASE("prices: pricing and usd_per_gpu_hour, each checked at its place", "[scenarios]") {
  const auto p = scenarios::read_price_text(
      "[prices.\"p5.48xlarge\"]\nusd_per_hour = 39.33\npricing = \"capacity-block\"\n"
      "[prices.\"p4d.24xlarge\"]\nusd_per_gpu_hour = 1.5\npricing = \"on-demand\"\n",
      "p.toml");
  CHECK(p.at("p5.48xlarge").pricing == "capacity block");
  CHECK(p.at("p4d.24xlarge").pricing == "on-demand");
  CHECK(p.at("p4d.24xlarge").usd_per_hour == Approx(12));  // 8 GPUs x $1.50
  CHECK(p.at("p4d.24xlarge").source == "p.toml:4:1 (1.5 per GPU-hour x 8 GPUs)");
  CHECK(error_of("[prices.\"p5.48xlarge\"]\nusd_per_hour = 39.33\npricing = \"reserved\"\n") ==
        "p.toml:3:11: prices.p5.48xlarge.pricing: 'reserved' is not a pricing (expected \"on-demand\", billed by the "
        "second, or \"capacity-block\", paid by whole days)");
  CHECK(
      error_of("[prices.\"p5.48xlarge\"]\nusd_per_hour = 39.33\nusd_per_gpu_hour = 5\n") ==
      "p.toml:3:20: prices.p5.48xlarge.usd_per_gpu_hour: the entry also gives usd_per_hour (expected one of the two)");
  // Billed as the catalog bills a block: a 1-hour run pays a day.
  models::ScenarioSpec s;
  s.cluster.instance = "p5.48xlarge";
  s.cluster.prices = p;
  models::RunResult r;
  r.step_time_s = 1;
  r.run_time_s = 3600;
  CHECK(models::make_cost(s, r).usd_per_run == Approx(39.33 * 24));
}

// A mistyped key is refused where the key was written (not its value), the one written first when
// there are several, with the nearest known key; a key near none of them lists what is known.
TEST_CASE("prices: an unknown key is refused at its place with the nearest known key", "[scenarios]") {
  CHECK(error_of("[prices.\"p5.48xlarge\"]\nusd_per_hour = 39.33\n  usd_per_gpu_hr = 4\n") ==
        "p.toml:3:3: prices.p5.48xlarge.usd_per_gpu_hr: unknown key (did you mean 'usd_per_gpu_hour'?)");
  CHECK(error_of("[prices.\"p5.48xlarge\"]\nusd_per_hour = 39.33\nprice = \"capacity-block\"\n") ==
        "p.toml:3:1: prices.p5.48xlarge.price: unknown key (did you mean 'pricing'?)");
  // Two unknown keys: the first written ("zzz" sorts after "dte" but is written before it).
  CHECK(error_of("[prices.\"p5.48xlarge\"]\nzzz = 1\nusd_per_hour = 39.33\ndte = \"2026-01\"\n") ==
        "p.toml:2:1: prices.p5.48xlarge.zzz: unknown key (expected usd_per_hour or usd_per_gpu_hour, pricing, "
        "source, date)");
  CHECK(error_of("[prices.\"p5.48xlarge\"]\nusd_per_hour = 39.33\ndte = \"2026-01\"\n") ==
        "p.toml:3:1: prices.p5.48xlarge.dte: unknown key (did you mean 'date'?)");
  // At the top level only [prices] is known.
  CHECK(error_of("[price.\"p5.48xlarge\"]\nusd_per_hour = 39.33\n") ==
        "p.toml:1:2: price: unknown table (did you mean 'prices'?)");
  CHECK(error_of("[cluster]\nnodes = 2\n") == "p.toml:1:2: cluster: unknown table (expected [prices])");
  // A mistyped instance, at its name in the shorthand form.
  CHECK(error_of("[prices]\n\"p5.48xlarg\" = 55\n") ==
        "p.toml:2:1: prices.p5.48xlarg: unknown instance (did you mean 'p5.48xlarge'?)");
  // An instance name with a dot, unquoted: TOML reads table p5 holding table 48xlarge.
  const std::string unquoted = error_of("[prices.p5.48xlarge]\nusd_per_hour = 55\n");
  CHECK(unquoted.find("p.toml:1:") == 0);
  CHECK(unquoted.find("prices.p5: unknown instance (TOML splits an unquoted name at its dots: did you mean "
                      "[prices.\"p5.48xlarge\"]?)") != std::string::npos);
}
