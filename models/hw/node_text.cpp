// A node in words (node_text.hpp).
#include "models/hw/node_text.hpp"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

namespace models::hw {

std::string nvlink_text(const NodeSpec& n) {
  if (n.nvlink_gen == 0) return "none (PCIe)";
  return fmt::format("NVLink{} x{}{}{}", n.nvlink_gen, n.nvlink_links, n.nvswitch ? ", NVSwitch" : "",
                     n.nvls ? ", NVLS" : "");
}

std::string nics_text(const NodeSpec& n) {
  if (n.nics == 0 || n.nic_kind == NicKind::None) return "none (Socket)";
  std::string kind = nic_kind_name(n.nic_kind);
  for (char& c : kind) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (n.nic_kind == NicKind::Efa) kind += " v" + std::to_string(n.efa_generation);
  if (!n.nic_tech.empty()) kind = n.nic_tech;
  return fmt::format("{} x {:g} Gb/s {}", n.nics, n.nic_bytes_per_s * 8 / 1e9, kind);
}

std::string gpu_text(const GpuSpec& g) {
  std::string out = fmt::format("{} {:g}GB bf16 {:g}", g.name, g.hbm_bytes / 1e9, g.bf16_flops / 1e15);
  if (g.fp8_flops > 0) out += fmt::format(" fp8 {:g}", g.fp8_flops / 1e15);
  if (g.fp4_flops > 0) out += fmt::format(" fp4 {:g}", g.fp4_flops / 1e15);
  return out + " PF";
}

std::string gpus_text(const NodeSpec& n) {
  if (n.hosts() <= 1) return std::to_string(n.gpus);
  return fmt::format("{} ({}x{})", n.gpus, n.hosts(), n.host_gpus);
}

std::vector<std::string> node_differences(const NodeSpec& a, const NodeSpec& b) {
  std::vector<std::string> out;
  const auto differ = [&](const std::string& what, const std::string& x, const std::string& y) {
    if (x != y) out.push_back(what + ": " + x + " -> " + y);
  };
  const auto gbps = [](double bytes_per_s) { return fmt::format("{:g} Gb/s", bytes_per_s * 8 / 1e9); };
  const auto on_off = [](bool on) { return std::string(on ? "on" : "off"); };
  differ("GPUs per node", gpus_text(a), gpus_text(b));
  differ("GPU", gpu_text(a.gpu), gpu_text(b.gpu));
  differ("NVLink", fmt::format("NVLink{} x{}", a.nvlink_gen, a.nvlink_links),
         fmt::format("NVLink{} x{}", b.nvlink_gen, b.nvlink_links));
  differ("NVSwitch", on_off(a.nvswitch), on_off(b.nvswitch));
  differ("NVLS (NVLink SHARP, NCCL's NVLS and NVLSTree)", on_off(a.nvls), on_off(b.nvls));
  differ("NICs", nics_text(a), nics_text(b));
  differ("network plugin's declared latency", fmt::format("{:g} us", a.net_plugin_latency_us),
         fmt::format("{:g} us", b.net_plugin_latency_us));
  // The plugin's variables one by one: only those whose value differs.
  const auto env_of = [](const NodeSpec& n, const std::string& key) {
    for (const auto& [k, v] : n.net_plugin_env)
      if (k == key) return v;
    return std::string("unset");
  };
  std::vector<std::string> keys;
  for (const NodeSpec* n : {&a, &b})
    for (const auto& kv : n->net_plugin_env)
      if (std::find(keys.begin(), keys.end(), kv.first) == keys.end()) keys.push_back(kv.first);
  for (const auto& k : keys) differ(k + " (set by the network plugin)", env_of(a, k), env_of(b, k));
  const auto params_text = [](const NodeSpec& n) {
    std::string t;
    for (const auto& [k, v] : n.link_params) t += fmt::format("{}{}={:g}", t.empty() ? "" : " ", k, v);
    return t.empty() ? std::string("the link classes' defaults") : t;
  };
  differ("link parameters of its own", params_text(a), params_text(b));
  differ("Socket interface", gbps(a.eth_bytes_per_s) + (a.eth_driver.empty() ? "" : " " + a.eth_driver),
         gbps(b.eth_bytes_per_s) + (b.eth_driver.empty() ? "" : " " + b.eth_driver));
  differ("PCIe", fmt::format("Gen{} x{}", a.pcie_gen, a.pcie_lanes),
         fmt::format("Gen{} x{}", b.pcie_gen, b.pcie_lanes));
  differ("host memory", fmt::format("{:g} GB/s", a.host_mem_bytes_per_s / 1e9),
         fmt::format("{:g} GB/s", b.host_mem_bytes_per_s / 1e9));
  return out;
}

}  // namespace models::hw
