# Board power while a linear layer's forward GEMM runs back to back for ~3 s: aligned (out = 50264,
# nvjet kernels) against misaligned (out = 50257, cutlass_75 align1; 50258, cutlass_80 align2), tokens
# 8192, in 1600, bf16. One JSON line per case: the NVML power readings (W) sampled every 50 ms
# while the GPU is busy, their median, the SM clock, the throttle mask and the kernel's TFLOP/s.
#   PYTHONPATH=bench/device python3 bench/device/gemm_misaligned_power.py OUT.jsonl
# Why: the compute model's power limit (compute/gpu_rates.hpp) counts GEMMs at the law's rate as
# drawing a x P_limit; a fallback kernel at an eighth of that rate need not.
import statistics, sys, threading, time, torch
from gpu_timing import Rows, clocks, device_info


def main():
    rows = Rows(sys.argv[1])
    rows(kind="info", **device_info())
    for fout in (50264, 50257, 50258, 50264):
        x = torch.randn(8192, 1600, device="cuda", dtype=torch.bfloat16)
        w = torch.randn(fout, 1600, device="cuda", dtype=torch.bfloat16)
        for _ in range(3): x @ w.t()
        torch.cuda.synchronize()
        samples, stop = [], threading.Event()
        def sample():
            while not stop.is_set():
                time.sleep(0.05); samples.append(clocks())
        t = threading.Thread(target=sample); t.start()
        t0 = time.perf_counter(); n = 0
        while time.perf_counter() - t0 < 3.0:
            for _ in range(20): x @ w.t()
            n += 20
            torch.cuda.synchronize()
        dt = time.perf_counter() - t0
        stop.set(); t.join()
        p = [s.get("power_w") for s in samples[4:] if s.get("power_w")]
        rows(kind="gemm_power", fout=fout, fin=1600, tokens=8192, calls=n, seconds=dt,
             tflops=2 * 8192 * 1600 * fout * n / dt / 1e12, power_w=p, median_power_w=statistics.median(p),
             sm_mhz=statistics.median(s.get("sm_mhz", 0) for s in samples[4:]),
             throttle=[s.get("throttle") for s in samples[4:]][-5:])
        print(fout, round(2 * 8192 * 1600 * fout * n / dt / 1e12, 1), "TFLOP/s", round(statistics.median(p)), "W", flush=True)
        del x, w


if __name__ == "__main__":
    main()
