// Kineto trace reader: the real trace of the calibration decoder's plain step on one H200
// (scenarios/validation/h200x1/measured_run/, 2 profiled steps) and small traces written here.
#include <catch2/catch.hpp>

#include "models/parse_error.hpp"
#include "models/readers/kineto_trace.hpp"

using models::ParseError;
using models::readers::classify_kernel;
using models::readers::KernelClass;
using models::readers::parse_kineto_trace;
using models::readers::read_kineto_trace;

namespace {
const std::string kRunOfKinetoTrace = std::string(COMMSIM_SOURCE_DIR) + "/scenarios/validation/h200x1/measured_run/";
double class_ms(const models::readers::TraceStep& s, KernelClass c) { return s.class_s[int(c)] * 1e3; }
}  // namespace

TEST_CASE("kineto trace: kernel classes by name", "[models][readers][kineto]") {
  CHECK(classify_kernel("nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT", "kernel") == KernelClass::Gemm);
  CHECK(classify_kernel("cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16", "kernel") == KernelClass::Attention);
  CHECK(classify_kernel("void cudnn::fusion::convert_dq_to_16bits<true>(void const*)", "kernel") == KernelClass::Attention);
  CHECK(classify_kernel("ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)", "kernel") ==
        KernelClass::Communication);
  CHECK(classify_kernel("void at::native::(anonymous namespace)::multi_tensor_apply_kernel<...>", "kernel") ==
        KernelClass::Optimizer);
  CHECK(classify_kernel("Memset (Device)", "gpu_memset") == KernelClass::Memcpy);
  CHECK(classify_kernel("Memcpy DtoD (Device -> Device)", "gpu_memcpy") == KernelClass::Memcpy);
  CHECK(classify_kernel("void at::native::vectorized_layer_norm_kernel<c10::BFloat16, float>", "kernel") ==
        KernelClass::Elementwise);
}

TEST_CASE("kineto trace: the measured plain step on one H200", "[models][readers][kineto]") {
  const auto t = read_kineto_trace(kRunOfKinetoTrace + "kineto_plain_step.json");
  CHECK(t.device == "NVIDIA H200");
  CHECK(t.gpus == 1);
  REQUIRE(t.steps.size() == 2);
  CHECK(t.steps[0].name == "ProfilerStep#1");
  CHECK(t.steps[1].name == "ProfilerStep#2");
  for (const auto& s : t.steps) {
    // The closed form of a partition: the classes add up to the busy time, which is no more than the span.
    double sum = 0;
    for (double c : s.class_s) sum += c;
    CHECK(sum == Approx(s.gpu_busy_s).epsilon(1e-12));
    CHECK(s.gpu_busy_s <= s.gpu_span_s);
    CHECK(s.gpu_span_s <= s.host_s);  // the script synchronises inside each ProfilerStep
    // The committed README's figures (kernels per step, ms).
    CHECK(s.gpu_events == 1183 + 149);  // kernels + memsets of one step
    CHECK(class_ms(s, KernelClass::Communication) == 0);
  }
  CHECK(class_ms(t.steps[0], KernelClass::Gemm) == Approx(66.61).margin(0.01));
  CHECK(class_ms(t.steps[1], KernelClass::Gemm) == Approx(67.99).margin(0.01));
  CHECK(class_ms(t.steps[0], KernelClass::Attention) == Approx(5.23).margin(0.01));
  CHECK(class_ms(t.steps[0], KernelClass::Optimizer) == Approx(28.37).margin(0.01));
  CHECK(t.steps[0].gpu_busy_s * 1e3 == Approx(111.24).margin(0.01));
  CHECK(t.steps[0].gpu_span_s * 1e3 == Approx(114.04).margin(0.01));
  CHECK(t.steps[0].host_s * 1e3 == Approx(114.68).margin(0.01));
  CHECK(t.steps[0].kernels.front().cls == KernelClass::Gemm);  // the longest kernel name is a GEMM tile
}

