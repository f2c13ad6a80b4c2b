// CSV export: one row per rank, then one per timeline event, units in the header names.
#include <sstream>

#include "viz/viz.hpp"

namespace viz {
std::string to_csv(const models::RunResult& r) {
  std::ostringstream out;
  out << "kind,rank,node,pod,gpu,compute_s,comm_s,exposed_comm_s,barrier_wait_s,stream,name,op,"
         "start_s,end_s,bytes_B,algo,proto\n";
  for (const auto& k : r.ranks)
    out << "rank," << k.rank << ',' << k.node << ',' << k.pod << ',' << k.gpu << ',' << k.compute_s
        << ',' << k.comm_s << ',' << k.exposed_comm_s << ',' << k.barrier_wait_s << ",,,,,,,,\n";
  for (const auto& e : r.timeline)
    out << "event," << e.rank << ",,,,,,,," << e.stream << ",\"" << e.name << "\"," << e.op << ','
        << e.start_s << ',' << e.end_s << ',' << e.bytes << ',' << e.algo << ',' << e.proto << '\n';
  return out.str();
}
}  // namespace viz
