// Colour mapping (see palette.hpp).
#include "viz/palette.hpp"

#include <algorithm>
#include <cctype>
#include <string>

namespace viz {
namespace {
std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}
bool has(const std::string& s, std::string_view what) { return s.find(what) != std::string::npos; }
}  // namespace

TransportClass classify_link_kind(std::string_view kind) {
  const std::string k = lower(kind);
  if (has(k, "nvl") || has(k, "nvswitch")) return TransportClass::NVLink;
  if (has(k, "pcie") || has(k, "pci")) return TransportClass::PCIe;
  if (has(k, "shm") || has(k, "host_mem") || has(k, "mem")) return TransportClass::SHM;
  if (has(k, "efa") || has(k, "libfabric")) return TransportClass::EFA;
  if (has(k, "ib") || has(k, "roce")) return TransportClass::IB;
  if (has(k, "socket") || has(k, "eth") || has(k, "ena") || has(k, "tcp")) return TransportClass::Socket;
  return TransportClass::Unknown;
}

TransportClass classify_transport(std::string_view label, std::string_view link_class) {
  if (!link_class.empty()) {
    const TransportClass c = classify_link_kind(link_class);
    if (c != TransportClass::Unknown) return c;
  }
  const std::string l = lower(label);
  if (l.rfind("p2p", 0) == 0) return TransportClass::NVLink;  // the common case; PCIe needs link_class
  if (l.rfind("shm", 0) == 0) return TransportClass::SHM;
  if (l.rfind("net", 0) == 0) {
    if (has(l, "socket")) return TransportClass::Socket;
    if (has(l, "libfabric") || has(l, "efa") || has(l, "ofi")) return TransportClass::EFA;
    if (has(l, "ib")) return TransportClass::IB;
    return TransportClass::Socket;
  }
  return TransportClass::Unknown;
}

const char* transport_class_name(TransportClass c) {
  switch (c) {
    case TransportClass::NVLink: return "P2P NVLink";
    case TransportClass::PCIe: return "P2P PCIe";
    case TransportClass::SHM: return "SHM";
    case TransportClass::EFA: return "NET EFA";
    case TransportClass::IB: return "NET IB";
    case TransportClass::Socket: return "NET Socket";
    case TransportClass::Unknown: break;
  }
  return "other";
}

const char* link_class_label(TransportClass c) {
  switch (c) {
    case TransportClass::NVLink: return "NVLink";
    case TransportClass::PCIe: return "PCIe";
    case TransportClass::SHM: return "host memory";
    case TransportClass::EFA: return "EFA";
    case TransportClass::IB: return "InfiniBand";
    case TransportClass::Socket: return "Ethernet";
    case TransportClass::Unknown: break;
  }
  return "other";
}

const char* transport_color(TransportClass c) {
  switch (c) {
    case TransportClass::NVLink: return okabe_ito::kBlue;
    case TransportClass::PCIe: return okabe_ito::kSkyBlue;
    case TransportClass::SHM: return okabe_ito::kGreen;
    case TransportClass::EFA: return okabe_ito::kOrange;
    case TransportClass::IB: return okabe_ito::kPurple;
    case TransportClass::Socket: return okabe_ito::kVermillion;
    case TransportClass::Unknown: break;
  }
  return okabe_ito::kGrey;
}

bool transport_is_net(TransportClass c) {
  return c == TransportClass::EFA || c == TransportClass::IB || c == TransportClass::Socket;
}

const char* op_color(std::string_view op) {
  const std::string o = lower(op);
  if (o == "all_gather" || o == "allgather") return okabe_ito::kOrange;
  if (o == "reduce_scatter" || o == "reducescatter") return okabe_ito::kGreen;
  if (o == "all_reduce" || o == "allreduce") return okabe_ito::kBlue;
  if (o == "broadcast" || o == "reduce") return okabe_ito::kPurple;
  if (o == "alltoall" || o == "all_to_all") return okabe_ito::kBlack;
  if (o == "sendrecv" || o == "send_recv" || o == "send" || o == "recv") return okabe_ito::kVermillion;
  return okabe_ito::kGrey;
}

}  // namespace viz
