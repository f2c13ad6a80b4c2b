// NCCL's example tuner plugin (example_tuner.hpp): its CSV as plugin.c's loadConfig reads it, and
// its getCollInfo.
#include "models/nccl/example_tuner.hpp"

#include <cstdlib>
#include <limits>

#include "models/nccl/tuner_tables.hpp"
#include "models/parse_error.hpp"

namespace models::nccl {

namespace {

// plugin.c MAX_LINE_LENGTH: fgets into 256 bytes reads 255 characters, the newline among them.
constexpr std::size_t kMaxLineChars = 254;
constexpr const char* kRowFormat =
    "coll,min_bytes,max_bytes,algorithm,protocol,channels,nNodes,nRanks[,numPipeOps[,regBuff]]";

struct Field {
  std::string text;
  int col = 1;  // 1-based, where its text starts
};

// plugin.c: strtok(",") (empty fields vanish), then spaces and tabs trimmed at both ends.
std::vector<Field> split_fields(const std::string& line, const std::string& file, int line_no) {
  std::vector<Field> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = line.find(',', start);
    const std::size_t end = comma == std::string::npos ? line.size() : comma;
    if (end == start)
      throw ParseError(file, line_no, static_cast<int>(start) + 1,
                       "an empty field: the example tuner plugin's strtok skips it and reads the next field in its "
                       "place (expected a value, -1 for any, in every field of " +
                           std::string(kRowFormat) + ")");
    std::size_t b = start, e = end;
    while (b < e && (line[b] == ' ' || line[b] == '\t')) ++b;
    while (e > b && (line[e - 1] == ' ' || line[e - 1] == '\t')) --e;
    out.push_back({line.substr(b, e - b), static_cast<int>(b) + 1});
    if (comma == std::string::npos) return out;
    start = comma + 1;
  }
}

bool all_digits(const std::string& s, std::size_t from = 0) {
  if (s.size() <= from) return false;
  for (std::size_t i = from; i < s.size(); ++i)
    if (s[i] < '0' || s[i] > '9') return false;
  return true;
}

// A whole number as atoi would read it in full; nullopt where atoi would stop early.
std::optional<long long> whole_int(const std::string& s) {
  const std::size_t from = !s.empty() && (s[0] == '-' || s[0] == '+') ? 1 : 0;
  if (!all_digits(s, from) || s.size() - from > 9) return std::nullopt;
  return std::stoll(s);
}

int64_t byte_count(const Field& f, const std::string& what, const std::string& file, int line_no) {
  if (!all_digits(f.text))
    throw ParseError(file, line_no, f.col,
                     what + " '" + f.text + "' is not a whole byte count: the example tuner plugin's strtoull reads " +
                         "only its leading digits (" + std::to_string(std::strtoull(f.text.c_str(), nullptr, 10)) +
                         ") (expected bytes in digits, such as 1048576)");
  const unsigned long long v = std::strtoull(f.text.c_str(), nullptr, 10);  // saturates, as the plugin's
  return v > static_cast<unsigned long long>(std::numeric_limits<int64_t>::max()) ? std::numeric_limits<int64_t>::max()
                                                                                  : static_cast<int64_t>(v);
}

int small_int(const Field& f, const std::string& what, long long lo, long long hi, const std::string& expected,
              const std::string& file, int line_no) {
  const auto v = whole_int(f.text);
  if (!v)
    throw ParseError(file, line_no, f.col,
                     what + " '" + f.text + "' is not a whole number: the example tuner plugin's atoi reads " +
                         std::to_string(std::atoi(f.text.c_str())) + " (expected " + expected + ")");
  if (*v < lo || *v > hi)
    throw ParseError(file, line_no, f.col, what + " " + f.text + " is out of range (expected " + expected + ")");
  return static_cast<int>(*v);
}

template <class T>
T named(const Field& f, const std::string& what, std::initializer_list<std::pair<const char*, T>> names,
        const char* plugin_default, const std::string& file, int line_no) {
  std::string list;
  for (const auto& [name, value] : names) {
    if (f.text == name) return value;
    list += std::string(list.empty() ? "" : ", ") + name;
  }
  throw ParseError(file, line_no, f.col,
                   "unknown " + what + " '" + f.text + "': the example tuner plugin compares names exactly and reads " +
                       "this one as " + plugin_default + " (expected one of " + list + ", in lower case)");
}

}  // namespace

