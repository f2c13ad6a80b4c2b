// commsim instances [--json]: the machine catalog cluster.instance can name (models/hw), each
// with its GPUs, NVLink, NICs and the source of its numbers; then how to describe another
// machine with [cluster.node] (commsim help node).
#include <array>
#include <cstdio>
#include <string>

#include <fmt/format.h>

#include "models/hw/instance.hpp"
#include "models/hw/node_text.hpp"
#include "models/hw/prices.hpp"
#include "models/run/cost.hpp"
#include "scenarios/cli/cli_support.hpp"
#include "scenarios/cli/command.hpp"
#include "scenarios/cli/output/result_schema.hpp"

namespace scenarios {
namespace {

using models::hw::gpu_text;
using models::hw::gpus_text;
using models::hw::nics_text;
using models::hw::nvlink_text;

}  // namespace

int cmd_instances(int argc, char** argv) {
  CLI::App app{"List the machines cluster.instance can name: GPUs, NVLink, NICs, source.", "commsim instances"};
  bool json = false;
  std::string prices;
  add_prices_option(app, prices);
  app.add_flag("--json", json, "print one JSON object (docs/result.schema.json) instead of the table");
  if (const int rc = parse_cli(app, argc, argv); rc >= 0) return rc;
  return guarded([&] {
    const auto& catalog = models::hw::instance_catalog();
    models::ScenarioSpec priced;  // the price of each instance as a scenario would see it (models/run/cost.hpp)
    priced.cluster.prices = read_prices_option(prices);
    auto price_of = [&](const std::string& name) { return models::node_price(priced, name); };
    // The catalog entry behind a price (nullptr for the user's own figure or none).
    auto catalog_entry = [&](const std::string& name) -> const models::hw::InstancePrice* {
      const auto p = price_of(name);
      return p && p->pricing != "given" ? models::hw::find_price(name) : nullptr;
    };
    auto entry_text = [&](const std::string& name, std::string models::hw::InstancePrice::*field) -> Json {
      const auto* e = catalog_entry(name);
      return e && !(e->*field).empty() ? Json(e->*field) : Json(nullptr);
    };
    auto no_price_reason = [&](const std::string& name) -> Json {
      const auto* u = models::hw::find_unpriced(name);
      return !price_of(name) && u ? Json(u->why) : Json(nullptr);
    };
    if (json) {
      Json j = json_header("instances", {});
      Json list = Json::array();
      for (const auto& n : catalog)
        list.push_back({{"name", n.name},
                        {"gpus", n.gpus},
                        {"gpu", n.gpu.name},
                        {"nvlink_generation", n.nvlink_gen},
                        {"nvlink_links_per_gpu", n.nvlink_links},
                        {"nvswitch", n.nvswitch},
                        {"nvls", n.nvls},
                        {"pcie_generation", n.pcie_gen},
                        {"numa_nodes", n.numa_nodes},
                        {"nics", n.nics},
                        {"nic_kind", models::hw::nic_kind_name(n.nic_kind)},
                        {"nic_bytes_per_s", integer_json(n.nic_bytes_per_s)},
                        {"eth_bytes_per_s", integer_json(n.eth_bytes_per_s)},
                        {"host_mem_bytes_per_s", integer_json(n.host_mem_bytes_per_s)},
                        {"hosts", n.hosts()},
                        {"host_gpus", n.host_gpus > 0 ? n.host_gpus : n.gpus},
                        {"nic_technology", n.nic_tech.empty() ? models::hw::nic_kind_name(n.nic_kind) : n.nic_tech},
                        {"gpu_hbm_bytes", integer_json(n.gpu.hbm_bytes)},
                        {"gpu_hbm_bytes_per_s", integer_json(n.gpu.hbm_bytes_per_s)},
                        {"gpu_bf16_flops", integer_json(n.gpu.bf16_flops)},
                        {"gpu_fp8_flops", integer_json(n.gpu.fp8_flops)},
                        {"gpu_fp4_flops", integer_json(n.gpu.fp4_flops)},
                        {"citation", n.citation},

                        {"usd_per_hour", price_of(n.name) ? Json(price_of(n.name)->usd_per_hour) : Json(nullptr)},
                        {"pricing", price_of(n.name) ? Json(price_of(n.name)->pricing) : Json(nullptr)},
                        {"price_region", entry_text(n.name, &models::hw::InstancePrice::region)},
                        {"price_date", entry_text(n.name, &models::hw::InstancePrice::date)},
                        {"price_source", price_of(n.name) ? Json(price_of(n.name)->source) : Json(nullptr)},
                        {"price_note", entry_text(n.name, &models::hw::InstancePrice::note)},
                        {"no_price_reason", no_price_reason(n.name)}});
      j["instances"] = std::move(list);
      std::fputs(dump_json(std::move(j)).c_str(), stdout);
      return 0;
    }
    // Each column as wide as its longest cell, so that no row shifts the ones after it.
    std::vector<std::array<std::string, 7>> rows = {
        {"instance", "GPUs", "GPU (dense peaks)", "NVLink", "NICs", "$/node-h", "source"}};
    for (const auto& n : catalog) {
      const auto p = price_of(n.name);
      rows.push_back({n.name, gpus_text(n), gpu_text(n.gpu), nvlink_text(n), nics_text(n),
                      p ? fmt::format("{:.2f}", p->usd_per_hour) : std::string("-"), n.citation});
    }
    std::array<size_t, 7> width{};
    for (const auto& r : rows)
      for (size_t c = 0; c < r.size(); ++c) width[c] = std::max(width[c], r[c].size());
    std::string out;
    for (const auto& r : rows)
      out += fmt::format("{:<{}} {:>{}}  {:<{}} {:<{}} {:<{}} {:>{}}  {}\n", r[0], width[0], r[1], width[1], r[2],
                         width[2], r[3], width[3], r[4], width[4], r[5], width[5], r[6]);
    out +=
        "\nGPUs \"72 (18x4)\": one node is a multi-node NVLink domain of 18 hosts of 4 GPUs (NCCL's MNNVL); "
        "cluster.nodes counts domains.\n"
        "NVLS: the NVSwitch's multicast (NVLink SHARP), which NCCL's NVLS and NVLSTree algorithms use; without it "
        "NCCL runs Ring and Tree.\n";
    out +=
        "\nPrices ($ per node-hour; on-demand: the list price, no commitment; capacity block: AWS EC2 Capacity "
        "Blocks' published hourly rate, a reservation paid up front, where AWS sells no on-demand):\n";
    for (const auto& n : catalog)
      if (const auto p = price_of(n.name))
        out += fmt::format("  {:<18} {:>9.4f}  {:<14} {}\n", n.name, p->usd_per_hour, p->pricing, p->source);
    out += "No price (the plan and the cost columns say \"no price\" for these):\n";
    for (const auto& n : catalog)
      if (const auto r = no_price_reason(n.name); !r.is_null()) out += fmt::format("  {:<18} {}\n", n.name, r.get<std::string>());
    out +=
        "Set your own with [cluster] price_per_hour in a scenario or --prices FILE ([prices.\"NAME\"] usd_per_hour, "
        "source, date).";
    out +=
        "\nUse one with cluster.instance = \"NAME\"; describe another machine with [cluster.node] "
        "(commsim help node).\n";
    std::fputs(out.c_str(), stdout);
    return 0;
  });
}

}  // namespace scenarios
