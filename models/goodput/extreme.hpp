#pragma once
// The slowest of N: order statistics of the normal distribution, the law behind a synchronous
// step's growth with the GPU count. If each of N ranks computes a step's share in
// T_r = T (1 + sigma Z_r), Z_r standard normal and independent, every collective that spans them
// all waits for the slowest, whose time is T (1 + sigma M_N) with M_N = max_r Z_r:
//   P(M_N <= x) = Phi(x)^N,   E[M_N] = integral x N phi(x) Phi(x)^(N-1) dx
//   E[M_N] ~ sqrt(2 ln N) as N grows (the leading term; Cramer 1946, Gumbel's extreme-value limit),
//   q-quantile of M_N = Phi^-1(q^(1/N)) (exact).
namespace models::goodput {

double normal_pdf(double x);
double normal_cdf(double x);
// Phi^-1(p), p in (0, 1): Acklam's rational approximation refined by one Halley step (|error| <
// 1e-13 over (1e-300, 1 - 1e-16)).
double normal_quantile(double p);

// E[max of n independent standard normals], n >= 1, by Simpson's rule on [-12, 12] (2,000 panels,
// the integrand's mass sits within a few units of sqrt(2 ln n)).
double expected_max_normal(double n);
// The q-quantile of that maximum: Phi^-1(q^(1/n)).
double max_quantile_normal(double q, double n);

}  // namespace models::goodput
