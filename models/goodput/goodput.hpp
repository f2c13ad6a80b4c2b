#pragma once
// The checkpoint interval, expected wall time and goodput of a run that fails and restarts.
// Work T_s (failure-free compute time), checkpoints every tau of work costing delta each, a
// restart (detection, rescheduling, reload) costing R, failures exponential with mean M:
//   Young (1974), first order:     tau_Y = sqrt(2 delta M)
//   Daly (2006), higher order:     tau_D = sqrt(2 delta M) [1 + (1/3) sqrt(delta/(2M)) + delta/(18 M)] - delta
//                                          (delta < 2M; else tau_D = M)
//   Daly (2006) expected wall time, failures striking anywhere (work, checkpoint or restart):
//     T_w = M e^(R/M) (e^((tau + delta)/M) - 1) T_s / tau
//   goodput = T_s / T_w; expected interruptions = T_w / M.
// To first order T_w/T_s - 1 = delta/tau + (tau + delta)/(2M) + R/M: what checkpoints cost, the
// work lost since the last one (half an interval on average) and the restart.
// Checkpoints are taken between optimizer steps, so tau is a whole number of steps (the nearest
// to tau_D). Asynchronous checkpoints (checkpoint.hpp) block for their copy to host memory only,
// delta = that copy; a checkpoint is usable once written (W later), so a failure loses W more
// work on average (R + W in place of R) and checkpoints cannot come closer than W.
// Never checkpointing is Daly's law with one segment of the whole work and nothing to write:
//     T_w0 = M e^(R/M) (e^(T_s/M) - 1)          (tau = T_s, delta = 0; R alone: no write to wait for)
// T_w(tau) falls to its minimum near tau_D and rises after it, so the best plan is one of two:
// checkpoint every tau (the whole steps nearest tau_D) or never. A run no longer than tau never
// checkpoints; a longer one checkpoints only when T_w(tau) <= T_w0. Where a checkpoint takes
// about the MTBF or longer (delta ~ M, tau_D = M), T_w(tau) grows as e^((M + delta)/M) per
// interval and never checkpointing wins: e.g. T_s = 10 h, M = 3 h, delta = 10 h, R = 10 min gives
// T_w(M) = 795 h against T_w0 = 86 h. When both overflow a double (e^x, x > 709: a failure-free
// stretch of more than ~709 MTBFs is needed) the run does not finish: T_w is infinite.
// J. W. Young, "A first order approximation to the optimum checkpoint interval", CACM 17(9), 1974;
// J. T. Daly, "A higher order estimate of the optimum checkpoint interval for restart dumps",
// Future Generation Computer Systems 22(3), 2006 (eq. 13 and 37).
#include "models/goodput_result.hpp"

namespace models::goodput {

double young_interval(double delta, double mtbf);
double daly_interval(double delta, double mtbf);
double expected_wall_time(double work, double tau, double delta, double restart, double mtbf);

struct GoodputInputs {
  double work_s = 0;        // failure-free time: steps x step time
  double step_s = 0;        // one step
  double blocking_s = 0;    // delta: what one checkpoint stops the loop for
  double write_s = 0;       // W: until the checkpoint is on storage
  bool async = false;       // blocking_s is the host copy, the write runs beside the steps
  double restart_s = 0;     // R
  double mtbf_s = 0;        // M (infinity: nothing fails)
};

struct GoodputEstimate {
  double young_s = 0, daly_s = 0;  // the intervals of the two laws
  CheckpointPlan plan = CheckpointPlan::Interval;
  // Whole steps nearest to daly_s (>= W when async): the checkpoint interval when plan is
  // Interval, else the one the run would use (0 when nothing fails).
  double interval_s = 0;
  long long interval_steps = 0;
  double interval_wall_s = 0;      // T_w with a checkpoint every interval_s (0 for a run no longer than it)
  double wall_s = 0;               // expected wall time (infinite: the run does not finish)
  double goodput = 1;              // work_s / wall_s (0 when it does not finish)
  double interruptions = 0;        // expected over the run: wall_s / M
  double checkpoint_overhead_s = 0, rework_s = 0, restart_overhead_s = 0;  // first-order split of wall - work
};

GoodputEstimate estimate_goodput(const GoodputInputs& in);

}  // namespace models::goodput
