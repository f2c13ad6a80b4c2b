# Board power while a linear layer's forward GEMM runs back to back for ~3 s: aligned (out = 50264,
# nvjet kernels) against misaligned (out = 50257, cutlass_75 align1; 50258, cutlass_80 align2), tokens
# 8192, in 1600, bf16. One JSON line per case: the NVML power readings (W) sampled every 50 ms
# while the GPU is busy, their median, the SM clock, the throttle mask and the kernel's TFLOP/s.
#   python3 bench/device/compute/gemm_misaligned_power.py OUT.jsonl
# Why: the compute model's power limit (compute/gpu_rates.hpp) counts GEMMs at the law's rate as
# drawing a x P_limit; a fallback kernel at an eighth of that rate need not.
import sys, torch
import os
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))  # gpu_timing, decoder
from gpu_timing import Rows, device_info, power_while


def main():
    rows = Rows(sys.argv[1])
    rows(kind="info", **device_info())
    for fout in (50264, 50257, 50258, 50264):
        x = torch.randn(8192, 1600, device="cuda", dtype=torch.bfloat16)
        w = torch.randn(fout, 1600, device="cuda", dtype=torch.bfloat16)
        m = power_while(lambda: x @ w.t(), batch=20)
        tflops = 2 * 8192 * 1600 * fout * m["calls"] / m["seconds"] / 1e12
        rows(kind="gemm_power", fout=fout, fin=1600, tokens=8192, tflops=tflops, **m)
        print(fout, round(tflops, 1), "TFLOP/s", round(m["median_power_w"]), "W", flush=True)
        del x, w


if __name__ == "__main__":
    main()
