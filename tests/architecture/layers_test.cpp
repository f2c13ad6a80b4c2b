// Layering, checked on the sources: static libraries do not catch an #include that points up a
// layer (it compiles, and any program linking everything resolves the symbols), so this test reads
// every .hpp/.cpp under sim/, models/, viz/ and scenarios/ and checks each `#include "..."`
// against the layer table in ARCHITECTURE.md (the ```layers block, the one statement of the
// order). Rule: a file may include its own folder and folders of a strictly lower layer.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

const fs::path kRoot = COMMSIM_SOURCE_DIR;

// folder (relative to the repository root, "/"-separated) -> layer
using LayerTable = std::map<std::string, int>;

LayerTable read_layer_table(const fs::path& architecture_md) {
  std::ifstream in(architecture_md);
  LayerTable table;
  std::string line;
  bool inside = false;
  while (std::getline(in, line)) {
    if (!inside) {
      inside = line == "```layers";
      continue;
    }
    if (line.rfind("```", 0) == 0) break;
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    int layer = -1;
    std::string folder;
    if (fields >> layer >> folder) table[folder] = layer;
  }
  return table;
}

// The folder of a repository path ("models/hw/node.hpp" -> "models/hw").
std::string folder_of(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash);
}

// Empty when `file` (repository path) may include `header`; else why not.
std::optional<std::string> violation(const LayerTable& table, const std::string& file, const std::string& header) {
  const std::string from = folder_of(file), to = folder_of(header);
  if (from == to) return std::nullopt;
  const auto a = table.find(from), b = table.find(to);
  if (a == table.end()) return "folder " + from + " is not in the layer table";
  if (b == table.end()) return std::nullopt;  // not one of our folders (a system or library header)
  if (b->second < a->second) return std::nullopt;
  return from + " (layer " + std::to_string(a->second) + ") includes " + header + " (" + to + ", layer " +
         std::to_string(b->second) + ")";
}

struct Include {
  std::string file;  // repository path of the including file
  int line = 0;
  std::string header;  // as written between the quotes or brackets
  bool quoted = true;
};

std::vector<Include> scan_includes() {
  std::vector<Include> out;
  for (const char* top : {"sim", "models", "viz", "scenarios"}) {
    for (const auto& entry : fs::recursive_directory_iterator(kRoot / top)) {
      const auto ext = entry.path().extension();
      if (!entry.is_regular_file() || (ext != ".hpp" && ext != ".cpp")) continue;
      const std::string file = fs::relative(entry.path(), kRoot).generic_string();
      std::ifstream in(entry.path());
      std::string line;
      for (int n = 1; std::getline(in, line); ++n) {
        const auto hash = line.find_first_not_of(" \t");
        if (hash == std::string::npos || line.compare(hash, 8, "#include") != 0) continue;
        const auto open = line.find_first_of("\"<", hash + 8);
        if (open == std::string::npos) continue;
        const char close = line[open] == '"' ? '"' : '>';
        const auto end = line.find(close, open + 1);
        if (end == std::string::npos) continue;
        out.push_back({file, n, line.substr(open + 1, end - open - 1), close == '"'});
      }
    }
  }
  return out;
}

std::string list(const std::vector<std::string>& lines) {
  std::string s;
  for (const auto& l : lines) s += l + "\n";
  return s;
}

}  // namespace

TEST_CASE("layers: the layer table is read from ARCHITECTURE.md", "[architecture]") {
  const LayerTable t = read_layer_table(kRoot / "ARCHITECTURE.md");
  REQUIRE(t.count("sim"));
  REQUIRE(t.count("models"));
  REQUIRE(t.count("models/hw"));
  REQUIRE(t.count("models/collectives"));
  REQUIRE(t.count("scenarios/load"));
  REQUIRE(t.count("scenarios/import"));
  REQUIRE(t.count("scenarios/cli"));
  // The order the design card states: sim <- models <- scenarios, viz between.
  CHECK(t.at("sim") < t.at("models"));
  CHECK(t.at("models") < t.at("models/hw"));
  CHECK(t.at("models/hw") < t.at("models/readers"));
  CHECK(t.at("models/readers") < t.at("models/topology"));
  CHECK(t.at("models/topology") < t.at("models/nccl"));
  CHECK(t.at("models/nccl") < t.at("models/world"));
  CHECK(t.at("models/world") < t.at("models/collectives"));
  CHECK(t.at("models/collectives") < t.at("models/workload"));
  CHECK(t.at("models/workload") == t.at("models/calibrate"));
  CHECK(t.at("models/workload") < t.at("models/run"));
  CHECK(t.at("models/run") < t.at("viz"));
  CHECK(t.at("viz") < t.at("scenarios/load"));
  CHECK(t.at("scenarios/load") < t.at("scenarios/import"));
  CHECK(t.at("scenarios/import") < t.at("scenarios/cli"));
}

TEST_CASE("layers: the check flags an include that points up or sideways", "[architecture]") {
  const LayerTable t = read_layer_table(kRoot / "ARCHITECTURE.md");
  // Down or within a folder: allowed.
  CHECK_FALSE(violation(t, "models/world/world.cpp", "models/hw/node.hpp"));
  CHECK_FALSE(violation(t, "models/hw/node.cpp", "models/hw/node.hpp"));
  CHECK_FALSE(violation(t, "models/hw/node.hpp", "models/spec.hpp"));
  CHECK_FALSE(violation(t, "models/spec.hpp", "sim/time.hpp"));
  // Up (the two back-edges the re-layout removed), sideways, and an unlisted folder.
  CHECK(violation(t, "models/hw/node.hpp", "models/world/world.hpp"));
  CHECK(violation(t, "models/topology/render.cpp", "models/nccl/transport.hpp"));
  CHECK(violation(t, "models/workload/executor.cpp", "models/calibrate/fit.hpp"));
  CHECK(violation(t, "sim/simulator.cpp", "models/spec.hpp"));
  CHECK(violation(t, "models/unlisted/x.cpp", "models/spec.hpp"));
}

TEST_CASE("layers: every include under sim, models, viz and scenarios points down a layer", "[architecture]") {
  const LayerTable t = read_layer_table(kRoot / "ARCHITECTURE.md");
  REQUIRE_FALSE(t.empty());
  std::vector<std::string> bad;
  int checked = 0;
  for (const Include& inc : scan_includes()) {
    if (!inc.quoted) continue;
    ++checked;
    if (auto why = violation(t, inc.file, inc.header))
      bad.push_back(inc.file + ":" + std::to_string(inc.line) + ": " + *why);
  }
  INFO(list(bad));
  CHECK(checked > 300);  // the scan found the sources (about 700 includes)
  CHECK(bad.empty());
}

TEST_CASE("layers: only the scenario loading code includes toml++", "[architecture]") {
  std::vector<std::string> bad;
  for (const Include& inc : scan_includes()) {
    if (inc.header.rfind("toml++", 0) != 0) continue;
    const std::string folder = folder_of(inc.file);
    if (folder != "scenarios" && folder != "scenarios/load")
      bad.push_back(inc.file + ":" + std::to_string(inc.line) + ": includes <" + inc.header + ">");
  }
  INFO(list(bad));
  CHECK(bad.empty());
}
