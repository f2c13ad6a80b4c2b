// A trace's compute (models/measured/compute_fit.hpp): the per-GPU means of a trace of several
// GPUs, and a trace whose kernels overlap, whose idle time is not measured (never negative).
#include <catch2/catch.hpp>

#include <string>

#include "models/measured/compute_fit.hpp"
#include "models/readers/kineto_trace.hpp"

using models::measured::trace_compute;
using models::measured::trace_notes;
using models::readers::parse_kineto_trace;

TEST_CASE("trace compute: overlapping kernels leave the idle time unmeasured", "[models][measured]") {
  // One GPU, two streams: a GEMM 10..20 us and an NCCL kernel 12..22 us: busy 20 us, span 12 us.
  const std::string overlap = R"({"traceEvents": [
  {"ph": "X", "cat": "kernel", "name": "gemm_k", "ts": 10, "dur": 10, "args": {"device": 0, "stream": 7}},
  {"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce", "ts": 12, "dur": 10, "args": {"device": 0, "stream": 9}}]})";
  const auto c = trace_compute(parse_kineto_trace(overlap, "o.json"));
  CHECK(c.busy == Approx(20e-6).epsilon(1e-12));
  CHECK(c.span == Approx(12e-6).epsilon(1e-12));
  CHECK_FALSE(c.idle_measured());
  CHECK(c.idle() == 0);
  const auto notes = trace_notes(c);
  REQUIRE(notes.size() == 1);
  CHECK(notes[0] ==
        "the GPU's kernels overlap (busy 0.020 ms above its span 0.012 ms per step and GPU, several "
        "streams at once): its idle time is not measured");
}

TEST_CASE("trace compute: two GPUs doing the same work measure as one", "[models][measured]") {
  // The same step on device 0 and device 1 (kernels 4 + 2 us in a span of 10 us on each).
  const std::string one = R"({"traceEvents": [
  {"ph": "X", "cat": "kernel", "name": "gemm_k", "ts": 10, "dur": 4, "args": {"device": 0}},
  {"ph": "X", "cat": "kernel", "name": "add_k", "ts": 18, "dur": 2, "args": {"device": 0}})";
  const std::string two = one + R"(,
  {"ph": "X", "cat": "kernel", "name": "gemm_k", "ts": 11, "dur": 4, "args": {"device": 1}},
  {"ph": "X", "cat": "kernel", "name": "add_k", "ts": 19, "dur": 2, "args": {"device": 1}})";
  const auto a = trace_compute(parse_kineto_trace(one + "]}", "one.json"));
  const auto b = trace_compute(parse_kineto_trace(two + "]}", "two.json"));
  CHECK(a.gpus == 1);
  CHECK(b.gpus == 2);
  CHECK(b.gemm == Approx(a.gemm).epsilon(1e-12));
  CHECK(b.elementwise == Approx(a.elementwise).epsilon(1e-12));
  CHECK(b.busy == Approx(6e-6).epsilon(1e-12));
  CHECK(b.idle() == Approx(4e-6).epsilon(1e-12));
  CHECK(trace_notes(a).empty());
  REQUIRE(trace_notes(b).size() == 1);
  CHECK(trace_notes(b)[0] ==
        "the trace holds 2 GPUs: every time is the mean per GPU (fitted as one rank's; their work should be alike, "
        "as data-parallel ranks')");
}
