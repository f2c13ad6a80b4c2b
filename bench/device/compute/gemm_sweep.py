# GEMM efficiency by shape on one GPU: bf16 torch.matmul and fp8
# torch._scaled_mm (e4m3 x e4m3, per-tensor fp32 scales, bf16 output), one JSON line per shape.
#
#   python3 bench/device/compute/gemm_sweep.py OUT.jsonl        (GEMM_BUDGET_S=200 bounds the whole sweep)
#   GEMM_ORDER=reverse GEMM_GRID=pow2 ... : the repeat run (model rows in reverse order, then only the
#   powers-of-two grid in bf16, reversed), to see how much a row depends on the GPU's power state
#
# Shapes, in this order (the sweep stops when the budget is spent, so the grid's tail may be cut):
#  1. "model" rows: every linear layer's forward, dgrad and wgrad product of the calibration decoder
#     (tokens 4096, hidden 4096, FFN 14336, vocab 32000), GPT-3 175B (tokens 2048, hidden 12288,
#     FFN 49152, vocab padded to 51200) and Llama-3-70B (tokens 8192, hidden 8192, GQA 64/8 heads of
#     128, FFN 28672, vocab 128256) at TP 1, 2, 4, 8, with nn.Linear's memory layouts:
#       fwd   y[T,out]  = x[T,in] @ w[out,in]^T   m=T   n=out k=in   layout "rc" (A row-, B column-major)
#       dgrad dx[T,in]  = dy[T,out] @ w[out,in]   m=T   n=in  k=out  layout "rr"
#       wgrad dw[out,in]= dy[T,out]^T @ x[T,in]   m=out n=in  k=T    layout "cr"
#  2. "grid" rows: m, n, k each in {256, 384, 512, ..., 12288, 16384} (powers of two and 1.5x steps),
#     layout "rr"; powers of two first, then the 1.5x points in a fixed shuffled order.
# FLOPs = 2 m n k. fp8: torch._scaled_mm takes only A row-major and B column-major ("rc"; cuBLASLt's
# TN, which is why Transformer Engine transposes fp8 copies for dgrad/wgrad), with k and n multiples of
# 16: every fp8 row is timed in layout "rc" for its logical m, n, k; model rows are timed with
# use_fast_accum False and True (TE uses fast accumulation in the forward), grid rows with False.
# Inputs are random normal (never zeros); small shapes rotate over several input sets so repeats do
# not run out of L2. Each row carries NVML's SM clock read right after it was timed.
import itertools, json, math, os, random, sys, time, traceback
import torch
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))  # gpu_timing, decoder
from gpu_timing import Rows, clocks, device_info, smi, time_op

FP8 = torch.float8_e4m3fn


def linear_rows(model, tokens, layers, tps):
    """(tags, m, n, k, layout) for each layer's three products; layers: name -> (in, out, split),
    split 'col' divides out by tp, 'row' divides in, None keeps both."""
    out = []
    for tp in tps:
        for name, (i, o, split) in layers.items():
            i2, o2 = (i // tp, o) if split == "row" else ((i, o // tp) if split == "col" else (i, o))
            tag = f"{model} tp{tp} {name}"
            out += [(tag + " fwd", tokens, o2, i2, "rc"), (tag + " dgrad", tokens, i2, o2, "rr"),
                    (tag + " wgrad", o2, i2, tokens, "cr")]
    return out


def model_shapes():
    tps = (1, 2, 4, 8)
    h, f = 4096, 14336
    rows = linear_rows("decoder", 4096, {"qkv": (h, 3 * h, "col"), "q": (h, h, "col"), "o": (h, h, "row"),
                                         "gate": (h, f, "col"), "gate_up": (h, 2 * f, "col"),
                                         "down": (f, h, "row"), "head": (h, 32000, "col")}, tps)
    h, f = 12288, 49152
    rows += linear_rows("gpt3-175b", 2048, {"qkv": (h, 3 * h, "col"), "o": (h, h, "row"), "fc1": (h, f, "col"),
                                            "fc2": (f, h, "row"), "head": (h, 51200, "col")}, tps)
    h, f = 8192, 28672
    rows += linear_rows("llama3-70b", 8192, {"qkv": (h, h + 2 * 1024, "col"), "o": (h, h, "row"),
                                             "gate_up": (h, 2 * f, "col"), "down": (f, h, "row"),
                                             "head": (h, 128256, "col")}, tps)
    merged = {}
    for tag, m, n, k, lay in rows:
        merged.setdefault((m, n, k, lay), []).append(tag)
    return [(tags, m, n, k, lay) for (m, n, k, lay), tags in merged.items()]


def grid_shapes():
    vals = sorted({256 * 2**i for i in range(7)} | {384 * 2**i for i in range(6)})
    pow2 = [v for v in vals if v & (v - 1) == 0]
    first = list(itertools.product(pow2, pow2, pow2))
    rest = [s for s in itertools.product(vals, vals, vals) if s not in set(first)]
    random.Random(0).shuffle(rest)
    return [(["grid"], m, n, k, "rr") for m, n, k in first + rest]


def operand(rows, cols, col_major, dtype):
    """A [rows, cols] operand, row- or column-major, random normal."""
    t = torch.randn(cols, rows, device="cuda").t() if col_major else torch.randn(rows, cols, device="cuda")
    return t.to(dtype) if dtype != FP8 else (t * 0.5).to(FP8)


def make_fn(m, n, k, lay, dtype, fast):
    per_set = (m * k + k * n) * (1 if dtype == FP8 else 2)
    sets = max(1, min(8, math.ceil(256e6 / per_set)))
    if dtype == FP8:
        lay = "rc"
    ops = [(operand(m, k, lay[0] == "c", dtype), operand(k, n, lay[1] == "c", dtype)) for _ in range(sets)]
    i = [0]
    if dtype == FP8:
        one = torch.ones((), device="cuda", dtype=torch.float32)
        def fn():
            a, b = ops[i[0] % sets]; i[0] += 1
            return torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16, use_fast_accum=fast)
    else:
        def fn():
            a, b = ops[i[0] % sets]; i[0] += 1
            return torch.matmul(a, b)
    return fn, lay, sets


