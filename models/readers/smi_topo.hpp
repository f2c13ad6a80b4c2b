#pragma once
// Import of `nvidia-smi topo -m` output: the connection matrix (GPU and NIC rows), CPU and NUMA
// affinity and the NIC legend. Accepts the text as nvidia-smi writes it to a terminal (ANSI
// underline codes, tabs) or as pasted in notes (spaces), and surrounding text (the nvidia-smi
// table, the legend, a P2P status matrix after it). Garbage inside the matrix is a
// models::ParseError with FILE:LINE:COL.
#include <string>
#include <string_view>

#include "models/hw/node.hpp"

namespace models::readers {

hw::SmiMatrix parse_smi_topo(std::string_view text, const std::string& file_name);
hw::SmiMatrix read_smi_topo_file(const std::string& path);  // ParseError also when unreadable

// "NV18" -> NVL with links 18; "PIX", ..., "SYS" (and the old name "SOC"); false otherwise.
bool parse_smi_cell(std::string_view cell, PathType& type, int& nv_links);
// nvidia-smi's way to print a path: "NV18", "PIX", "NODE", " X " for self.
std::string smi_cell(PathType type, int nv_links);

}  // namespace models::readers
