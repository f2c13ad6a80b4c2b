// Printable names of the path types, exactly as NCCL and nvidia-smi print them.
#include "models/hw/path_type.hpp"

namespace models {

const char* path_type_name(PathType p) {
  switch (p) {
    case PathType::LOC: return "LOC";
    case PathType::NVL: return "NVL";
    case PathType::NVB: return "NVB";
    case PathType::C2C: return "C2C";
    case PathType::PIX: return "PIX";
    case PathType::PXB: return "PXB";
    case PathType::P2C: return "P2C";
    case PathType::PXN: return "PXN";
    case PathType::PHB: return "PHB";
    case PathType::NODE: return "NODE";
    case PathType::SYS: return "SYS";
    case PathType::NET: return "NET";
    case PathType::DIS: return "DIS";
  }
  return "?";
}

}  // namespace models
