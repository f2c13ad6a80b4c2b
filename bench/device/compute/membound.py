# Memory-bound work on one GPU: achieved bytes/s of the kernels around the
# GEMMs of the calibration decoder (tokens T = 4096 = 2 x 2048, hidden 4096, FFN 14336, vocab 32000),
# and scaled_dot_product_attention forward and backward. One JSON line per measurement.
#
#   python3 bench/device/compute/membound.py OUT.jsonl
#
# Each op is timed at the decoder's size ("decoder", rotating over 4 input sets so that repeats do not
# sit in the 60 MB L2) and at 8x that size ("large", the asymptotic HBM rate). `bytes` is the fewest
# bytes the op must move (each input read once, each output written once); `eager_bytes`, where it
# differs, what PyTorch's eager kernels move (an intermediate written and read back). Rates are
# bytes / median time. Backward rows time forward+backward (torch.autograd.grad, so no .grad
# accumulates) and subtract the forward's median.
#   copy        y.copy_(x), bf16                                   bytes 2+2 per element
#   add         a + b (residual), bf16                             2+2+2
#   rmsnorm     nn.RMSNorm(4096) fwd, bf16 in/out                  2+2;   bwd (dy, x in; dx out) 2+2+2
#   swiglu      silu(g) * u, bf16 [T, 14336]                       2+2+2 (eager: silu writes and mul reads
#               an intermediate: +2+2);   bwd (g, u, dy in; dg, du out) 5 x 2
#   cast        bf16 -> fp32 and fp32 -> bf16                      2+4
#   ce_fp32     F.cross_entropy over fp32 logits [T, 32000]      fwd 4 per logit (read), bwd 4+4
#   loss_of     the decoder's loss: bf16 logits .float() then cross-entropy, fwd+bwd (per logit;
#               compute.hpp charges kLossBytesPerLogit = 16 B)
#   sdpa        F.scaled_dot_product_attention(q, k, v, is_causal=True), q/k/v [2, 32, 2048, 128] bf16,
#               per backend (flash, cuDNN, memory-efficient, and the default choice); FLOPs counted with
#               causal as half: fwd 4*b*h*s^2*d/2, bwd 2.5x fwd (FlashAttention-2's count); TFLOP/s.
import sys, traceback
import torch, torch.nn as nn, torch.nn.functional as F
import os
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))  # gpu_timing, decoder
from gpu_timing import Rows, clocks, device_info, smi, time_op

T, H, FFN, V = 4096, 4096, 14336, 32000
BF = torch.bfloat16


def rot(make, sets):
    data = [make() for _ in range(sets)]
    i = [0]
    def nxt():
        i[0] += 1
        return data[i[0] % sets]
    return nxt


def rate(rows, op, size, fn, bytes_, eager_bytes=None, **extra):
    r = time_op(fn)
    return rows(kind="membound", op=op, size=size, bytes=bytes_, eager_bytes=eager_bytes or bytes_,
                gbps=bytes_ / r["median_s"] / 1e9, eager_gbps=(eager_bytes or bytes_) / r["median_s"] / 1e9,
                **extra, **r, **clocks())


def elementwise(rows):
    for size, scale, sets in (("decoder", 1, 4), ("large", 8, 1)):
        n = T * scale * H
        x = rot(lambda: torch.randn(n, device="cuda", dtype=BF), sets)
        y = torch.empty(n, device="cuda", dtype=BF)
        rate(rows, "copy", size, lambda: y.copy_(x()), 4 * n, elements=n)
        ab = rot(lambda: (torch.randn(n, device="cuda", dtype=BF), torch.randn(n, device="cuda", dtype=BF)), sets)
        def add():
            a, b = ab(); return a + b
        rate(rows, "add", size, add, 6 * n, elements=n)
        del ab
        rate(rows, "cast_bf16_to_fp32", size, lambda: x().float(), 6 * n, elements=n)
        x32 = rot(lambda: torch.randn(n, device="cuda"), sets)
        rate(rows, "cast_fp32_to_bf16", size, lambda: x32().to(BF), 6 * n, elements=n)
        del x, x32, y
        # RMSNorm over rows of 4096
        rows_n = T * scale
        norm = nn.RMSNorm(H, device="cuda", dtype=BF)
        xs = rot(lambda: torch.randn(rows_n, H, device="cuda", dtype=BF, requires_grad=True), sets)
        dy = torch.randn(rows_n, H, device="cuda", dtype=BF)
        e = rows_n * H
        f = rate(rows, "rmsnorm_fwd", size, lambda: norm(xs()), 4 * e, elements=e)
        def nb():
            x = xs(); return torch.autograd.grad(norm(x), (x, norm.weight), dy)
        r = time_op(nb)
        bwd = r["median_s"] - f["median_s"]
        rows(kind="membound", op="rmsnorm_bwd", size=size, bytes=6 * e, eager_bytes=6 * e, elements=e,
             fwdbwd_median_s=r["median_s"], median_s=bwd, gbps=6 * e / bwd / 1e9, **clocks())
        del xs, dy, norm
        # SwiGLU on [rows, FFN]
        e = rows_n * FFN
        gu = rot(lambda: (torch.randn(rows_n, FFN, device="cuda", dtype=BF, requires_grad=True),
                          torch.randn(rows_n, FFN, device="cuda", dtype=BF, requires_grad=True)), sets if scale == 1 else 1)
        dy = torch.randn(rows_n, FFN, device="cuda", dtype=BF)
        def sw():
            g, u = gu(); return F.silu(g) * u
        f = rate(rows, "swiglu_fwd", size, sw, 6 * e, 10 * e, elements=e)
        def swb():
            g, u = gu(); return torch.autograd.grad(F.silu(g) * u, (g, u), dy)
        r = time_op(swb)
        bwd = r["median_s"] - f["median_s"]
        rows(kind="membound", op="swiglu_bwd", size=size, bytes=10 * e, elements=e, fwdbwd_median_s=r["median_s"],
             median_s=bwd, gbps=10 * e / bwd / 1e9, **clocks())
        del gu, dy
        torch.cuda.empty_cache()


