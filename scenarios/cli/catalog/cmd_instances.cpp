// commsim instances [--json]: the machine catalog cluster.instance can name (models/hw), each
// with its GPUs, NVLink, NICs and the source of its numbers; then how to describe another
// machine with [cluster.node] (commsim help node).
#include <array>
#include <cstdio>
#include <string>

#include <fmt/format.h>

#include "models/hw/instance.hpp"
#include "models/hw/prices.hpp"
#include "models/run/cost.hpp"
#include "scenarios/cli/cli_support.hpp"
#include "scenarios/cli/command.hpp"
#include "scenarios/cli/output/result_schema.hpp"

namespace scenarios {
namespace {

std::string nvlink_text(const models::hw::NodeSpec& n) {
  if (n.nvlink_gen == 0) return "none (PCIe)";
  return fmt::format("NVLink{} x{}{}", n.nvlink_gen, n.nvlink_links, n.nvswitch ? ", NVSwitch" : "");
}

std::string nics_text(const models::hw::NodeSpec& n) {
  if (n.nics == 0 || n.nic_kind == models::hw::NicKind::None) return "none (Socket)";
  std::string kind = models::hw::nic_kind_name(n.nic_kind);
  for (char& c : kind) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (n.nic_kind == models::hw::NicKind::Efa) kind += " v" + std::to_string(n.efa_generation);
  if (!n.nic_tech.empty()) kind = n.nic_tech;
  return fmt::format("{} x {:g} Gb/s {}", n.nics, n.nic_bytes_per_s * 8 / 1e9, kind);
}

// "72 (18 hosts x 4)" for a multi-host NVLink domain, else the GPU count.
std::string gpus_text(const models::hw::NodeSpec& n) {
  if (n.hosts() <= 1) return std::to_string(n.gpus);
  return fmt::format("{} ({}x{})", n.gpus, n.hosts(), n.host_gpus);
}

// "B200 180GB bf16 2.25 fp8 4.5 fp4 9 PF": the GPU's HBM and dense peaks.
std::string gpu_text(const models::hw::GpuSpec& g) {
  std::string out = fmt::format("{} {:g}GB bf16 {:g}", g.name, g.hbm_bytes / 1e9, g.bf16_flops / 1e15);
  if (g.fp8_flops > 0) out += fmt::format(" fp8 {:g}", g.fp8_flops / 1e15);
  if (g.fp4_flops > 0) out += fmt::format(" fp4 {:g}", g.fp4_flops / 1e15);
  return out + " PF";
}

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
        "cluster.nodes counts domains.\n";
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
