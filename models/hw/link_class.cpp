// Printable names of the link classes: the prefixes of their [cluster.params] names.
#include "models/hw/link_class.hpp"

namespace models {

const char* link_class_name(LinkClass c) {
  switch (c) {
    case LinkClass::NVLink: return "nvlink";
    case LinkClass::PCIe: return "pcie";
    case LinkClass::SHM: return "shm";
    case LinkClass::EFA: return "efa";
    case LinkClass::IB: return "ib";
    case LinkClass::Socket: return "socket";
  }
  return "?";
}

}  // namespace models
