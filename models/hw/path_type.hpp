#pragma once
// models::PathType: NCCL's path types between two devices of a host, near to far
// (src/graph/topo.h). Shared vocabulary of the hardware catalogs, the `nvidia-smi topo -m` reader,
// the node graph and NCCL's transport rules, so it sits in the lowest folder that needs it and
// keeps the namespace every user already names (models::PathType).
namespace models {

// Order matters: P2P is allowed when path <= NCCL_P2P_LEVEL. NODE is nvidia-smi's name for what
// NCCL calls PHB-across-bridges (we keep it separate for printing `topo -m`).
enum class PathType { LOC, NVL, NVB, C2C, PIX, PXB, P2C, PXN, PHB, NODE, SYS, NET, DIS };
const char* path_type_name(PathType p);  // "NVL", "PXB", ... exactly as NCCL and nvidia-smi print them

}  // namespace models
