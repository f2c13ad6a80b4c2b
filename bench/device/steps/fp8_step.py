# One fp8 training step of the calibration decoder on ONE GPU, as Transformer Engine's default
# recipe with current (per-tensor) scaling runs it, against the same step in bf16 (each
# precision the model offers is checked against a measurement). Transformer Engine is not
# installed on the device machine (torch only), so its Linear is rebuilt here from torch ops:
#
#   python3 bench/device/steps/fp8_step.py OUT.jsonl            (QUANT=compiled,eager selects the casts)
#   FP8_PLAN=bf16:1,fp8:1,fp8head:2 python3 bench/device/steps/fp8_step.py OUT.jsonl
#                                   (steps only, compiled casts: precision:micro-batch; fp8head also
#                                    runs the output layer in fp8, as TE does with a te.Linear head)
#
# The model: tp_rank_compute.py's plain step (decoder.py's 8 blocks, hidden 4096, 32 heads, SwiGLU
# 14336, vocab 32000, seq 2048, micro-batch 2, bf16 parameters, fused AdamW). In the fp8 model every
# Linear of the blocks (qkv, o, gate, up, down: 40 per step) is an fp8 linear; the embedding, the
# norms, attention (SDPA), SwiGLU, the output layer (head: bf16 as Megatron keeps it) and the loss
# stay bf16. One fp8 linear y = x W^T, x [M, K], W [N, K] (M = 4096 tokens):
#   forward:  amax(x), amax(W); quantize both to float8_e4m3fn (scale = 448 / amax), each with its
#             transpose (TE's cast_transpose writes both: Hopper's fp8 GEMMs take only the "TN"
#             layout); y = _scaled_mm(xq, Wq^T) in bf16, fast accumulation (TE's fprop default).
#   backward: amax(dy); quantize to float8_e5m2 (scale = 57344 / amax) with its transpose;
#             dgrad dx = _scaled_mm(dyq, (W^T)q^T) (e5m2 x e4m3), wgrad dW = _scaled_mm((dy^T)q, xq)
#             (e5m2 x e4m3), both with split accumulation (TE's dgrad/wgrad default), bf16 out.
#   gate and up share their input h: it is quantized once per step (TE's LayerNormMLP runs them as
#   one fc1 GEMM on one quantized input). Per step: 32 input, 40 weight, 40 gradient quantizations.
# The quantization ("casts"): QUANT=compiled (default) is one torch.compile'd function per format:
#   an amax reduction (reads 2 B/element) and one fused pointwise kernel that scales, saturates and
#   writes the fp8 tensor and its transpose (reads 2 B, writes 1 + 1 B), as TE's amax and
#   cast_transpose kernels; QUANT=eager is plain torch (amax, multiply, cast, transpose copy: 4
#   kernels, reads 2+2+2+1 B, writes 2+1+1 B per element).
# Rows (kind):
#   "numerics": the loss of the same batch and weights in bf16 and fp8, the cosine of their
#               gradients (head, first qkv, last down) before any update.
#   "step":     precision bf16 or fp8 (quant mode): 3 warm-up steps, 6 timed (torch.cuda.synchronize
#               each), 3 under torch.profiler: kernel time per step by class (gemm, attention, cast,
#               optimizer, copies, other) and the top 80 kernels; the losses of every step (a fixed
#               batch, lr 1e-4).
#   "casts":    the step's quantizations alone: every quantize call of one fp8 step (shape, format)
#               timed by gpu_timing.time_op (queued, back to back) and summed, with the bytes moved.
import os, re, sys, time, traceback
import torch, torch.nn as nn
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))  # gpu_timing, decoder
from gpu_timing import Rows, clocks, device_info, smi, time_op
from decoder import H, V, L, SEQ, MB, Block, loss_of

E4, E5 = torch.float8_e4m3fn, torch.float8_e5m2
FMAX = {E4: 448.0, E5: 57344.0}

# Casts before GEMMs: cuDNN's SDPA kernels carry "sm90_", fp8 GEMM kernels may carry "e4m3".
CLASSES = [("attention", r"flash|fmha|sdpa|attention|cudnn"),
           ("gemm", r"gemm|nvjet|xmma|cutlass|sm90_|cublas"),
           ("cast", r"triton|float8|e4m3|e5m2|AbsMax|amax"),
           ("optimizer", r"multi_tensor|foreach|adam"),
           ("copies", r"copy|Memcpy|chunk_cat|CatArray"),
           ("other", r".")]


def klass(name):
    for c, pat in CLASSES:
        if re.search(pat, name, re.I):
            return c


def _quant_eager(x, dtype):
    """(q, q^T contiguous, dequantization scale) of a 2-D bf16 tensor, per-tensor current scaling."""
    amax = torch.linalg.vector_norm(x, float("inf")).float()
    scale = FMAX[dtype] / torch.clamp(amax, min=1e-12)
    q = (x * scale).to(dtype)  # |x scale| <= fmax (1 + 2^-8): rounds to fmax, never to NaN
    return q, q.t().contiguous(), scale.reciprocal()


