# The fp8 step's tables (scenarios/validation/h100x1/measured/README.md, "fp8 steps"): the measured
# steps of fp8_step.py against commsim's predictions (which price the casts).
# No GPU:
#   python3 bench/device/analysis/analyze_fp8_step.py build/scenarios/commsim
# Cast model (not in commsim yet): every quantized tensor of n elements costs 6 B per element
# (amax: read 2 B; cast_transpose: read 2 B, write the e4m3/e5m2 tensor and its transpose, 1 + 1 B)
# at BW_cast, 3 kernels each (amax, scale, cast_transpose) at the launch gap, and Megatron's
# output layer stays bf16 (commsim prices it at the fp8 law).
import json, os, subprocess, sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..")
MEAS = os.path.join(ROOT, "scenarios/validation/h100x1/measured")
H, F, V, L = 4096, 14336, 32000, 8
LINS = [(3 * H, H), (H, H), (F, H), (F, H), (H, F)]  # (N, K) of qkv, o, gate, up, down
HBM = 3.35 / 4.8  # the GEMM epilogue's transfer (models/compute/gpu_rates.hpp)
BF16, FP8 = (6.93e-6, 793e12, 8.04e12 * HBM), (7.06e-6, 1492e12, 4.64e12 * HBM)
GAP = 2.6e-6  # compute.launch_gap
BW_ELEMENTWISE = 2.988e12  # commsim's "elementwise" kind on the H100 (4.26 TB/s on the H200, transferred)


def gemm(law, m, n, k):
    t0, flops, bw = law
    return t0 + 2 * m * n * k / flops + 2 * m * n / bw


def linear(law, n, k, m):  # forward, dgrad, wgrad
    return gemm(law, m, n, k) + gemm(law, m, k, n) + gemm(law, n, k, m)


def elements(mb, head_fp8=False):
    """Quantized elements per step: weights, inputs (gate and up share one), output gradients."""
    m = mb * 2048
    w = L * sum(n * k for n, k in LINS)
    a = L * (3 * m * H + m * F)
    g = L * sum(m * n for n, k in LINS)
    if head_fp8:
        w, a, g = w + V * H, a + m * H, g + m * V
    return w, a, g


def rows():
    out = []
    for f in ("fp8_steps.jsonl", "fp8_steps_mb.jsonl"):
        out += [r for r in map(json.loads, open(os.path.join(MEAS, f))) if r["kind"] == "step"]
    return out


def commsim(binary, precision, mb):
    toml = os.path.join(ROOT, f"scenarios/validation/h100x1/fp8_step_{precision}.toml")
    out = subprocess.run([binary, "run", toml, "--set", f"training.micro_batch={mb}", "--json"], check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)["step_time_s"]


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build/scenarios/commsim")
    groups = {}
    for r in rows():
        key = (r["precision"], r.get("quant"), r["micro_batch"], bool(r.get("head_fp8")))
        groups.setdefault(key, []).append(r)
    mean = lambda rs, f: sum(f(r) for r in rs) / len(rs)
    # BW_cast from the micro-batch 2 steps alone (compiled casts, bf16 head): the other rows check it.
    fit = [r for (p, q, mb, hd), rs in groups.items() if p == "fp8" and q == "compiled" and mb == 2 and not hd
           for r in rs]
    bw_cast = 6 * sum(elements(2)) / (mean(fit, lambda r: r["class_us_per_step"]["cast"]) * 1e-6)
    print(f"BW_cast (micro-batch 2, {len(fit)} runs) = {bw_cast / 1e12:.3f} TB/s at 6 B per element\n")
    # commsim prices the casts (models/workload/compute.cpp: 6 B per element at the
    # Fp8Cast rate, 3 launches per tensor, fp8 weights once per step, the output layer in bf16), so
    # its prediction is compared as it is; "cast model" is that model's cast time for the row.
    print("| step | runs | measured ms | kernels ms | GEMM ms | cast ms | commsim | error | cast model ms |")
    print("|---|---|---|---|---|---|---|---|---|")
    for (p, q, mb, hd), rs in sorted(groups.items(), key=lambda kv: (kv[0][0], str(kv[0][1]), kv[0][2], kv[0][3])):
        m = mean(rs, lambda r: r["mean_step_s"]) * 1e3
        kern = mean(rs, lambda r: r["kernel_us_per_step"]) / 1e3
        gm = mean(rs, lambda r: r["class_us_per_step"]["gemm"]) / 1e3
        cast = mean(rs, lambda r: r["class_us_per_step"].get("cast", 0)) / 1e3
        c = commsim(binary, p, mb) * 1e3
        name = f"{p}{' ' + q if q else ''} mb {mb}{' head fp8' if hd else ''}"
        model = ""
        if p == "fp8" and q == "compiled":
            n = sum(elements(mb, hd))
            model = f"{6 * n / bw_cast * 1e3 + 3 * (112 + 3 * hd) * GAP * 1e3:.2f}"
        print(f"| {name} | {len(rs)} | {m:.2f} | {kern:.2f} | {gm:.2f} | {cast:.2f} | {c:.2f} | {100 * (c / m - 1):+.1f} % | {model} |")

main()
