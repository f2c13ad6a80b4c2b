#include "models/readers/kineto_trace.hpp"

#include <algorithm>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <unordered_map>

#include "models/parse_error.hpp"
#include "models/readers/json_place.hpp"

namespace models::readers {

const char* kernel_class_name(KernelClass c) {
  switch (c) {
    case KernelClass::Gemm: return "gemm";
    case KernelClass::Attention: return "attention";
    case KernelClass::Communication: return "communication";
    case KernelClass::Optimizer: return "optimizer";
    case KernelClass::Memcpy: return "memcpy";
    case KernelClass::Elementwise: return "elementwise";
  }
  return "elementwise";
}

KernelClass classify_kernel(std::string_view name, std::string_view category) {
  if (category == "gpu_memcpy" || category == "gpu_memset") return KernelClass::Memcpy;
  static const std::regex kComm("nccl", std::regex::icase);
  static const std::regex kAttn("flash|fmha|sdpa|attention|cudnn", std::regex::icase);
  static const std::regex kGemm("gemm|nvjet|xmma|cutlass|cublas|wgmma|sm90_|sm100_", std::regex::icase);
  static const std::regex kOpt("multi_tensor|foreach|adam", std::regex::icase);
  static const std::regex kCopy("^memcpy|^memset", std::regex::icase);
  const std::string n(name);
  if (std::regex_search(n, kComm)) return KernelClass::Communication;
  if (std::regex_search(n, kAttn)) return KernelClass::Attention;
  if (std::regex_search(n, kGemm)) return KernelClass::Gemm;
  if (std::regex_search(n, kOpt)) return KernelClass::Optimizer;
  if (std::regex_search(n, kCopy)) return KernelClass::Memcpy;
  return KernelClass::Elementwise;
}

namespace {

struct KinetoGpuEvent {
  std::string name;
  KernelClass cls;
  double ts, dur;
  long long correlation;
  bool has_correlation;
  long long device;  // args.device; -1 when absent
};
struct KinetoStepSpan {
  std::string name;
  double ts, dur;
};

double kineto_mean_of(const std::vector<TraceStep>& steps, double (*f)(const TraceStep&)) {
  if (steps.empty()) return 0;
  double s = 0;
  for (const auto& st : steps) s += f(st);
  return s / double(steps.size());
}

}  // namespace

double KinetoTrace::mean_busy_s() const {
  return kineto_mean_of(steps, [](const TraceStep& s) { return s.gpu_busy_s; });
}
double KinetoTrace::mean_span_s() const {
  return kineto_mean_of(steps, [](const TraceStep& s) { return s.gpu_span_s; });
}
double KinetoTrace::mean_host_s() const {
  return kineto_mean_of(steps, [](const TraceStep& s) { return s.host_s; });
}
double KinetoTrace::mean_class_s(KernelClass c) const {
  if (steps.empty()) return 0;
  double s = 0;
  for (const auto& st : steps) s += st.class_s[int(c)];
  return s / double(steps.size());
}

bool looks_like_kineto_trace(std::string_view text) {
  const auto head = text.substr(0, 4096);
  return head.find("\"traceEvents\"") != std::string_view::npos ||
         head.find("\"schemaVersion\"") != std::string_view::npos;
}

KinetoTrace parse_kineto_trace(std::string_view text, const std::string& source) {
  const JsonDoc doc{text, source};
  const nlohmann::json root = parse_json_text(text, source);
  if (!root.is_object()) doc.fail({}, "expected a Chrome trace object {\"traceEvents\": [...]} (torch.profiler's export_chrome_trace)");
  const auto& events = doc.array(root, {}, "traceEvents");
  KinetoTrace out;
  out.source = source;
  if (auto it = root.find("deviceProperties"); it != root.end() && it->is_array() && !it->empty() &&
                                                 (*it)[0].is_object() && (*it)[0].contains("name") &&
                                                 (*it)[0]["name"].is_string())
    out.device = (*it)[0]["name"].get<std::string>();

  std::vector<KinetoGpuEvent> gpu;
  std::vector<KinetoStepSpan> spans;
  std::unordered_map<long long, double> launch_ts;
  std::set<long long> devices;
  for (std::size_t i = 0; i < events.size(); ++i) {
    const auto& e = events[i];
    const JsonPath at{std::string("traceEvents"), i};
    if (!e.is_object()) doc.fail(at, "expected an event object, found " + std::string(e.type_name()));
    const auto ph = e.find("ph");
    if (ph == e.end() || !ph->is_string() || ph->get<std::string>() != "X") continue;
    const auto cat_it = e.find("cat");
    const std::string cat = cat_it != e.end() && cat_it->is_string() ? cat_it->get<std::string>() : "";
    const bool is_gpu = cat == "kernel" || cat == "gpu_memcpy" || cat == "gpu_memset";
    const bool is_launch = cat == "cuda_runtime" || cat == "cuda_driver";
    const bool is_step = cat == "user_annotation" && e.contains("name") && e["name"].is_string() &&
                         e["name"].get<std::string>().rfind("ProfilerStep#", 0) == 0;
    if (!is_gpu && !is_launch && !is_step) continue;
    const double ts = doc.number(e, at, "ts") * 1e-6;
    if (is_launch) {
      if (auto a = e.find("args"); a != e.end() && a->is_object())
        if (auto c = a->find("correlation"); c != a->end() && c->is_number_integer())
          launch_ts[c->get<long long>()] = ts;
      continue;
    }
    const double dur = doc.number(e, at, "dur") * 1e-6;
    if (dur < 0) doc.fail(json_child(at, std::string("dur")), "a negative duration");
    const std::string name = doc.string(e, at, "name");
    if (is_step) {
      spans.push_back({name, ts, dur});
      continue;
    }
    KinetoGpuEvent g{name, classify_kernel(name, cat), ts, dur, 0, false, -1};
    if (auto a = e.find("args"); a != e.end() && a->is_object()) {
      if (auto c = a->find("correlation"); c != a->end() && c->is_number_integer())
        g.correlation = c->get<long long>(), g.has_correlation = true;
      if (auto d = a->find("device"); d != a->end() && d->is_number_integer())
        g.device = d->get<long long>(), devices.insert(g.device);
    }
    gpu.push_back(std::move(g));
  }
  if (gpu.empty())
    doc.fail({std::string("traceEvents")},
             "no GPU events (kernel, gpu_memcpy, gpu_memset): profile with ProfilerActivity.CUDA");
  out.gpus = std::max<int>(1, int(devices.size()));
  std::sort(spans.begin(), spans.end(), [](const KinetoStepSpan& a, const KinetoStepSpan& b) { return a.ts < b.ts; });

  const bool whole = spans.empty();
  const std::size_t n = whole ? 1 : spans.size();
  std::vector<TraceStep> steps(n);
  std::vector<std::map<std::string, TraceKernelTotal>> per_name(n);
  // Per step, per GPU: first start and last end (the span is each GPU's own, then averaged).
  std::vector<std::map<long long, std::pair<double, double>>> extent(n);
  for (std::size_t s = 0; s < n; ++s) {
    steps[s].name = whole ? "whole trace" : spans[s].name;
    steps[s].host_s = whole ? 0 : spans[s].dur;
  }
  auto step_of = [&](double t) -> long {
    for (std::size_t s = 0; s < spans.size(); ++s)
      if (t >= spans[s].ts && t <= spans[s].ts + spans[s].dur) return long(s);
    return -1;
  };
  for (const auto& g : gpu) {
    long s = 0;
    if (!whole) {
      auto it = g.has_correlation ? launch_ts.find(g.correlation) : launch_ts.end();
      s = step_of(it != launch_ts.end() ? it->second : g.ts);
      if (s < 0) continue;  // launched outside the profiled steps (warm-up)
    }
    TraceStep& st = steps[std::size_t(s)];
    st.gpu_busy_s += g.dur;
    st.gpu_events += 1;
    st.class_s[int(g.cls)] += g.dur;
    auto [e, fresh] = extent[std::size_t(s)].try_emplace(g.device, g.ts, g.ts + g.dur);
    if (!fresh) e->second = {std::min(e->second.first, g.ts), std::max(e->second.second, g.ts + g.dur)};
    auto& k = per_name[std::size_t(s)][g.name];
    k.name = g.name, k.cls = g.cls, k.seconds += g.dur, k.calls += 1;
  }
  for (std::size_t s = 0; s < n; ++s) {
    if (steps[s].gpu_events == 0) continue;
    // The sums are over the step's GPUs; a step is what one GPU does, so each is their mean.
    const double gpus = double(extent[s].size());
    steps[s].gpus = int(extent[s].size());
    for (const auto& [device, e] : extent[s]) steps[s].gpu_span_s += (e.second - e.first) / gpus;
    steps[s].gpu_busy_s /= gpus;
    for (double& c : steps[s].class_s) c /= gpus;
    for (auto& [name, k] : per_name[s]) {
      k.seconds /= gpus;
      steps[s].kernels.push_back(std::move(k));
    }
    std::sort(steps[s].kernels.begin(), steps[s].kernels.end(),
              [](const TraceKernelTotal& a, const TraceKernelTotal& b) { return a.seconds > b.seconds; });
    out.steps.push_back(std::move(steps[s]));
  }
  if (out.steps.empty())
    doc.fail({std::string("traceEvents")}, "no GPU event was launched inside a ProfilerStep#N annotation");
  return out;
}

KinetoTrace read_kineto_trace(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ParseError(path, 1, 1, "cannot open the file");
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_kineto_trace(ss.str(), path);
}

}  // namespace models::readers