def _quant_fn(dtype):
    fmax = FMAX[dtype]
    def quant(x):
        amax = x.abs().amax().float()
        scale = fmax / torch.clamp(amax, min=1e-12)
        q = (x.float() * scale).clamp(-fmax, fmax).to(dtype)
        return q, q.t().contiguous(), scale.reciprocal()
    return quant


class Quant:
    mode = "eager"
    compiled = {}
    log = None  # a list while one step's calls are recorded

    @classmethod
    def setup(cls, mode):
        cls.mode = mode
        if mode == "compiled":
            import torch._dynamo
            torch._dynamo.config.cache_size_limit = 64
            cls.compiled = {d: torch.compile(_quant_fn(d), dynamic=False) for d in (E4, E5)}



def quant(x, dtype):
    if Quant.log is not None:
        Quant.log.append((tuple(x.shape), dtype))
    if Quant.mode == "compiled":
        return Quant.compiled[dtype](x)
    return _quant_eager(x, dtype)

_inputs = {}  # id(x) -> (x, quantized x): gate and up quantize their shared input once per step


def quant_input(x2, x):
    hit = _inputs.get(id(x))
    if hit is not None and hit[0] is x:
        return hit[1]
    r = quant(x2, E4)
    _inputs[id(x)] = (x, r)
    return r


class _Fp8Linear(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w):
        x2 = x.reshape(-1, x.shape[-1])
        xq, xqt, xs = quant_input(x2, x)
        wq, wqt, ws = quant(w, E4)
        y = torch._scaled_mm(xq, wq.t(), scale_a=xs, scale_b=ws, out_dtype=torch.bfloat16, use_fast_accum=True)
        ctx.save_for_backward(xqt, wqt, xs, ws)
        ctx.in_shape = x.shape
        return y.view(*x.shape[:-1], w.shape[0])

    @staticmethod
    def backward(ctx, gy):
        xqt, wqt, xs, ws = ctx.saved_tensors
        g2 = gy.reshape(-1, gy.shape[-1])
        gq, gqt, gs = quant(g2, E5)
        dx = torch._scaled_mm(gq, wqt.t(), scale_a=gs, scale_b=ws, out_dtype=torch.bfloat16)   # [M,N] x [N,K]
        dw = torch._scaled_mm(gqt, xqt.t(), scale_a=gs, scale_b=xs, out_dtype=torch.bfloat16)  # [N,M] x [M,K]
        return dx.view(ctx.in_shape), dw


class Fp8Linear(nn.Linear):
    def forward(self, x):
        return _Fp8Linear.apply(x, self.weight)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(V, H)
        self.blocks = nn.ModuleList(Block() for _ in range(L))
        self.norm, self.head = nn.RMSNorm(H), nn.Linear(H, V, bias=False)
    def forward(self, t):
        _inputs.clear()
        x = self.emb(t)
        for b in self.blocks: x = b(x)
        return self.head(self.norm(x))


def make_model(fp8, head_fp8=False):
    torch.manual_seed(0)
    with torch.device("cuda"):
        model = Model().to(torch.bfloat16)
    if fp8:
        for b in model.blocks:
            for lin in (b.qkv, b.o, b.gate, b.up, b.down):
                lin.__class__ = Fp8Linear
    if head_fp8:  # every Linear a te.Linear, the head too (not Megatron's default)
        model.head.__class__ = Fp8Linear
    return model


def tokens_of(mb=MB, seed=1):
    g = torch.Generator(device="cuda").manual_seed(seed)
    return torch.randint(0, V, (mb, SEQ + 1), device="cuda", generator=g)


def numerics(rows):
    tokens = tokens_of()
    out = {}
    for name, fp8 in (("bf16", False), ("fp8", True)):
        model = make_model(fp8)
        loss = loss_of(model(tokens[:, :-1]), tokens)
        loss.backward()
        out[name] = {"loss": loss.item(), "grads": {k: model.get_parameter(k).grad.float().flatten().clone()
                                                      for k in ("head.weight", "blocks.0.qkv.weight",
                                                                "blocks.7.down.weight")}}
        del model, loss
        torch.cuda.empty_cache()
    cos = {k: torch.nn.functional.cosine_similarity(out["bf16"]["grads"][k], out["fp8"]["grads"][k], dim=0).item()
           for k in out["bf16"]["grads"]}
    rel = {k: ((out["bf16"]["grads"][k] - out["fp8"]["grads"][k]).norm() / out["bf16"]["grads"][k].norm()).item()
           for k in out["bf16"]["grads"]}
    rows(kind="numerics", quant=Quant.mode, loss_bf16=out["bf16"]["loss"], loss_fp8=out["fp8"]["loss"],
         loss_rel_diff=out["fp8"]["loss"] / out["bf16"]["loss"] - 1, grad_cosine=cos, grad_rel_err=rel)


