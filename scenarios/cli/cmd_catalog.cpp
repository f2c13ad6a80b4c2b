// commsim presets / commsim instances: what `model.preset` and `cluster.instance` accept, from the
// catalogs themselves (models/workload/model_shape.cpp's presets, models/hw/instance.cpp's nodes),
// with the shapes and hardware a scenario gets from each name.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "models/hw/instance.hpp"
#include "models/workload/model_shape.hpp"
#include "scenarios/cli/cli_support.hpp"
#include "scenarios/cli/command.hpp"

namespace scenarios {

namespace {

using Table = std::vector<std::vector<std::string>>;

void print_table(const Table& rows) {
  std::vector<std::size_t> width(rows.front().size(), 0);
  for (const auto& r : rows)
    for (std::size_t c = 0; c < r.size(); ++c) width[c] = std::max(width[c], r[c].size());
  for (const auto& r : rows) {
    std::string line;
    for (std::size_t c = 0; c < r.size(); ++c) {
      line += r[c];
      if (c + 1 < r.size()) line += std::string(width[c] - r[c].size() + 2, ' ');
    }
    std::printf("%s\n", line.c_str());
  }
}

std::string fmt(const char* f, double v) {
  char buf[48];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

}  // namespace

int cmd_presets(int argc, char** argv) {
  CLI::App app{"List the model presets model.preset accepts, with their shapes and parameter counts.",
               "commsim presets"};
  if (const int rc = parse_cli(app, argc, argv); rc >= 0) return rc;
  return guarded([&] {
    Table rows = {{"preset", "layers", "hidden", "heads", "kv_heads", "ffn", "vocab", "mlp", "embeddings", "params"}};
    for (const std::string& name : models::workload::preset_names()) {
      models::ModelSpec spec;
      spec.preset = name;
      const models::workload::ModelShape m = models::workload::resolve_model(spec);
      rows.push_back({name, std::to_string(m.layers), std::to_string(m.hidden), std::to_string(m.heads),
                      std::to_string(m.kv_heads), std::to_string(m.ffn), std::to_string(m.vocab),
                      m.gated_mlp ? "swiglu" : "gelu", m.tied_embeddings ? "tied" : "untied",
                      fmt("%.2fB", double(m.total_params()) / 1e9)});
    }
    std::printf(
        "Model presets (model.preset); any of layers, hidden, heads, kv_heads, ffn, vocab, mlp, tied_embeddings\n"
        "given beside a preset overrides it. Sources: models/workload/model_shape.cpp.\n\n");
    print_table(rows);
    return 0;
  });
}

int cmd_instances(int argc, char** argv) {
  CLI::App app{"List the nodes cluster.instance accepts: GPUs, NVLink, NICs and the source of each entry.",
               "commsim instances"};
  if (const int rc = parse_cli(app, argc, argv); rc >= 0) return rc;
  return guarded([&] {
    Table rows = {{"instance", "GPUs", "GPU", "bf16 TFLOP/s", "HBM", "NVLink", "NICs", "source"}};
    for (const models::hw::NodeSpec& n : models::hw::instance_catalog()) {
      std::string nvlink = "none";
      if (n.nvlink_gen > 0)
        nvlink = "gen " + std::to_string(n.nvlink_gen) + " x " + std::to_string(n.nvlink_links) +
                 (n.nvswitch ? ", NVSwitch" : "");
      std::string nics = "none";
      if (n.nics > 0)
        nics = std::to_string(n.nics) + " x " + fmt("%g", n.nic_bytes_per_s * 8 / 1e9) + " Gb/s " +
               models::hw::nic_kind_name(n.nic_kind);
      rows.push_back({n.name, std::to_string(n.gpus), n.gpu.name, fmt("%.0f", n.gpu.bf16_flops / 1e12),
                      fmt("%.0f GB", n.gpu.hbm_bytes / 1e9), nvlink, nics, n.citation});
    }
    std::printf(
        "Catalog nodes (cluster.instance); [cluster.node] describes any other. Sources: models/hw/README.md.\n\n");
    print_table(rows);
    return 0;
  });
}

}  // namespace scenarios