def check(rows):
    """Relative error of bf16 and fp8 products against an fp32 reference on fresh random inputs."""
    m, n, k = 1024, 768, 2048
    a, b = torch.randn(m, k, device="cuda"), torch.randn(n, k, device="cuda").t()
    ref = a @ b
    bf = (a.bfloat16() @ b.bfloat16()).float()
    one = torch.ones((), device="cuda")
    f8 = torch._scaled_mm(a.to(FP8), b.to(FP8), scale_a=one, scale_b=one, out_dtype=torch.bfloat16).float()
    rel = lambda x: float((x - ref).norm() / ref.norm())
    rows(kind="check", m=m, n=n, k=k, bf16_rel_err=rel(bf), fp8_rel_err=rel(f8))


def main():
    rows = Rows(sys.argv[1])
    budget = float(os.environ.get("GEMM_BUDGET_S", "200"))
    rows(kind="info", **device_info(), smi_before=smi(), budget_s=budget)
    try:
        check(rows)
    except Exception:
        rows(kind="error", where="check", error=traceback.format_exc())
    plan = []
    for s in model_shapes():
        plan += [("model", s, torch.bfloat16, False), ("model", s, FP8, False), ("model", s, FP8, True)]
    grid = grid_shapes()
    which = os.environ.get("GEMM_GRID", "all")
    if which == "pow2":
        grid = grid[:343]  # the 7 x 7 x 7 powers of two come first
    for s in grid if which != "none" else []:
        plan += [("grid", s, torch.bfloat16, False)] + ([("grid", s, FP8, False)] if which == "all" else [])
    if os.environ.get("GEMM_ORDER") == "reverse":
        n_model = 3 * len(model_shapes())
        plan = plan[:n_model][::-1] + plan[n_model:][::-1]
    rows(kind="plan", order=os.environ.get("GEMM_ORDER", "forward"), grid=which, rows=len(plan))
    t0, done = time.monotonic(), 0
    for src, (tags, m, n, k, lay), dtype, fast in plan:
        if time.monotonic() - t0 > budget:
            break
        try:
            fn, lay2, sets = make_fn(m, n, k, lay, dtype, fast)
            r = time_op(fn)
            del fn
            rows(kind="gemm", src=src, tags=tags, dtype="fp8_e4m3" if dtype == FP8 else "bf16",
                 fast_accum=fast if dtype == FP8 else None, m=m, n=n, k=k, layout=lay2, input_sets=sets,
                 tflops=2.0 * m * n * k / r["median_s"] / 1e12, **r, **clocks())
        except Exception as e:
            rows(kind="error", src=src, m=m, n=n, k=k, layout=lay, dtype=str(dtype), error=repr(e)[:400])
            torch.cuda.empty_cache()
        done += 1
    rows(kind="end", planned=len(plan), done=done, seconds=time.monotonic() - t0, grid_shapes=len(grid),
         smi_after=smi())


main()
