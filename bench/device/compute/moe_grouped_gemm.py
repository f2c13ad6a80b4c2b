# The expert GEMMs of an MoE layer on one GPU: L local experts, each given m tokens, its gate/up
# projection (h -> 2f) and its down projection (f -> h), each product of a linear layer (forward,
# input gradient "dgrad", weight gradient "wgrad") timed three ways:
#   grouped: one torch._grouped_mm over the L experts (the grouped GEMM of torchtitan's MoE and of
#            Megatron-Core's --moe-grouped-gemm: one launch for every expert);
#   loop:    L torch.mm, one per expert (Megatron-Core's SequentialMLP);
#   dense:   one GEMM of all L x m tokens against one expert's weight (the same FLOPs in one product:
#            the rate the law gives a large GEMM).
# Each method is captured in a CUDA graph and its replays timed back to back (gpu_timing.time_op),
# so the loop's time is the GPU's, not Python's launches. Rows: shape name, h, f, experts L, tokens per
# expert m, projection (up / down), product, method, the per-expert GEMM's m n k, median seconds and the
# TFLOP/s of L x 2mnk; and once per method a check that grouped and loop agree, and the kernels'
# names. Why: commsim prices the L experts' products as L separate GEMMs of its GEMM law, each paying
# the law's fixed cost t0 (6.9 us on one H200); a grouped GEMM pays a launch once.
#   python3 bench/device/compute/moe_grouped_gemm.py OUT.jsonl
# Shapes: (h, moe_ffn) of Qwen3-30B-A3B (2048, 768), Qwen3-235B-A22B (4096, 1536), gpt-oss-120b
# (2880, 2880), DeepSeek-V3 (7168, 2048), Llama 4 (5120, 8192), Mixtral 8x7B (4096, 14336).
import os, sys, torch
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))  # gpu_timing
from gpu_timing import Rows, clocks, device_info, time_op

SHAPES = [("qwen3_30b_a3b", 2048, 768, (8, 32, 128)), ("qwen3_235b_a22b", 4096, 1536, (8, 32, 128)),
          ("gpt_oss_120b", 2880, 2880, (8, 32, 128)), ("deepseek_v3", 7168, 2048, (8, 32, 64)),
          ("llama4", 5120, 8192, (8, 16)), ("mixtral_8x7b", 4096, 14336, (2, 8))]
TOKENS = [int(t) for t in os.environ.get("MOE_TOKENS", "32,128,512,2048").split(",")]


def graphed(fn):
    """fn captured once in a CUDA graph: its replay launches the same kernels without Python."""
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(2): fn()
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        fn()
    return g.replay


def products(L, m, fin, fout):
    """The three products of a linear fin -> fout over L experts of m tokens, each three ways."""
    x = torch.randn(L * m, fin, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(L, fout, fin, device="cuda", dtype=torch.bfloat16) * 0.02  # as nn.Linear: out x in
    dy = torch.randn(L * m, fout, device="cuda", dtype=torch.bfloat16)
    offs = (torch.arange(1, L + 1, device="cuda", dtype=torch.int32) * m)
    xs, dys = x.view(L, m, fin), dy.view(L, m, fout)
    out = {
        # per-expert GEMM shapes (m, n, k) as compute::linear_seconds names them
        "fwd": ((m, fout, fin),
                {"grouped": lambda: torch._grouped_mm(x, w.transpose(-2, -1), offs=offs),
                 "loop": lambda: [torch.mm(xs[e], w[e].t()) for e in range(L)],
                 "dense": lambda: torch.mm(x, w[0].t())}),
        "dgrad": ((m, fin, fout),
                  {"grouped": lambda: torch._grouped_mm(dy, w, offs=offs),
                   "loop": lambda: [torch.mm(dys[e], w[e]) for e in range(L)],
                   "dense": lambda: torch.mm(dy, w[0])}),
        "wgrad": ((fout, fin, m),
                  {"grouped": lambda: torch._grouped_mm(dy.t(), x, offs=offs),
                   "loop": lambda: [torch.mm(dys[e].t(), xs[e]) for e in range(L)],
                   "dense": lambda: torch.mm(dy.t(), x)}),
    }
    return out, (x, w, dy, offs)


def main():
    rows = Rows(sys.argv[1])
    rows(kind="info", **device_info())
    torch.manual_seed(0)
    # Grouped and loop agree (forward of one small case), and the kernels each runs.
    prods, keep = products(8, 128, 2048, 1536)
    g = prods["fwd"][1]["grouped"]().float()
    l = torch.cat(prods["fwd"][1]["loop"]()).float()
    rows(kind="check", what="grouped vs loop forward, L 8 m 128 2048->1536", max_abs=float((g - l).abs().max()),
         max_ref=float(l.abs().max()))
    from torch.profiler import profile, ProfilerActivity
    for name, (_, ways) in prods.items():
        for way, fn in ways.items():
            with profile(activities=[ProfilerActivity.CUDA]) as prof:
                fn(); torch.cuda.synchronize()
            names = [e.key[:160] for e in prof.key_averages() if (getattr(e, "self_device_time_total", 0) or 0) > 0]
            rows(kind="kernels", product=name, method=way, names=names)
    del prods, keep
    for shape, h, f, experts in SHAPES:
        for L in experts:
            for m in TOKENS:
                for proj, fin, fout in (("up", h, 2 * f), ("down", f, h)):
                    try:
                        prods, keep = products(L, m, fin, fout)
                    except torch.cuda.OutOfMemoryError:
                        rows(kind="skipped", shape=shape, L=L, m=m, proj=proj, why="out of memory")
                        torch.cuda.empty_cache()
                        continue
                    for name, ((gm, gn, gk), ways) in prods.items():
                        for way, fn in ways.items():
                            try:
                                r = time_op(graphed(fn))
                            except Exception as e:  # an unsupported layout: say so, keep going
                                rows(kind="error", shape=shape, L=L, m=m, proj=proj, product=name, method=way,
                                     error=str(e)[:300])
                                continue
                            flops = L * 2.0 * gm * gn * gk
                            rows(kind="moe_gemm", shape=shape, h=h, f=f, L=L, tokens_per_expert=m, proj=proj,
                                 product=name, method=way, m=gm, n=gn, k=gk, tflops=flops / r["median_s"] / 1e12,
                                 **r, **clocks())
                        print(shape, L, m, proj, name, flush=True)
                    del prods, keep
                    torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