def cross_entropy(rows):
    tgt = torch.randint(0, V, (T,), device="cuda")
    e = T * V
    l32 = rot(lambda: torch.randn(T, V, device="cuda", requires_grad=True), 2)
    f = rate(rows, "ce_fp32_fwd", "decoder", lambda: F.cross_entropy(l32(), tgt), 4 * e, logits=e)
    def ceb():
        x = l32(); return torch.autograd.grad(F.cross_entropy(x, tgt), (x,))
    r = time_op(ceb)
    rows(kind="membound", op="ce_fp32_bwd", size="decoder", bytes=8 * e, logits=e, fwdbwd_median_s=r["median_s"],
         median_s=r["median_s"] - f["median_s"], gbps=8 * e / (r["median_s"] - f["median_s"]) / 1e9,
         fwdbwd_s_per_logit=r["median_s"] / e, **clocks())
    del l32
    lb = rot(lambda: torch.randn(T, V, device="cuda", dtype=BF, requires_grad=True), 2)
    def lossb():
        x = lb(); return torch.autograd.grad(F.cross_entropy(x.float(), tgt), (x,))
    r = time_op(lossb)
    rows(kind="membound", op="loss_of_fwdbwd", size="decoder", logits=e, median_s=r["median_s"],
         s_per_logit=r["median_s"] / e, bytes_per_logit_at_16=16, gbps_at_16=16 * e / r["median_s"] / 1e9,
         **{k: v for k, v in r.items() if k != "median_s"}, **clocks())
    del lb
    torch.cuda.empty_cache()


def attention(rows):
    from torch.nn.attention import SDPBackend, sdpa_kernel
    b, h, s, d = 2, 32, 2048, 128
    fwd_flops = 4 * b * h * s * s * d / 2
    qkv = rot(lambda: [torch.randn(b, h, s, d, device="cuda", dtype=BF, requires_grad=True) for _ in range(3)], 2)
    do = torch.randn(b, h, s, d, device="cuda", dtype=BF)
    backends = [("flash", SDPBackend.FLASH_ATTENTION), ("cudnn", SDPBackend.CUDNN_ATTENTION),
                ("efficient", SDPBackend.EFFICIENT_ATTENTION), ("default", None)]
    for name, be in backends:
        try:
            def fwd():
                q, k, v = qkv(); return F.scaled_dot_product_attention(q, k, v, is_causal=True)
            def fb():
                q, k, v = qkv()
                return torch.autograd.grad(F.scaled_dot_product_attention(q, k, v, is_causal=True), (q, k, v), do)
            if be is None:
                f, r = time_op(fwd), time_op(fb)
            else:
                with sdpa_kernel([be]):
                    f, r = time_op(fwd), time_op(fb)
            bwd = r["median_s"] - f["median_s"]
            rows(kind="sdpa", backend=name, b=b, heads=h, seq=s, head_dim=d, causal=True, fwd_s=f["median_s"],
                 fwdbwd_s=r["median_s"], bwd_s=bwd, fwd_tflops=fwd_flops / f["median_s"] / 1e12,
                 bwd_tflops=2.5 * fwd_flops / bwd / 1e12, fwdbwd_tflops=3.5 * fwd_flops / r["median_s"] / 1e12,
                 **clocks())
        except Exception as e:
            rows(kind="error", where="sdpa " + name, error=repr(e)[:400])


def main():
    rows = Rows(sys.argv[1])
    rows(kind="info", **device_info(), smi_before=smi())
    for part in (elementwise, cross_entropy, attention):
        try:
            part(rows)
        except Exception:
            rows(kind="error", where=part.__name__, error=traceback.format_exc())
        torch.cuda.empty_cache()
    rows(kind="end", smi_after=smi())


main()