std::vector<ExampleTunerRow> parse_example_tuner_config(const std::string& text, const std::string& file) {
  std::vector<ExampleTunerRow> rows;
  std::size_t pos = 0;
  int line_no = 0;
  while (pos < text.size()) {
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    std::string line = text.substr(pos, nl - pos);
    pos = nl + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;  // plugin.c: a comment starts the line
    if (line.size() > kMaxLineChars)
      throw ParseError(file, line_no, static_cast<int>(kMaxLineChars) + 1,
                       "line of " + std::to_string(line.size()) + " characters: the example tuner plugin reads " +
                           std::to_string(kMaxLineChars) +
                           " per line (fgets into 256 bytes) and the rest as another line (expected a shorter row)");
    const std::vector<Field> f = split_fields(line, file, line_no);
    if (f.size() < 8 || f.size() > 10)
      throw ParseError(file, line_no, 1,
                       std::to_string(f.size()) + " fields: the example tuner plugin " +
                           (f.size() < 8 ? "skips a line of fewer than 8" : "reads 10 and drops the rest") +
                           " (expected " + kRowFormat + ")");
    ExampleTunerRow r;
    r.line = line_no;
    r.op = named<CollOp>(f[0], "collective",
                         {{"broadcast", CollOp::Broadcast},
                          {"reduce", CollOp::Reduce},
                          {"allgather", CollOp::AllGather},
                          {"reducescatter", CollOp::ReduceScatter},
                          {"allreduce", CollOp::AllReduce}},
                         "allreduce", file, line_no);
    r.min_bytes = byte_count(f[1], "min_bytes", file, line_no);
    r.max_bytes = byte_count(f[2], "max_bytes", file, line_no);
    if (r.min_bytes > r.max_bytes)
      throw ParseError(file, line_no, f[2].col,
                       "max_bytes " + f[2].text + " is below min_bytes " + f[1].text +
                           ": the row never matches (expected min_bytes <= max_bytes, both inclusive)");
    r.algo = named<Algo>(f[3], "algorithm",
                         {{"tree", Algo::Tree},
                          {"ring", Algo::Ring},
                          {"collnet_direct", Algo::CollNetDirect},
                          {"collnet_chain", Algo::CollNetChain},
                          {"nvls", Algo::NVLS},
                          {"nvls_tree", Algo::NVLSTree},
                          {"pat", Algo::PAT}},
                         "ring", file, line_no);
    r.proto = named<Proto>(f[4], "protocol", {{"ll", Proto::LL}, {"ll128", Proto::LL128}, {"simple", Proto::Simple}},
                           "simple", file, line_no);
    r.channels = small_int(f[5], "channels", -1, 64,
                           "a channel count up to 64, 0 for NCCL's own, or -1, which the plugin runs on 1 channel",
                           file, line_no);
    const std::string count = "-1 for any, or a count from 1";
    r.nodes = small_int(f[6], "nNodes", -1, 1 << 20, count, file, line_no);
    r.ranks = small_int(f[7], "nRanks", -1, 1 << 24, count, file, line_no);
    if (f.size() > 8) r.pipe_ops = small_int(f[8], "numPipeOps", -1, 1 << 20, count, file, line_no);
    if (f.size() > 9) r.reg_buff = small_int(f[9], "regBuff", -1, 1, "-1 for any, 0 or 1", file, line_no);
    const int counts[3] = {r.nodes, r.ranks, r.pipe_ops};  // nNodes, nRanks, numPipeOps
    for (std::size_t i = 0; i < 3 && 6 + i < f.size(); ++i)
      if (counts[i] == 0) throw ParseError(file, line_no, f[6 + i].col, "0 never matches (expected " + count + ")");
    rows.push_back(r);
  }
  return rows;
}

