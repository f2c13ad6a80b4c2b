# Where a GPT-2 training step's time goes on one GPU: the kernels of gpt2_step.py's step (same model,
# optimizer and loss), per kernel and per class, and how much of the step the GPU is idle.
#   python3 bench/device/steps/gpt2_profile.py OUT.jsonl TRACEDIR
# Per configuration: 3 warm-up steps, 6 timed steps (CUDA-synchronised, wall clock), then 3 steps under
# torch.profiler (CPU and CUDA activity), exported as a Chrome trace and read back: every GPU activity
# (kernels, memcpy, memset) summed per kernel name and per class, the union of their intervals (the
# time the GPU is busy) and the span from each profiled step's first to last GPU activity. One JSON
# line per configuration (kind "gpt2_profile"); the trace files stay in TRACEDIR.
import gzip, json, os, re, sys, time
import torch, torch.nn.functional as F
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))  # gpu_timing, decoder
from gpu_timing import Rows, clocks, device_info
from gpt2_step import G, V, S

# First match wins; cuDNN's and FlashAttention's kernels are attention, not GEMM, although their names
# carry sm90_/cutlass.
CLASSES = [("attention", r"flash|fmha|sdpa|attention|cudnn"),
           ("gemm", r"gemm|nvjet|xmma|cutlass|sm90_|cublas|splitk"),
           ("optimizer", r"multi_tensor|foreach|adam"),
           ("layernorm", r"layer_norm|layernorm"),
           ("gelu", r"gelu"),
           ("loss", r"softmax|nll|cross_entropy"),
           ("embedding", r"embedding|index|scatter|gather"),
           ("reduce", r"reduce"),
           ("memset_memcpy", r"^memset|^memcpy|Memset|Memcpy"),
           ("other", r".")]


def klass(name):
    for c, pat in CLASSES:
        if re.search(pat, name, re.I):
            return c


def union_us(intervals):
    total, end = 0.0, -1e30
    for a, b in sorted(intervals):
        if b <= end:
            continue
        total += b - max(a, end)
        end = b
    return total


def main():
    rows, tdir = Rows(sys.argv[1]), sys.argv[2]
    os.makedirs(tdir, exist_ok=True)
    rows(kind="info", **device_info())
    from torch.profiler import profile, ProfilerActivity
    for nm, L, h, a, mb in [("gpt2", 12, 768, 12, 8), ("gpt2-medium", 24, 1024, 16, 8), ("gpt2-large", 36, 1280, 20, 8),
                            ("gpt2-xl", 48, 1600, 25, 4)]:
        torch.cuda.empty_cache(); torch.manual_seed(0)
        with torch.device("cuda"):
            m = G(L, h, a).to(torch.bfloat16)
        o = torch.optim.AdamW(m.parameters(), lr=1e-4, foreach=True)
        tk = torch.randint(0, V, (mb, S + 1), device="cuda")
        def st():
            F.cross_entropy(m(tk[:, :-1]).float().view(-1, V), tk[:, 1:].reshape(-1)).backward()
            o.step(); o.zero_grad(set_to_none=True)
        for _ in range(3): st()
        ts = []
        for _ in range(6):
            torch.cuda.synchronize(); t0 = time.perf_counter(); st(); torch.cuda.synchronize(); ts.append(time.perf_counter() - t0)
        clk = clocks()
        trace = os.path.join(tdir, f"{nm}_mb{mb}.json")
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            for _ in range(3):
                with torch.profiler.record_function("STEP"):
                    st(); torch.cuda.synchronize()
        prof.export_chrome_trace(trace)
        ev = json.load(open(trace))["traceEvents"]
        gpu = [e for e in ev if e.get("ph") == "X" and e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")]
        steps = sorted((e["ts"], e["ts"] + e["dur"]) for e in ev if e.get("ph") == "X" and e.get("name") == "STEP"
                       and e.get("cat") == "user_annotation")
        per, cls = {}, {}
        for e in gpu:
            k = per.setdefault(e["name"][:160], [0.0, 0])
            k[0] += e["dur"] / 3; k[1] += 1 / 3
            c = klass(e["name"]); cls[c] = cls.get(c, 0) + e["dur"] / 3
        busy, span = [], []
        for a0, a1 in steps:
            iv = [(e["ts"], e["ts"] + e["dur"]) for e in gpu if a0 <= e["ts"] < a1]
            busy.append(union_us(iv)); span.append(max(b for _, b in iv) - min(x for x, _ in iv) if iv else 0)
        kernels = sorted(({"name": n, "class": klass(n), "us_per_step": v[0], "calls_per_step": v[1]} for n, v in per.items()),
                         key=lambda k: -k["us_per_step"])
        rows(kind="gpt2_profile", model=nm, layers=L, hidden=h, heads=a, seq=S, micro_batch=mb, step_s=ts,
             median_step_s=sorted(ts)[3], profiled_step_us=[b - a for a, b in steps], gpu_busy_us=busy, gpu_span_us=span,
             kernels_per_step=sum(v[1] for v in per.values()), class_us_per_step=cls, kernels=kernels[:120], **clk)
        with open(trace, "rb") as f, gzip.open(trace + ".gz", "wb") as g:
            g.write(f.read())
        os.remove(trace)
        print(nm, mb, round(sorted(ts)[3] * 1e3, 2), "ms; busy", [round(b / 1e3, 2) for b in busy], "ms",
              {c: round(v / 1e3, 2) for c, v in sorted(cls.items(), key=lambda x: -x[1])}, flush=True)
        del m, o, prof


if __name__ == "__main__":
    main()
