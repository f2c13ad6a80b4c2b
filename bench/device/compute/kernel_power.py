# Board power per kind of kernel: each runs back to back for ~3 s while NVML is read every 50 ms
# (median of the readings after the first 0.2 s), with the SM clock and throttle mask. Kinds: a
# bf16 GEMM at the law's shapes (8192 x 8192 x 8192), causal SDPA forward and backward (GPT-2 XL's
# heads: batch 8, 25 heads of 64, sequence 1024), LayerNorm forward, GELU forward, a residual add,
# and foreach AdamW on 1.5 G bf16 parameters (GPT-2 XL).
#   python3 bench/device/compute/kernel_power.py OUT.jsonl
# Why: the compute model's power limit (compute/gpu_rates.hpp) prices GEMMs at a x P_limit and
# everything else at b x P_limit; this says which other kernels draw like GEMMs.
import sys, torch, torch.nn.functional as F
import os
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))  # gpu_timing, decoder
from gpu_timing import Rows, device_info, power_while


def run(rows, kind, fn):
    m = power_while(fn)
    row = rows(kind="kernel_power", kernel=kind, ms_per_call=m["seconds"] / m["calls"] * 1e3, **m)
    print(kind, round(row["ms_per_call"], 3), "ms", round(row["median_power_w"]), "W", row["sm_mhz"], "MHz", flush=True)


def main():
    rows = Rows(sys.argv[1])
    rows(kind="info", **device_info())
    bf = torch.bfloat16
    a = torch.randn(8192, 8192, device="cuda", dtype=bf); b = torch.randn(8192, 8192, device="cuda", dtype=bf)
    run(rows, "gemm_8192", lambda: a @ b)
    del a, b
    q, k, v = (torch.randn(8, 25, 1024, 64, device="cuda", dtype=bf, requires_grad=True) for _ in range(3))
    run(rows, "sdpa_fwd", lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True))
    o = F.scaled_dot_product_attention(q, k, v, is_causal=True); g = torch.randn_like(o)
    run(rows, "sdpa_fwd_bwd", lambda: torch.autograd.grad(F.scaled_dot_product_attention(q, k, v, is_causal=True), (q, k, v), g))
    del q, k, v, o, g
    x = torch.randn(8 * 1024, 1600, device="cuda", dtype=bf); ln = torch.nn.LayerNorm(1600, device="cuda", dtype=bf)
    run(rows, "layernorm_fwd", lambda: ln(x))
    h = torch.randn(8 * 1024, 6400, device="cuda", dtype=bf)
    run(rows, "gelu_fwd", lambda: F.gelu(h, approximate="tanh"))
    y = torch.randn_like(h)
    run(rows, "add", lambda: h + y)
    del x, h, y
    ps = [torch.randn(1600, 6400, device="cuda", dtype=bf, requires_grad=True) for _ in range(150)]
    for p in ps: p.grad = torch.randn_like(p)
    opt = torch.optim.AdamW(ps, lr=1e-4, foreach=True)
    run(rows, "adamw_foreach_1.5g", opt.step)


if __name__ == "__main__":
    main()
