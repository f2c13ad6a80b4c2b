#pragma once
// models::Transport: what NCCL decides for one ordered rank pair (P2P read/write, SHM, NET with
// which plugin, GDR or not) and how it logs it. Computed by models/nccl/transport.hpp, handed out
// by World::transport, read by the collectives, the results and the reports; a small header of
// its own so that none of them needs the transport rules (or Boost.Graph) to name it.
#include <optional>
#include <string>

#include "models/hw/link_class.hpp"
#include "models/hw/path_type.hpp"

namespace models {

enum class TransportKind { P2P, SHM, NET };

// NCCL's network plugin for NET (the name NCCL logs: "Using network Socket", "NET/IB/0"):
// its own sockets, IB verbs (InfiniBand, RoCE), or aws-ofi-nccl on EFA ("Libfabric").
enum class NetPlugin { Socket, IB, Libfabric };
constexpr const char* net_plugin_name(NetPlugin p) {
  switch (p) {
    case NetPlugin::Socket: return "Socket";
    case NetPlugin::IB: return "IB";
    case NetPlugin::Libfabric: return "Libfabric";
  }
  return "?";
}

struct Transport {
  TransportKind kind = TransportKind::NET;
  LinkClass link_class = LinkClass::Socket;
  std::string label;                    // as NCCL logs it: "P2P/CUMEM/read", "P2P/direct pointer",
                                        // "SHM/direct/direct", "NET/Libfabric/0/GDRDMA", "NET/Socket/0"
  bool p2p_read = false;                // P2P in read mode (receiver pulls)
  bool gdr = false;                     // NET with GPUDirect RDMA (else staged through host memory)
  std::optional<NetPlugin> net_plugin;  // NET only
  PathType path = PathType::NVL;        // GPU-to-GPU path type on the node (NET between nodes)

  // NET over PXN (PCI x NVLink): the sender's data crosses NVLink to this local GPU, whose PCIe
  // switch holds the NIC, and leaves by that NIC with GPUDirect RDMA ("NET/<plugin>/<dev>(<rank>)").
  std::optional<int> pxn_gpu;
};

}  // namespace models