bool names_example_tuner(const std::string& value) {
  if (value == "example") return true;
  const std::size_t slash = value.rfind('/');
  return value.substr(slash == std::string::npos ? 0 : slash + 1) == "libnccl-tuner-example.so";
}

ExampleTunerChoice example_tuner_choice(const std::vector<ExampleTunerRow>& rows, int nccl_version, int nranks,
                                        int nnodes, CollOp op, int64_t bytes,
                                        const std::function<bool(Algo, Proto)>& usable) {
  ExampleTunerChoice c;
  if (nccl_version < kExampleTunerCsvSince) {  // plugin.c to 2.27.3: Ring/Simple everywhere
    if (usable(Algo::Ring, Proto::Simple)) c.algo = Algo::Ring;
    return c;
  }
  for (const ExampleTunerRow& r : rows) {
    const bool match = r.op == op && bytes >= r.min_bytes && bytes <= r.max_bytes &&
                       (r.nodes == -1 || r.nodes == nnodes) && (r.ranks == -1 || r.ranks == nranks) &&
                       (r.pipe_ops == -1 || r.pipe_ops == 1) && (r.reg_buff == -1 || r.reg_buff == 0);
    if (!match || !usable(r.algo, r.proto)) continue;  // an unusable row: the plugin tries the next
    c.algo = r.algo;
    c.proto = r.proto;
    if (r.channels != -1) c.channels = r.channels;
    c.row_line = r.line;
    return c;
  }
  return c;
}

std::optional<std::string> example_tuner_note(const std::map<std::string, std::string>& env, int nccl_version) {
  const auto plugin = env.find("NCCL_TUNER_PLUGIN");
  const bool config_file = env.count("NCCL_TUNER_CONFIG_FILE") > 0;
  const bool loaded = plugin != env.end() && names_example_tuner(plugin->second);
  const int release = nccl_release_or_default(nccl_version);
  if (!loaded) {
    if (!config_file) return std::nullopt;
    return "nccl.env: NCCL_TUNER_CONFIG_FILE is read by NCCL's example tuner plugin alone, which "
           "NCCL_TUNER_PLUGIN=example loads; as set, no tuner reads it and the file changes nothing";
  }
  if (release < kExampleTunerSince)
    return "nccl.env: NCCL_TUNER_PLUGIN=example: NCCL " + nccl_version_text(release) +
           " loads no tuner plugin (from 2.19); the file changes nothing";
  if (release < kExampleTunerCsvSince)
    return "nccl.env: NCCL_TUNER_PLUGIN=example: NCCL " + nccl_version_text(release) +
           "'s example tuner runs every collective as Ring/Simple on 1 channel (its plugin.c until 2.27.3; "
           "NCCL_TUNER_CONFIG_FILE is read from 2.27.5)";
  std::string note =
      config_file ? "nccl.env: NCCL_TUNER_PLUGIN=example: a collective no row of NCCL_TUNER_CONFIG_FILE matches, and a "
                    "row whose channels are -1, run on 1 channel (the plugin answers 1 before it matches; channels 0 "
                    "keeps NCCL's own count)"
                  : "nccl.env: NCCL_TUNER_PLUGIN=example without NCCL_TUNER_CONFIG_FILE: the plugin would read "
                    "nccl_tuner.conf in the job's folder, which commsim does not, so every collective runs NCCL's "
                    "algorithm on 1 channel (the plugin answers 1 where no row matches; name the file to simulate "
                    "its rows)";
  if (release >= kExampleTunerConstantsSince)
    note +=
        "; its init sets NCCL's Blackwell constants at 3+ nodes (tree 15 GB/s and Ring/LL128 20 GB/s per "
        "channel, NVLS's network latency 24 us)";
  return note;
}

}  // namespace models::nccl
