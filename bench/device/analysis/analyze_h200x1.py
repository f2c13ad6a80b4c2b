# Prints the tables of scenarios/validation/h200x1/ANALYSIS.md from the raw measurements in
# scenarios/validation/h200x1/measured/ (pure Python, no GPU, no numpy):
#   python3 bench/device/analysis/analyze_h200x1.py [MEASURED_DIR]
# Sections: GEMM repeatability, per-layer-set GEMM rate by model and TP, a fit of simple physical GEMM
# laws on the grid (checked on the model rows), memory-bound rates, AdamW, TCP, memory peaks against
# the term-by-term estimate, and the step profiles' kernel time by class.
import json, math, os, statistics as st, sys

D = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "../../../scenarios/validation/h200x1/measured")


def load(name, kind=None):
    p = os.path.join(D, name)
    rows = [json.loads(l) for l in open(p) if l.strip()]
    return [r for r in rows if kind is None or r.get("kind") == kind]


def key(r):
    return (r["src"], r["dtype"], r["fast_accum"], r["m"], r["n"], r["k"], r["layout"])


first, rep = load("gemm.jsonl", "gemm"), load("gemm_repeat.jsonl", "gemm")
R = {key(r): r for r in rep}


def secs(r):
    """Median time of a row; the mean of both runs where the repeat measured it too."""
    t = 2 * r["m"] * r["n"] * r["k"] / (r["tflops"] * 1e12)
    if key(r) in R:
        t2 = 2 * r["m"] * r["n"] * r["k"] / (R[key(r)]["tflops"] * 1e12)
        return (t + t2) / 2
    return t


def gemm_repeat():
    print("## GEMM: repeatability (second call, reverse order, vs first)\n")
    print("| rows | n | median change | median abs change | max abs change |\n|---|---|---|---|---|")
    F = {key(r): r for r in first}
    for src in ("model", "grid"):
        for dt in ("bf16", "fp8_e4m3"):
            d = [(r["tflops"] / F[key(r)]["tflops"] - 1) * 100 for r in rep if key(r) in F and r["src"] == src and r["dtype"] == dt]
            if d:
                print(f"| {src} {dt} | {len(d)} | {st.median(d):+.1f} % | {st.median(map(abs, d)):.1f} % | {max(map(abs, d)):.1f} % |")
    print()


BLOCK = {"decoder": ["qkv", "o", "gate", "gate", "down"],  # gate and up have the same shape
         "gpt3-175b": ["qkv", "o", "fc1", "fc2"], "llama3-70b": ["qkv", "o", "gate_up", "down"]}


def gemm_models():
    print("## GEMM: achieved TFLOP/s of one block's linear layers (fwd + dgrad + wgrad), by model and TP\n")
    print("Sum of FLOPs over sum of times (mean of the two calls); head separately. fp8: _scaled_mm, every product in")
    print("the TN layout it requires, without (acc) and with fast accumulation (fast).\n")
    print("| model | TP | bf16 block | fp8 block (acc / fast) | bf16 head | smallest-layer bf16 | vs TP 1 (bf16) |\n|---|---|---|---|---|---|---|")
    model = [r for r in first if r["src"] == "model"]
    for m, layers in BLOCK.items():
        base = None
        for tp in (1, 2, 4, 8):
            def rate(dtype, fast, names):
                fl = t = 0
                for name in names:
                    for pas in ("fwd", "dgrad", "wgrad"):
                        tag = f"{m} tp{tp} {name} {pas}"
                        rr = [r for r in model if tag in r["tags"] and r["dtype"] == dtype and r["fast_accum"] == fast]
                        if not rr:
                            return None, None
                        r = rr[0]
                        fl += 2 * r["m"] * r["n"] * r["k"]; t += secs(r)
                return fl / t / 1e12, None
            bf, _ = rate("bf16", None, layers)
            f8, _ = rate("fp8_e4m3", False, layers)
            f8f, _ = rate("fp8_e4m3", True, layers)
            hd, _ = rate("bf16", None, ["head"])
            small = min(rate("bf16", None, [n])[0] for n in set(layers))
            base = base or bf
            print(f"| {m} | {tp} | {bf:.0f} | {f8:.0f} / {f8f:.0f} | {hd:.0f} | {small:.0f} | {bf / base:.3f} |")
    print()