def step_row(rows, fp8, mb=MB, head_fp8=False):
    from torch.profiler import profile, ProfilerActivity
    model = make_model(fp8, head_fp8)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    tokens = tokens_of(mb)
    losses = []
    def step():
        loss = loss_of(model(tokens[:, :-1]), tokens)
        loss.backward(); opt.step(); opt.zero_grad(set_to_none=True)
        losses.append(loss.detach())
    t0 = time.perf_counter()
    step(); torch.cuda.synchronize()
    first_s = time.perf_counter() - t0  # includes torch.compile's compilation under QUANT=compiled
    for _ in range(2): step()
    torch.cuda.synchronize()
    times = []
    for _ in range(6):
        t0 = time.perf_counter(); step(); torch.cuda.synchronize(); times.append(time.perf_counter() - t0)
    clk = clocks()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(3): step()
        torch.cuda.synchronize()
    kernels, totals, calls = [], {}, 0
    for e in prof.key_averages():
        t = getattr(e, "self_device_time_total", None)
        if t is None: t = e.self_cuda_time_total
        if not t or "CUDA" not in str(getattr(e, "device_type", "CUDA")): continue
        c = klass(e.key)
        kernels.append({"name": e.key[:200], "class": c, "us_per_step": t / 3, "calls_per_step": e.count / 3})
        totals[c] = totals.get(c, 0) + t / 3
        calls += e.count / 3
    kernels.sort(key=lambda k: -k["us_per_step"])
    rows(kind="step", precision="fp8" if fp8 else "bf16", quant=Quant.mode if fp8 else None, adamw="fused",
         head_fp8=head_fp8, blocks=L, micro_batch=mb, seq=SEQ, params=sum(p.numel() for p in model.parameters()), first_step_s=first_s,
         step_s=times, mean_step_s=sum(times) / 6, class_us_per_step=totals, kernel_us_per_step=sum(totals.values()),
         kernel_calls_per_step=calls, losses=[l.item() for l in losses],
         max_memory_allocated=torch.cuda.max_memory_allocated(), kernels=kernels[:80], **clk)
    del model, opt, prof
    torch.cuda.empty_cache()


def casts_row(rows):
    """Every quantization of one fp8 step, timed alone and summed."""
    model = make_model(True)
    tokens = tokens_of()
    Quant.log = []
    loss_of(model(tokens[:, :-1]), tokens).backward()
    torch.cuda.synchronize()
    log, Quant.log = Quant.log, None
    del model
    torch.cuda.empty_cache()
    per_shape = {}
    for shape, dt in log:
        key = (shape, dt)
        per_shape[key] = per_shape.get(key, 0) + 1
    parts, total_s, elems = [], 0.0, 0
    for (shape, dt), n in per_shape.items():
        xs = [torch.randn(shape, device="cuda", dtype=torch.bfloat16) for _ in range(2)]
        i = [0]
        def fn():
            i[0] += 1
            return quant(xs[i[0] % 2], dt)
        r = time_op(fn)
        numel = shape[0] * shape[1]
        parts.append({"shape": list(shape), "format": str(dt).replace("torch.", ""), "calls_per_step": n,
                      "median_s": r["median_s"], "p10_s": r["p10_s"], "p90_s": r["p90_s"],
                      "bytes_per_call_te": 6 * numel})
        total_s += n * r["median_s"]; elems += n * numel
        del xs
    rows(kind="casts", quant=Quant.mode, calls_per_step=len(log), elements_per_step=elems, cast_s_per_step=total_s,
         bytes_per_step_te=6 * elems, te_bytes_per_s=6 * elems / total_s, parts=parts, **clocks())


def main():
    rows = Rows(sys.argv[1])
    rows(kind="info", **device_info(), smi_before=smi())
    modes = os.environ.get("QUANT", "compiled,eager").split(",")
    plan = [("step", False, None, MB, False)]
    for m in modes:
        plan += [("numerics", True, m, MB, False), ("step", True, m, MB, False), ("casts", True, m, MB, False)]
    plan += [("step", False, None, MB, False)]  # bf16 again at the end: the power state's drift
    if os.environ.get("FP8_PLAN"):  # e.g. "bf16:1,fp8:1,fp8head:2": steps only, casts compiled
        Quant.setup("compiled")
        plan = [("step", p != "bf16", "compiled" if p != "bf16" else None, int(mb), p == "fp8head")
                for p, mb in (e.split(":") for e in os.environ["FP8_PLAN"].split(","))]
    for what, fp8, mode, mb, head_fp8 in plan:
        try:
            if mode and mode != Quant.mode: Quant.setup(mode)
            torch.cuda.reset_peak_memory_stats()
            {"step": lambda: step_row(rows, fp8, mb, head_fp8), "numerics": lambda: numerics(rows),
             "casts": lambda: casts_row(rows)}[what]()
        except Exception:
            rows(kind="error", where=f"{what} fp8={fp8} quant={mode} mb={mb} head_fp8={head_fp8}", error=traceback.format_exc()[-1500:])
        torch.cuda.empty_cache()
    rows(kind="end", smi_after=smi())


main()