TEST_CASE("kineto trace: events outside ProfilerStep annotations, and no annotations at all", "[models][readers][kineto]") {
  // Step 1 launches k1 (correlation 7, launched at 15 inside the step although it runs at 40),
  // k0 is launched before the step (warm-up): left out.
  const std::string two = R"({"traceEvents": [
  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "ts": 10, "dur": 30},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": 15, "dur": 1, "args": {"correlation": 7}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": 5, "dur": 1, "args": {"correlation": 6}},
  {"ph": "X", "cat": "kernel", "name": "k0", "ts": 8, "dur": 2, "args": {"correlation": 6, "device": 0}},
  {"ph": "X", "cat": "kernel", "name": "gemm_k1", "ts": 40, "dur": 4, "args": {"correlation": 7, "device": 0}},
  {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "ts": 14, "dur": 2},
  {"ph": "i", "name": "marker", "ts": 1}
]})";
  const auto t = parse_kineto_trace(two, "two.json");
  REQUIRE(t.steps.size() == 1);
  CHECK(t.steps[0].gpu_events == 1);
  CHECK(t.steps[0].gpu_busy_s == Approx(4e-6));
  CHECK(t.steps[0].class_s[int(KernelClass::Gemm)] == Approx(4e-6));
  // Without annotations the whole trace is one step: span 8 .. 44 us.
  const std::string plain = R"({"traceEvents": [
  {"ph": "X", "cat": "kernel", "name": "k0", "ts": 8, "dur": 2},
  {"ph": "X", "cat": "kernel", "name": "k1", "ts": 40, "dur": 4}]})";
  const auto w = parse_kineto_trace(plain, "plain.json");
  REQUIRE(w.steps.size() == 1);
  CHECK(w.steps[0].name == "whole trace");
  CHECK(w.steps[0].gpu_span_s == Approx(36e-6));
  CHECK(w.steps[0].gpu_busy_s == Approx(6e-6));
}

TEST_CASE("kineto trace: a trace of several GPUs gives per-GPU means", "[models][readers][kineto]") {
  // One step on two GPUs (one process driving both, or two ranks' traces merged). Device 0: a GEMM
  // of 4 us at 10 and a kernel of 2 us at 20 (span 12 us); device 1: the GEMM of 6 us at 11 and a
  // kernel of 2 us at 30 (span 21 us).
  const std::string two = R"({"traceEvents": [
  {"ph": "X", "cat": "kernel", "name": "gemm_k", "ts": 10, "dur": 4, "args": {"device": 0}},
  {"ph": "X", "cat": "kernel", "name": "add_k", "ts": 20, "dur": 2, "args": {"device": 0}},
  {"ph": "X", "cat": "kernel", "name": "gemm_k", "ts": 11, "dur": 6, "args": {"device": 1}},
  {"ph": "X", "cat": "kernel", "name": "add_k", "ts": 30, "dur": 2, "args": {"device": 1}}]})";
  const auto t = parse_kineto_trace(two, "two.json");
  CHECK(t.gpus == 2);
  REQUIRE(t.steps.size() == 1);
  const auto& s = t.steps[0];
  CHECK(s.gpus == 2);
  CHECK(s.gpu_events == 4);
  CHECK(s.gpu_busy_s == Approx(7e-6).epsilon(1e-12));                       // (4 + 2 + 6 + 2) / 2
  CHECK(s.class_s[int(KernelClass::Gemm)] == Approx(5e-6).epsilon(1e-12));  // (4 + 6) / 2
  CHECK(s.class_s[int(KernelClass::Elementwise)] == Approx(2e-6).epsilon(1e-12));
  CHECK(s.gpu_span_s == Approx(16.5e-6).epsilon(1e-12));  // (12 + 21) / 2, not 10..32
  REQUIRE(s.kernels.size() == 2);
  CHECK(s.kernels[0].name == "gemm_k");
  CHECK(s.kernels[0].seconds == Approx(5e-6).epsilon(1e-12));
  CHECK(s.kernels[0].calls == 2);
  CHECK(s.gpu_busy_s <= s.gpu_span_s);
}

TEST_CASE("kineto trace: malformed traces fail at FILE:LINE:COL with the JSON path", "[models][readers][kineto]") {
  auto fails = [](const std::string& text, int line, int col, const std::string& part) {
    try {
      parse_kineto_trace(text, "t.json");
      FAIL("no error for " << text);
    } catch (const ParseError& e) {
      CHECK(e.line() == line);
      CHECK(e.col() == col);
      CHECK_THAT(e.message(), Catch::Contains(part));
    }
  };
  fails("{\"traceEvents\": [\n {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": 1, \"dur\": \"2\"}]}", 2, 60,
        "traceEvents[0].dur: expected a number");
  fails("{\"traceEvents\": [\n {\"ph\": \"X\", \"cat\": \"kernel\", \"ts\": 1, \"dur\": 2}]}", 2, 2,
        "traceEvents[0]: no \"name\" member");
  fails("{\"traceEvents\": [\n {\"ph\": \"X\",, }]}", 2, 13, "not valid JSON");
  fails("{\"events\": []}", 1, 1, "no \"traceEvents\" member");
  fails("{\"traceEvents\": [\n {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"a\", \"ts\": 1, \"dur\": 2}]}", 1, 17,
        "no GPU events");
  fails("[1, 2]", 1, 1, "expected a Chrome trace object");
  CHECK_THROWS_AS(read_kineto_trace(kRunOfKinetoTrace + "no-such-trace.json"), ParseError);
}
