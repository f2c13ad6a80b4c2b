# A linear layer whose feature count is not a multiple of 8 (16 bytes of bf16): the three products
# nn.Linear runs (forward, input gradient, weight gradient) timed for aligned and misaligned widths,
# bf16 torch.matmul, one JSON line per product and shape.
#   python3 bench/device/compute/gemm_misaligned.py OUT.jsonl
# Why: cuBLAS's Hopper kernels (TMA, wgmma) need every matrix's leading dimension to be a multiple of
# 16 bytes; GPT-2's vocabulary, 50257, is odd, and its LM head ran in cutlass_75 "align1" kernels at an
# eighth of the aligned rate (bench/device/steps/gpt2_profile.py). The widths out = 50257 (odd), 50258
# (2 mod 4), 50260 (4 mod 8), 50264 (aligned) and 32003 / 32000 at in = 768, 1600, 4096 and tokens
# 2048, 8192; and in = 4099 (odd input features) at out = 4096. Rows: product, tokens, in, out,
# m n k of the product, median time (gpu_timing.time_op: queued behind a spin kernel, CUDA events) and
# the TFLOP/s of 2 m n k.
import sys, torch
import os
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))  # gpu_timing, decoder
from gpu_timing import Rows, clocks, device_info, time_op


def main():
    rows = Rows(sys.argv[1])
    rows(kind="info", **device_info())
    torch.manual_seed(0)
    shapes = [(t, i, o) for t in (2048, 8192) for i in (768, 1600, 4096) for o in (50257, 50258, 50260, 50264, 32003, 32000)]
    shapes += [(t, 4099, 4096) for t in (2048, 8192)] + [(t, 4096, 4096) for t in (2048, 8192)]
    for tokens, fin, fout in shapes:
        x = torch.randn(tokens, fin, device="cuda", dtype=torch.bfloat16)
        w = torch.randn(fout, fin, device="cuda", dtype=torch.bfloat16)
        dy = torch.randn(tokens, fout, device="cuda", dtype=torch.bfloat16)
        products = {"fwd": (lambda: x @ w.t(), tokens, fout, fin),
                    "dgrad": (lambda: dy @ w, tokens, fin, fout),
                    "wgrad": (lambda: dy.t() @ x, fout, fin, tokens)}
        for name, (fn, m, n, k) in products.items():
            r = time_op(fn)
            rows(kind="linear_gemm", product=name, tokens=tokens, fin=fin, fout=fout, m=m, n=n, k=k,
                 tflops=2 * m * n * k / r["median_s"] / 1e12, **r, **clocks())
            print(name, tokens, fin, fout, round(r["median_s"] * 1e6, 1), "us", round(2 * m * n * k / r["median_s"] / 1e12, 1),
                  "TFLOP/s", flush=True)
        del x, w, dy
    # Which kernel each case runs (the profiler's names), once per width class at tokens 8192, in 1600.
    from torch.profiler import profile, ProfilerActivity
    for fout in (50257, 50258, 50260, 50264):
        x = torch.randn(8192, 1600, device="cuda", dtype=torch.bfloat16)
        w = torch.randn(fout, 1600, device="cuda", dtype=torch.bfloat16)
        dy = torch.randn(8192, fout, device="cuda", dtype=torch.bfloat16)
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            x @ w.t(); dy @ w; dy.t() @ x; torch.cuda.synchronize()
        names = [e.key[:140] for e in prof.key_averages() if (getattr(e, "self_device_time_total", 0) or 0) > 0]
        rows(kind="kernels", fout=fout, fin=1600, tokens=8192, names=names)


if __name__ == "__main__":
    main()
