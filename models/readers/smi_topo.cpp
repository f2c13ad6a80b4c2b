// nvidia-smi topo -m parser.
#include "models/readers/smi_topo.hpp"

#include <cctype>
#include <fstream>
#include <sstream>
#include <vector>

#include "models/parse_error.hpp"

namespace models::readers {

namespace {
struct Cell {
  std::string text;
  int col = 1;  // 1-based, in the line as read (an escape code counts its bytes)
};

// Splits on tabs and runs of spaces, dropping ANSI escape sequences ("\x1b[4m", "\x1b[0m").
// Two or more spaces or a tab separate cells; one space joins words ("CPU Affinity").
std::vector<Cell> cells(const std::string& line) {
  std::vector<Cell> out;
  Cell cur;
  bool in = false;
  auto flush = [&] {
    while (!cur.text.empty() && cur.text.back() == ' ') cur.text.pop_back();
    if (!cur.text.empty()) out.push_back(cur);
    cur = Cell{};
    in = false;
  };
  for (std::size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (c == '\x1b') {  // CSI ... final byte
      std::size_t j = i + 1;
      if (j < line.size() && line[j] == '[') {
        ++j;
        while (j < line.size() && !std::isalpha(static_cast<unsigned char>(line[j]))) ++j;
      }
      i = j;
      continue;
    }
    bool sep =
        c == '\t' || c == '\r' || (c == ' ' && (i + 1 >= line.size() || line[i + 1] == ' ' || line[i + 1] == '\t'));
    if (sep || (c == ' ' && !in)) {
      if (in) flush();
      continue;
    }
    if (!in) {
      in = true;
      cur.col = static_cast<int>(i) + 1;
    }
    cur.text += c;
  }
  flush();
  return out;
}

bool device_name(const std::string& s, const char* prefix) {
  std::size_t n = std::char_traits<char>::length(prefix);
  if (s.size() <= n || s.compare(0, n, prefix) != 0) return false;
  for (std::size_t i = n; i < s.size(); ++i)
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
  return true;
}
}  // namespace

bool parse_smi_cell(std::string_view cell, PathType& type, int& nv_links) {
  nv_links = 0;
  if (cell == "X") {
    type = PathType::LOC;
    return true;
  }
  if (cell == "PIX") {
    type = PathType::PIX;
    return true;
  }
  if (cell == "PXB") {
    type = PathType::PXB;
    return true;
  }
  if (cell == "PHB") {
    type = PathType::PHB;
    return true;
  }
  if (cell == "NODE") {
    type = PathType::NODE;
    return true;
  }
  if (cell == "SYS" || cell == "SOC") {
    type = PathType::SYS;
    return true;
  }
  if (cell.size() > 2 && cell.substr(0, 2) == "NV") {
    int n = 0;
    for (char c : cell.substr(2)) {
      if (!std::isdigit(static_cast<unsigned char>(c))) return false;
      n = n * 10 + (c - '0');
      if (n > 1000) return false;
    }
    if (n == 0) return false;
    type = PathType::NVL;
    nv_links = n;
    return true;
  }
  return false;
}

std::string smi_cell(PathType type, int nv_links) {
  if (type == PathType::LOC) return " X ";
  if (type == PathType::NVL) return "NV" + std::to_string(nv_links);
  return path_type_name(type);
}

hw::SmiMatrix parse_smi_topo(std::string_view text, const std::string& file_name) {
  std::vector<std::string> lines;
  {
    std::string all(text);
    std::istringstream in(all);
    std::string l;
    while (std::getline(in, l)) lines.push_back(l);
  }
  // The header: the first line whose first cell is GPU0 and that names the affinity columns
  // (the P2P status matrices nvidia-smi may print after it have none).
  int header = -1;
  for (int i = 0; i < static_cast<int>(lines.size()) && header < 0; ++i) {
    auto c = cells(lines[i]);
    if (!c.empty() && c[0].text == "GPU0" && lines[i].find("Affinity") != std::string::npos) header = i;
  }
  for (int i = 0; i < static_cast<int>(lines.size()) && header < 0; ++i) {
    auto c = cells(lines[i]);
    if (!c.empty() && c[0].text == "GPU0") header = i;
  }
  if (header < 0)
    throw ParseError(file_name, 1, 1,
                     "no `nvidia-smi topo -m` matrix found (expected a header line starting with GPU0)");
  std::vector<std::string> devices;
  for (const auto& t : cells(lines[header])) {
    if (device_name(t.text, "GPU") || device_name(t.text, "NIC"))
      devices.push_back(t.text);
    else
      break;
  }
  hw::SmiMatrix m;
  for (const auto& d : devices) (d[0] == 'G' ? m.gpus : m.nics)++;
  for (int i = 0; i < static_cast<int>(devices.size()); ++i) {
    bool expect_gpu = i < m.gpus;
    if (devices[i] != (expect_gpu ? "GPU" + std::to_string(i) : "NIC" + std::to_string(i - m.gpus)))
      throw ParseError(file_name, header + 1, 1, "matrix header columns are not GPU0..GPUn then NIC0..NICm");
  }
  const int nd = static_cast<int>(devices.size());
  std::vector<std::vector<PathType>> rel(nd, std::vector<PathType>(nd, PathType::DIS));
  std::vector<std::vector<int>> links(nd, std::vector<int>(nd, 0));
  m.gpu_numa.assign(m.gpus, -1);
  m.cpu_affinity.assign(m.gpus, "");
  int row = 0, line = header + 1;
  for (; line < static_cast<int>(lines.size()) && row < nd; ++line) {
    auto c = cells(lines[line]);
    if (c.empty()) continue;
    if (c[0].text != devices[row]) {
      throw ParseError(file_name, line + 1, c[0].col,
                       "expected the row of " + devices[row] + ", found '" + c[0].text + "'");
    }
    if (static_cast<int>(c.size()) < nd + 1)
      throw ParseError(
          file_name, line + 1, static_cast<int>(lines[line].size()) + 1,
          "row " + devices[row] + " has " + std::to_string(c.size() - 1) + " cells, expected " + std::to_string(nd));
    for (int j = 0; j < nd; ++j) {
      PathType t;
      int n;
      if (!parse_smi_cell(c[j + 1].text, t, n))
        throw ParseError(file_name, line + 1, c[j + 1].col,
                         "unknown connection '" + c[j + 1].text + "' (expected X, NV#, PIX, PXB, PHB, NODE or SYS)");
      if ((t == PathType::LOC) != (j == row))
        throw ParseError(file_name, line + 1, c[j + 1].col,
                         j == row ? "the diagonal must be X" : "X (self) off the diagonal");
      rel[row][j] = t;
      links[row][j] = n;
    }
    if (row < m.gpus) {
      if (static_cast<int>(c.size()) > nd + 1) m.cpu_affinity[row] = c[nd + 1].text;
      if (static_cast<int>(c.size()) > nd + 2) {
        const std::string& numa = c[nd + 2].text;
        if (numa != "N/A") {
          try {
            std::size_t used = 0;
            m.gpu_numa[row] = std::stoi(numa, &used);
            if (used != numa.size() || m.gpu_numa[row] < 0) throw std::invalid_argument(numa);
          } catch (const std::exception&) {
            throw ParseError(file_name, line + 1, c[nd + 2].col, "NUMA affinity '" + numa + "' is not a number or N/A");
          }
        }
      }
    }
    ++row;
  }
  if (row < nd) throw ParseError(file_name, line + 1, 1, "the matrix ends before the row of " + devices[row]);
  for (int a = 0; a < nd; ++a)
    for (int b = 0; b < nd; ++b)
      if (rel[a][b] != rel[b][a] || links[a][b] != links[b][a])
        throw ParseError(file_name, header + 2 + a, 1,
                         "the matrix is not symmetric: " + devices[a] + "-" + devices[b] + " differs from " +
                             devices[b] + "-" + devices[a]);
  m.gpu_gpu.assign(m.gpus, std::vector<PathType>(m.gpus));
  m.nv_links.assign(m.gpus, std::vector<int>(m.gpus));
  m.gpu_nic.assign(m.gpus, std::vector<PathType>(m.nics));
  m.nic_nic.assign(m.nics, std::vector<PathType>(m.nics));
  for (int a = 0; a < nd; ++a)
    for (int b = 0; b < nd; ++b) {
      if (a < m.gpus && b < m.gpus) {
        m.gpu_gpu[a][b] = rel[a][b];
        m.nv_links[a][b] = links[a][b];
      } else if (a < m.gpus) {
        m.gpu_nic[a][b - m.gpus] = rel[a][b];
      } else if (b >= m.gpus) {
        m.nic_nic[a - m.gpus][b - m.gpus] = rel[a][b];
      }
    }
  // NIC legend: "  NIC0: mlx5_0"
  m.nic_names.assign(m.nics, "");
  for (; line < static_cast<int>(lines.size()); ++line) {
    auto c = cells(lines[line]);
    if (c.empty()) continue;
    std::string t = c[0].text;
    for (std::size_t k = 1; k < c.size(); ++k) t += " " + c[k].text;
    auto colon = t.find(':');
    if (colon == std::string::npos || !device_name(t.substr(0, colon), "NIC")) continue;
    if (colon - 3 > 6) continue;  // no such NIC index: it could only overflow std::stoi
    int i = std::stoi(t.substr(3, colon - 3));
    std::string value = t.substr(colon + 1);
    while (!value.empty() && value.front() == ' ') value.erase(value.begin());
    if (i < m.nics) m.nic_names[i] = value;
  }
  return m;
}

hw::SmiMatrix read_smi_topo_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw ParseError(path, 1, 1, "cannot read the nvidia-smi topo file");
  std::ostringstream ss;
  ss << in.rdbuf();
  return parse_smi_topo(ss.str(), path);
}

}  // namespace models::readers
