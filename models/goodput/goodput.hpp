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
// to tau_D). A run no longer than tau never checkpoints: T_w = M e^(R/M) (e^(T_s/M) - 1).
// Asynchronous checkpoints (checkpoint.hpp) block for their copy to host memory only, delta = that
// copy; a checkpoint is usable once written (W later), so a failure loses W more work on average
// (R + W in place of R) and checkpoints cannot come closer than W.
// J. W. Young, "A first order approximation to the optimum checkpoint interval", CACM 17(9), 1974;
// J. T. Daly, "A higher order estimate of the optimum checkpoint interval for restart dumps",
// Future Generation Computer Systems 22(3), 2006 (eq. 13 and 37).
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
  double interval_s = 0;           // the one used: whole steps nearest to daly_s (>= W when async)
  long long interval_steps = 0;
  double wall_s = 0;               // expected wall time
  double goodput = 1;              // work_s / wall_s
  double interruptions = 0;        // expected over the run: wall_s / M
  double checkpoint_overhead_s = 0, rework_s = 0, restart_overhead_s = 0;  // first-order split of wall - work
};

GoodputEstimate estimate_goodput(const GoodputInputs& in);

}  // namespace models::goodput