TILES = ((128, 128), (128, 256), (256, 128))


def waves(m, n, tm, tn, sms=132):
    return math.ceil(math.ceil(m / tm) * math.ceil(n / tn) / sms)


# Each law: (parameter names, initial values, t(row, params)). R in FLOP/s, BW in B/s, t0 and c in s.
LAWS = {
    "L0 t = F/R (compute.hpp today)": (["R"], [7e14], lambda r, p: r["F"] / p[0]),
    "L1 t = t0 + F/R": (["R", "t0"], [7e14, 5e-6], lambda r, p: p[1] + r["F"] / p[0]),
    "L2 t = t0 + F/R + B/BW": (["R", "t0", "BW"], [8e14, 5e-6, 4e12], lambda r, p: p[1] + r["F"] / p[0] + r["B"] / p[2]),
    "L3 t = t0 + min over tiles of waves x (c + 2 tm tn k / (R/132))":
        (["R", "t0", "c"], [8e14, 5e-6, 1e-6],
         lambda r, p: p[1] + min(waves(r["m"], r["n"], a, b) * (p[2] + 2 * a * b * r["k"] * 132 / p[0]) for a, b in TILES)),
    "L4 t = t0 + F/R + C/BWc, C = 2mn (output written after the k loop, not overlapped)":
        (["R", "t0", "BWc"], [8e14, 5e-6, 6e12], lambda r, p: p[1] + r["F"] / p[0] + r["C"] / p[2]),
}


def nelder_mead(f, x0, iters=300):
    n = len(x0)
    pts = [list(x0)] + [[x0[j] + (0.3 if j == i else 0) for j in range(n)] for i in range(n)]
    vals = [f(p) for p in pts]
    for _ in range(iters):
        order = sorted(range(n + 1), key=lambda i: vals[i])
        pts, vals = [pts[i] for i in order], [vals[i] for i in order]
        c = [sum(p[j] for p in pts[:-1]) / n for j in range(n)]
        def at(t):
            return [c[j] + t * (pts[-1][j] - c[j]) for j in range(n)]
        xr = at(-1); fr = f(xr)
        if fr < vals[0]:
            xe = at(-2); fe = f(xe)
            pts[-1], vals[-1] = (xe, fe) if fe < fr else (xr, fr)
        elif fr < vals[-2]:
            pts[-1], vals[-1] = xr, fr
        else:
            xc = at(0.5); fc = f(xc)
            if fc < vals[-1]:
                pts[-1], vals[-1] = xc, fc
            else:
                pts = [pts[0]] + [[pts[0][j] + 0.5 * (p[j] - pts[0][j]) for j in range(n)] for p in pts[1:]]
                vals = [vals[0]] + [f(p) for p in pts[1:]]
    i = min(range(n + 1), key=lambda i: vals[i])
    return pts[i]


def fit(rows, law):
    """Minimises the mean squared log error over log-parameters."""
    names, x0, t = law
    def loss(lx):
        p = [math.exp(v) for v in lx]
        return sum(math.log(t(r, p) / r["t"]) ** 2 for r in rows) / len(rows)
    p = [math.exp(v) for v in nelder_mead(loss, [math.log(v) for v in x0])]
    return dict(zip(names, p)), p


