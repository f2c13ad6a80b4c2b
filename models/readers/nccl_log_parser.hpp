#pragma once
// Private to models/readers: the parser behind parse_nccl_log (nccl_log.hpp). Holds what its two
// halves share: the small text helpers, the regexes, and the LogParser class. nccl_log.cpp has the
// line loop and the bookkeeping around it (program output, the Enabled matrix, trainer lines, the
// communicator layout at the end); nccl_log_messages.cpp reads the NCCL messages themselves. The
// split keeps each file to one idea within the size rule; nothing outside this folder includes it.
#include <optional>
#include <regex>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "models/readers/log_line.hpp"
#include "models/readers/nccl_log.hpp"

namespace models::readers::nccl_log_detail {

bool starts_with(std::string_view s, std::string_view p);
bool contains(std::string_view s, std::string_view p);
std::string_view trim(std::string_view s);
int to_int(const std::string& s);       // -1 when not a number within +-2^30
long long to_ll(const std::string& s);  // -1 when not a number
double to_double(const std::string& s);
std::vector<std::string> split_cells(std::string_view s);  // "a | b | c" -> trimmed cells
std::vector<std::string> words(std::string_view s);
// NET/<plugin>/<dev>[/GDRDMA][/Shared] -> NET/<plugin>[/GDRDMA]; others as logged.
std::string transport_kind(const std::string& via);

struct Regexes {
  std::regex transport{
      R"(^Channel (\d+)(?:/(\d+))? : (\d+)\[([^\]]*)\] -> (\d+)\[([^\]]*)\](?: \[(send|receive)\])? via (\S.*?)\s*$)"};
  std::regex ring{R"(^Channel (\d+)/(\d+) :((?: +-?\d+)+)\s*$)"};
  std::regex comm{R"(^comm (0x[0-9a-fA-F]+) rank (\d+) nRanks (\d+) nNodes (\d+) localRanks (\d+) localRank (\d+)\b)"};
  // Every version since 2.4 (the only communicator line in older versions; later ones prefix the
  // function: "ncclCommInitRankConfig comm 0x... rank 0 nranks 4 cudaDev 0 nvmlDev 0 busId ...").
  std::regex init_complete{R"(\bcomm (0x[0-9a-fA-F]+) rank (\d+) nranks (\d+) cudaDev (\d+)\b.* - Init COMPLETE\b)"};
  std::regex channels{
      R"(^(\d+) coll channels, (?:(\d+) collnet channels, )?(?:(\d+) nvls channels, )?(\d+) p2p channels, (\d+) p2p channels per peer)"};
  std::regex tree_entry{R"(\[(\d+)\] (-?\d+)/(-?\d+)/(-?\d+)->(-?\d+)->(-?\d+))"};
  std::regex init_timing{R"(^Init timings - (\w+): rank (\d+) nranks (\d+) total ([0-9.]+) \((.*)\)\s*$)"};
  std::regex part{R"((\w+) ([0-9.]+))"};
  std::regex bootstrap{R"(^Bootstrap timings total ([0-9.]+) \(.*?recv ([0-9.]+))"};
  std::regex env_set{R"(^(NCCL_\w+) set by environment to (.*?)\s*$)"};
  std::regex env_added{R"(^NET/OFI Adding (\w+)=(\S*) to environment)"};
  std::regex gdr{R"(^Connected all rings.*\bGDR (\d+))"};
  std::regex algo_choice{
      R"(^(\w+): (\d+) Bytes -> Algo (\w+) proto (\w+)(?: channel\{Lo\.\.Hi\}=\{(\d+)\.\.(\d+)\})?)"};
  std::regex cell{R"(^\s*([0-9.]+)\s*/\s*([0-9.]+)\s*$)"};
};

const Regexes& rx();

class LogParser {
 public:
  LogParser(std::string_view text, std::string source) : text_(text) { rep_.source = std::move(source); }

  NcclLogReport run();

 private:
  [[noreturn]] void bad(const LogLine& l, const std::string& expected);
  void line(std::string_view raw, int no);
  void plugin_failure(const LogLine& l);
  void other(std::string_view raw);
  void matrix_row(std::string_view t);
  void trainer(std::string_view t);
  void add_env(std::string name, std::string value, std::string source, int line);
  void comms_from_init_complete();
  void finish();
  // nccl_log_messages.cpp
  void message(const LogLine& l);
  void tuning_row(std::string_view t);
  void ofi(const LogLine& l, const std::string& text);

  std::string_view text_;
  NcclLogReport rep_;
  std::set<std::string> hosts_, procs_;
  std::vector<LogComm> completes_;  // "Init COMPLETE" lines, used when no "nRanks ... nNodes" line exists
  std::set<std::tuple<int, int, int, std::string, std::string>> transport_seen_;
  std::set<int> ring_seen_;
  std::set<std::pair<int, int>> tree_seen_;
  std::set<std::pair<std::string, long long>> choice_seen_;
  std::set<std::string> tuning_seen_;
  bool matrix_open_ = false, matrix_done_ = false;
  std::vector<std::string> matrix_protos_, matrix_algos_;
  bool tuning_open_ = false, tuning_done_ = false;
  std::vector<std::string> tuning_algos_, tuning_protos_;
};

}  // namespace models::readers::nccl_log_detail
