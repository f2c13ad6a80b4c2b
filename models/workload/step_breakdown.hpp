#pragma once
// models::workload::StepBreakdown: where one rank's step went, as a partition of its time line.
// At every instant of the step exactly one term grows, chosen in this order (first match wins):
//   compute       the compute stream runs a GPU op, at full rate (or its full-rate share)
//   interference  the compute stream runs a GPU op slowed by communication in flight: of dt at
//                 rate 1 / (1 + compute.overlap_slowdown), dt x slowdown / (1 + slowdown)
//   exposed       the compute stream is idle while a collective or send/recv of the rank moves data
//   host          the compute stream is idle while only host work (CPU-Adam) or PCIe copies run
//   barrier       idle, a stream has reached a collective that some member has not reached yet
//   bubble        idle, a stream waits for a pipeline peer's send or receive to be posted
//   other         idle for any other reason (GPU work on a side stream)
// After the rank's last op the step continues until the slowest rank ends: that tail is pipeline
// bubble for a rank whose program exchanges point-to-point data (pipeline stages), barrier wait
// for the others (the next step's first collective waits for the slowest rank). The terms are
// integer picoseconds, so they add up to the step exactly.
#include "sim/time.hpp"

namespace models::workload {

struct StepBreakdown {
  sim::Time compute, interference, exposed, host, barrier, bubble, other;
  sim::Time total() const { return compute + interference + exposed + host + barrier + bubble + other; }
};

}  // namespace models::workload