def gemm_laws():
    print("## GEMM: simple physical laws fitted on the bf16 grid (2197 shapes), checked on the model rows\n")
    def prep(rows):
        return [{"m": r["m"], "n": r["n"], "k": r["k"], "F": 2 * r["m"] * r["n"] * r["k"],
                 "B": 2 * (r["m"] * r["k"] + r["k"] * r["n"] + r["m"] * r["n"]), "C": 2 * r["m"] * r["n"], "t": secs(r)}
                for r in rows]
    grid = prep([r for r in first if r["src"] == "grid" and r["dtype"] == "bf16"])
    model = prep([r for r in first if r["src"] == "model" and r["dtype"] == "bf16"])
    fp8g = prep([r for r in first if r["src"] == "grid" and r["dtype"] == "fp8_e4m3"])
    fp8m = prep([r for r in first if r["src"] == "model" and r["dtype"] == "fp8_e4m3" and not r["fast_accum"]])
    def errs(rows, t, p):
        e = sorted(abs(t(r, p) / r["t"] - 1) * 100 for r in rows)
        return f"{st.median(e):.1f} / {e[int(.9 * len(e))]:.1f} / {e[-1]:.0f}"
    print("Median / p90 / max |time error| in %; parameters fitted on the grid of the same dtype (least squares of")
    print("log time); the model rows (decoder, GPT-3, Llama-3-70B shapes, three layouts) are out of sample.\n")
    print("| law | dtype | fitted parameters | grid | model rows |\n|---|---|---|---|---|")
    for name, law in LAWS.items():
        for dt, g, m in (("bf16", grid, model), ("fp8", fp8g, fp8m)):
            if dt == "fp8" and not name.startswith(("L1", "L3", "L4")):
                continue
            named, p = fit(g, law)
            txt = ", ".join(f"{k} {v / 1e12:.0f} T" if k == "R" else (f"{k} {v / 1e12:.2f} TB/s" if k.startswith("BW") else f"{k} {v * 1e6:.2f} us")
                            for k, v in named.items())
            print(f"| {name} | {dt} | {txt} | {errs(g, law[2], p)} | {errs(m, law[2], p)} |")
            if name.startswith("L4"):
                worst = sorted(g, key=lambda r: -abs(law[2](r, p) / r["t"] - 1))[:6]
                print("|  | | worst grid shapes (m, n, k: predicted / measured) | " +
                      ", ".join(f"{r['m']}x{r['n']}x{r['k']}: {law[2](r, p) / r['t']:.2f}" for r in worst) + " | |")
    print()
    print("bf16 TFLOP/s at m = 4096 (tokens), layout rr, by n (rows) and k (columns), first call:\n")
    ks = [256, 512, 1024, 2048, 4096, 8192, 16384]
    G = {(r["m"], r["n"], r["k"]): r["tflops"] for r in first if r["src"] == "grid" and r["dtype"] == "bf16"}
    print("| n \\ k | " + " | ".join(map(str, ks)) + " |")
    print("|---" * (len(ks) + 1) + "|")
    for n in ks:
        print(f"| {n} | " + " | ".join(f"{G[(4096, n, k)]:.0f}" for k in ks) + " |")
    print()
    print("fp8 / bf16 speed ratio on the grid, by min(m, n, k):\n")
    F8 = {(r["m"], r["n"], r["k"]): r["tflops"] for r in first if r["src"] == "grid" and r["dtype"] == "fp8_e4m3"}
    print("| min dim | shapes | median ratio | max fp8 TFLOP/s |\n|---|---|---|---|")
    for lo in (256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192):
        s = [k for k in G if min(k) == lo and k in F8]
        if s:
            print(f"| {lo} | {len(s)} | {st.median(F8[k] / G[k] for k in s):.2f} | {max(F8[k] for k in s):.0f} |")
    print()


