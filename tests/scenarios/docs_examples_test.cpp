// Every example in the README and docs/ runs (the reference pages are read by people who copy
// them): each ```toml block is written to a file and run (a fragment, without [cluster] or a
// workload, on a small base scenario); each `build/scenarios/commsim ...` line of a ```sh block
// is run from a folder holding the README's first scenario as first.toml; each plain ``` block
// that starts with "$ commsim ..." is run and every line shown after it must be in its output
// ("..." ends a line shown in part). design.md (the design card) and scale-design.md (a design
// note with code sketches) hold no examples to run.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "tests/scenarios/command_runner.hpp"

namespace fs = std::filesystem;
using scenarios_test::run_commsim_with;
using scenarios_test::shell_quote;
using scenarios_test::slurp;

namespace {
const fs::path kDocsSource = COMMSIM_SOURCE_DIR;

struct Block {
  std::string file, lang, text;
  int line = 0;
};

std::vector<Block> blocks_of(const fs::path& path) {
  std::vector<Block> out;
  std::istringstream in(slurp(path));
  int n = 0;
  std::optional<Block> open;
  for (std::string l; std::getline(in, l);) {
    ++n;
    if (l.rfind("```", 0) == 0) {
      if (open) {
        out.push_back(*open);
        open.reset();
      } else {
        open = Block{path.filename().string(), l.substr(3), "", n + 1};
      }
    } else if (open) {
      open->text += l + "\n";
    }
  }
  return out;
}

std::vector<fs::path> pages() {
  std::vector<fs::path> out{kDocsSource / "README.md"};
  for (const auto& e : fs::directory_iterator(kDocsSource / "docs"))
    if (e.path().extension() == ".md" && e.path().filename() != "design.md" &&
        e.path().filename() != "scale-design.md")
      out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

bool has_table(const std::string& toml, const std::string& header) {
  return toml.find("\n" + header) != std::string::npos || toml.rfind(header, 0) == 0;
}

// A fragment ([cluster.fabric], [[stragglers]], [[cluster.groups]], ...) on a base scenario that
// lacks only what the fragment gives.
std::string complete(const std::string& fragment) {
  if (has_table(fragment, "[cluster]") && (has_table(fragment, "[model]") || has_table(fragment, "[collective]")))
    return fragment;
  std::string base = "name = \"docs fragment\"\n";
  if (!has_table(fragment, "[cluster]")) {
    if (has_table(fragment, "[[cluster.groups]]"))
      base += "[cluster]\n";
    else if (fragment.find("sharp") != std::string::npos)
      base += "[cluster]\ninstance = \"dgx-h100\"\nnodes = 8\n";
    else
      base += "[cluster]\ninstance = \"p5.48xlarge\"\nnodes = 8\n";
  }
  if (!has_table(fragment, "[model]") && !has_table(fragment, "[collective]"))
    base += "[collective]\nop = \"all_reduce\"\nbytes = \"256 MiB\"\n";
  return base + fragment;
}

// The folder commands run in: the README's first scenario as first.toml, scenarios/ linked (and
// tests/, whose import inputs the commands page imports).
fs::path work_dir() {
  const auto dir = scenarios_test::fresh_temp_dir("docs");
  fs::create_directory_symlink(kDocsSource / "scenarios", dir / "scenarios");
  fs::create_directory_symlink(kDocsSource / "tests", dir / "tests");
  for (const auto& b : blocks_of(kDocsSource / "README.md"))
    if (b.lang == "toml") {
      std::ofstream(dir / "first.toml") << b.text;
      break;
    }
  return dir;
}

std::vector<std::string> words_of(const std::string& line) {
  std::vector<std::string> out;
  std::istringstream in(line);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}
}  // namespace

TEST_CASE("docs: every toml block of the README and docs/ loads and runs", "[scenarios]") {
  const auto dir = scenarios_test::fresh_temp_dir("docs-toml");
  int count = 0;
  for (const auto& page : pages())
    for (const auto& b : blocks_of(page)) {
      if (b.lang != "toml") continue;
      INFO(b.file << ":" << b.line);
      const fs::path f = dir / "example.toml";
      std::ofstream(f) << complete(b.text);
      // One step (a block with a token target keeps it: the two targets exclude each other).
      const bool token_target = b.text.find("\ntokens =") != std::string::npos;
      const auto r = token_target ? run_commsim_with("", {"run", f.string()})
                                  : run_commsim_with("", {"run", f.string(), "--set", "training.steps=1"});
      INFO(r.err);
      CHECK(r.exit_code == 0);
      ++count;
    }
  CHECK(count >= 8);  // the README's first scenario, the format's three, fabrics' four
  fs::remove_all(dir);
}

TEST_CASE("docs: every commsim line of a sh block and every \"$ commsim\" example runs as shown", "[scenarios]") {
  const auto dir = work_dir();
  const std::string prefix = "cd " + shell_quote(dir.string()) + " &&";
  int commands = 0, shown = 0;
  for (const auto& page : pages())
    for (const auto& b : blocks_of(page)) {
      std::istringstream in(b.text);
      std::vector<std::string> lines;
      for (std::string l; std::getline(in, l);) lines.push_back(l);
      if (lines.empty()) continue;
      if (b.lang == "sh") {
        for (const auto& l : lines) {
          const auto w = words_of(l);
          if (w.empty() || w[0] != "build/scenarios/commsim") continue;  // install, test, python lines
          INFO(b.file << ":" << b.line << ": " << l);
          const auto r = run_commsim_with(prefix, std::vector<std::string>(w.begin() + 1, w.end()));
          INFO(r.err);
          CHECK(r.exit_code == 0);
          ++commands;
        }
      } else if (b.lang.empty() && lines[0].rfind("$ commsim ", 0) == 0) {
        const auto w = words_of(lines[0].substr(2));
        INFO(b.file << ":" << b.line << ": " << lines[0]);
        const auto r = run_commsim_with(prefix, std::vector<std::string>(w.begin() + 1, w.end()));
        INFO(r.err);
        CHECK(r.exit_code == 0);
        for (size_t i = 1; i < lines.size(); ++i) {
          std::string want = lines[i];
          while (!want.empty() && want.back() == ' ') want.pop_back();
          if (want.empty() || want == "...") continue;
          if (want.ends_with("...")) want = want.substr(0, want.size() - 3);
          INFO("shown: " << want);
          CHECK(r.out.find(want) != std::string::npos);
          ++shown;
        }
      }
    }
  CHECK(commands >= 3);  // the README's run, compare and report of first.toml
  CHECK(shown >= 3);
  fs::remove_all(dir);
}