def membound():
    print("## Memory-bound kernels (bf16 unless named; GB/s = fewest bytes / median time)\n")
    print("| op | size | median (us) | GB/s | note |\n|---|---|---|---|---|")
    for r in load("membound.jsonl", "membound"):
        note = ""
        if r.get("eager_bytes") and r["eager_bytes"] != r["bytes"] and "eager_gbps" in r and r["eager_gbps"]:
            note = f"eager bytes: {r['eager_gbps']:.0f} GB/s"
        if r["op"] == "loss_of_fwdbwd":
            print(f"| loss_of fwd+bwd (bf16 logits .float(), CE) | decoder | {r['median_s'] * 1e6:.0f} | "
                  f"{r['gbps_at_16']:.0f} at 16 B/logit | {r['s_per_logit'] * 1e12:.1f} ps per logit |")
            continue
        print(f"| {r['op']} | {r['size']} | {r['median_s'] * 1e6:.0f} | {r['gbps']:.0f} | {note} |")
    print("\n| SDPA backend (b 2, 32 heads, s 2048, d 128, causal as half) | fwd (us) | bwd (us) | fwd TFLOP/s | bwd TFLOP/s | fwd+bwd TFLOP/s |\n|---|---|---|---|---|---|")
    for r in load("membound.jsonl", "sdpa"):
        print(f"| {r['backend']} | {r['fwd_s'] * 1e6:.0f} | {r['bwd_s'] * 1e6:.0f} | {r['fwd_tflops']:.0f} | {r['bwd_tflops']:.0f} | {r['fwdbwd_tflops']:.0f} |")
    print()


def adamw():
    print("## AdamW (time per step; GB/s at 7 x dtype bytes per parameter and at commsim's 20 passes)\n")
    print("| dtype | impl | set | params (G) | ms | GB/s at 7 passes | GB/s at 20 passes | ps per param | compute.hpp today (ms) |\n|---|---|---|---|---|---|---|---|---|")
    hbm = 4.8e12 * 0.8394  # compute.hpp: catalog HBM x kDefaultHbmEfficiency, 20 passes of the state bytes
    for r in load("adamw.jsonl", "adamw"):
        b = 4 if r["dtype"] == "float32" else 2
        pred = 20 * b * r["params"] / hbm * 1e3
        print(f"| {r['dtype']} | {r['impl']} | {r['set']} | {r['params'] / 1e9:.3f} | {r['median_s'] * 1e3:.2f} | {r['gbps_min']:.0f} |"
              f" {r['gbps_counted']:.0f} | {r['median_s'] / r['params'] * 1e12:.2f} | {pred:.2f} |")
    print()


def tcp():
    print("## TCP, one thread per process (GB/s per direction per process, mean over the processes)\n")
    print("Round 0: call 1 (lo's points beside memory_peaks.py, eth0's after it); rounds 1 and 2: call 3, the")
    print("machine otherwise idle, lo and eth0 alternating. Host total = the median round's sum over processes.\n")
    rows = [dict(r, round=0) for r in load("tcp.jsonl")] + load("tcp_alone.jsonl")
    pts = {}
    for r in rows:
        k = (r["mode"], r["pairs"], r["chunk_bytes"] >> 10, r["io"])
        snd = st.mean(p["send_gbps"] for p in r["procs"] if p["send_gbps"] > 0)
        pts.setdefault(k, {}).setdefault(r["iface"], []).append((r["round"], snd, r["host_send_gbps"]))
    print("| mode | pairs | chunk | io | lo rounds 0 / 1 / 2 | eth0 rounds 0 / 1 / 2 | median | host total |\n|---|---|---|---|---|---|---|---|")
    ratios = []
    for (mode, pairs, chunk, io), v in pts.items():
        lo, eth = sorted(v["lo"]), sorted(v["eth0"])
        allv = [x[1] for x in lo + eth]
        ratios += [e[1] / l[1] for l, e in zip(lo, eth)]
        host = st.median([x[2] for x in lo + eth])
        print(f"| {mode} | {pairs} | {chunk} KiB | {io} | " + " / ".join(f"{x[1]:.2f}" for x in lo) + " | " +
              " / ".join(f"{x[1]:.2f}" for x in eth) + f" | {st.median(allv):.2f} | {host:.1f} |")
    ratios.sort()
    print(f"\neth0 / lo, same point and round ({len(ratios)} pairs): median {st.median(ratios):.2f}, "
          f"range {ratios[0]:.2f}-{ratios[-1]:.2f}; round 0 alone: "
          f"{st.median(e[1] / l[1] for v in pts.values() for l, e in zip(sorted(v['lo']), sorted(v['eth0'])) if l[0] == 0):.2f}")
    print()


def memory():
    print("## Memory peaks (GB = 1e9 B) against the term-by-term estimate\n")
    h, f, V, S = 4096, 14336, 32000, 2048
    print("| mode | blocks | ckpt | mb | adamw | cap | params | states | act_fwd meas / est | peak meas / est | reserved | note |\n|---|---|---|---|---|---|---|---|---|---|---|---|")
    rows = load("memory_peaks.jsonl", "memory") + load("memory_cap.jsonl", "memory")
    for r in rows:
        L, mb = r["blocks"], r["micro_batch"]
        P = L * (4 * h * h + 3 * h * f + 2 * h) + 2 * V * h + h  # qkv + o, gate/up/down, 2 norms; emb, head, norm
        T = mb * S
        pb = 4 if r["mode"] == "fsdp" else 2
        # activations per token: per block (16h + 8f) B without checkpointing, 2h with; + final norm and head input
        # (4h), bf16 logits (2V), fp32 log-softmax output (4V); FSDP keeps the root's bf16 params (emb, head) 4Vh.
        blk = (2 * h if r["ckpt"] else 16 * h + 8 * f) * L
        act = T * (blk + 4 * h + 6 * V) + (4 * V * h if r["mode"] == "fsdp" else 0)
        opt_peak = (5 if r.get("adamw", "foreach") == "foreach" else 4) * pb * P  # p, g, m, v (+ foreach's sqrt temp)
        # backward start: params + states + activations + the loss's two fp32 gradients (8 B per logit)
        bwd_start = 3 * pb * P + act + 8 * V * T
        # backward end (FSDP): p, g, m, v + one block's unsharded bf16 params and grads + the root's bf16 params
        pblk = 4 * h * h + 3 * h * f + 2 * h
        bwd_end = 4 * pb * P + (4 * pblk + 2 * (2 * V * h + h) if r["mode"] == "fsdp" else 0)
        est = max(opt_peak, bwd_start, bwd_end)
        cap = f"{r['limit_bytes'] / 1e9:.1f}" if r.get("limit_bytes") else "-"
        adam = (r.get("adamw") or "foreach") + (" +exp.seg" if r.get("alloc_conf") else "")
        if r.get("oom"):
            print(f"| {r['mode']} | {L} | {int(r['ckpt'])} | {mb} | {adam} | {cap} | | | | **OOM** / {est / 1e9:.1f} | | {r['error'][:90]} |")
            continue
        s3 = r["step3"]
        print(f"| {r['mode']} | {L} | {int(r['ckpt'])} | {mb} | {adam} | {cap} | {r['params'] / 1e9:.2f} | {r['states'] / 1e9:.2f} |"
              f" {s3['act_fwd'] / 1e9:.2f} / {act / 1e9:.2f} | {r['peak'] / 1e9:.2f} / {est / 1e9:.2f} | {s3['peak_reserved'] / 1e9:.1f} |"
              f" {'over 80 GB' if r['peak'] > 80e9 else ''} |")
    print()


def profile():
    import re
    print("## Step profiles (kernel time per step, ms; classes by kernel name)\n")
    cls = [("attention", r"sdpa|flash|fmha|cudnn"), ("gemm", r"nvjet|gemm|xmma|cutlass"), ("optimizer", r"multi_tensor_apply"),
           ("casts/copies", r"copy|Memcpy|chunk_cat|CatArray"), ("other", r".")]
    print("| mode | step (ms) | kernels | " + " | ".join(c for c, _ in cls) + " |\n|---|---|---|---|---|---|---|---|")
    for r in load("step_profile.jsonl", "profile"):
        tot = {c: 0.0 for c, _ in cls}
        for k in r["kernels"]:
            c = next(c for c, p in cls if re.search(p, k["name"]))
            tot[c] += k["us_per_step"] / 1e3
        print(f"| {r['mode']} | {r['mean_step_s'] * 1e3:.1f} | {sum(tot.values()):.1f} | " + " | ".join(f"{tot[c]:.1f}" for c, _ in cls) + " |")
    print()


def tp_rank():
    """Call 4 (tp_rank.jsonl): one TP rank's compute on one GPU and the decoder's attention layout copies."""
    print("## One tensor-parallel rank's compute on one GPU (call 4), and attention by heads\n")
    print("The plain bf16 step with the decoder's matrices split as TP `tp` splits them (embedding, norms, head and loss")
    print("replicated), no communication: what one rank of torch_tp_step.py computes. Mean (median) of 6 steps; kernel")
    print("time per step by class from 3 profiled steps; gap = mean step - kernel time.\n")
    print("| mode | tp | AdamW | params (G) | step ms mean (median) | kernels | gemm | attention | optimizer | copies | other | gap | SM MHz |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in load("tp_rank.jsonl", "rank_step"):
        c = {k: v / 1e3 for k, v in r["class_us_per_step"].items()}
        k = r["kernel_us_per_step"] / 1e3
        print(f"| {r['mode']} | {r['tp']} | {r['adamw']} | {r['params'] / 1e9:.3f} | {r['mean_step_s'] * 1e3:.1f} "
              f"({st.median(r['step_s']) * 1e3:.1f}) | {k:.1f} | {c.get('gemm', 0):.1f} | {c.get('attention', 0):.2f} | "
              f"{c.get('optimizer', 0):.1f} | {c.get('copies', 0):.2f} | {c.get('other', 0):.2f} | "
              f"{r['mean_step_s'] * 1e3 - k:.1f} | {r.get('sm_mhz')} |")
    print("\n| heads (TP) | SDPA fwd us | bwd us | fwd TFLOP/s | bwd TFLOP/s | packed qkv fwd+bwd us | layout bwd us | qkv grad MB |")
    print("|---|---|---|---|---|---|---|---|")
    for r in load("tp_rank.jsonl", "sdpa_layout"):
        bwd = r["cont_fb_s"] - r["cont_fwd_s"]
        print(f"| {r['heads']} ({r['tp']}) | {r['cont_fwd_s'] * 1e6:.1f} | {bwd * 1e6:.1f} | {r['cont_fwd_tflops']:.0f} | "
              f"{r['cont_bwd_tflops']:.0f} | {r['packed_fb_s'] * 1e6:.1f} | {r['layout_bwd_s'] * 1e6:.1f} | {r['qkv_grad_bytes'] / 1e6:.1f} |")
    print()


def stages():
    """Call 5 (stage.jsonl): pipeline stages and other plain steps alone on one GPU; power and clocks."""
    print("## Pipeline stages, micro-batch 1 and 4, checkpointing on one GPU (call 5)\n")
    print("| step | step ms mean | kernels | gemm | attention | optimizer | copies | other | gap | SM MHz | W | throttle |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in load("stage.jsonl"):
        if r["kind"] not in ("stage_step", "plain_step"):
            continue
        name = f"stage {r['stage']}" if r["kind"] == "stage_step" else \
            f"micro-batch {r['micro_batch']}" + (", checkpointing" if r["ckpt"] else "")
        c = {k: v / 1e3 for k, v in r["class_us_per_step"].items()}
        k = r["kernel_us_per_step"] / 1e3
        print(f"| {name} | {r['mean_step_s'] * 1e3:.1f} | {k:.1f} | {c.get('gemm', 0):.1f} | {c.get('attention', 0):.1f} | "
              f"{c.get('optimizer', 0):.1f} | {c.get('copies', 0):.1f} | {c.get('other', 0):.1f} | "
              f"{r['mean_step_s'] * 1e3 - k:.1f} | {r['sm_mhz']} | {r['power_w']:.0f} | {r['throttle']} |")
    print()


for part in (gemm_repeat, gemm_models, gemm_laws, membound, adamw, tcp, memory, profile, tp_rank, stages):
    part()
