#!/usr/bin/env python3
# Prints every accuracy figure of docs/accuracy.md that commsim can recompute from
# the measurements committed in the repository, one row per measured curve or step:
#   - nccl-tests on the 4 x H200 calibration machine (scenarios/validation/h200x4/measured/nccl-tests):
#     median and max |error| of the time per size over all sizes (8 B up) and over >= 16 MiB;
#   - the 2 x H200 PyTorch curves (scenarios/validation/h200x2/n2_*.json): the same two medians
#     (the torch loop's host floor is in the small sizes) and >= 1 MiB as the validation test holds it;
#   - the 2 x H200 training steps (steps_foreach.jsonl) and the 4 x H200 step predictions.
# The error of a size is predicted / measured - 1 on the time (nccl-tests: the faster of out-of-place
# and in-place, as its users read it). Usage: scripts/accuracy_tables.py [build/scenarios/commsim] [--csv]
import json, os, re, statistics, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
V = os.path.join(ROOT, "scenarios/validation")
BIN = next((a for a in sys.argv[1:] if not a.startswith("--")), os.path.join(ROOT, "build/scenarios/commsim"))
MiB = 1 << 20

def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True, check=True).stdout

def predict(scenario, op, lo, hi, sets):
    cmd = [BIN, "nccl-tests", scenario, "--op", op, "-b", str(lo), "-e", str(hi), "-f", "2"]
    for s in sets: cmd += ["--set", s]
    rows = {}
    for line in run(cmd).splitlines():
        f = line.split()
        if len(f) >= 13 and f[0].isdigit(): rows[int(f[0])] = (float(f[5]), float(f[9]))
    return rows

def stats(errs):
    if not errs: return "-", "-"
    return f"{statistics.median(errs) * 100:.1f} %", f"{max(errs) * 100:.1f} %"

def env(k, v): return [f'nccl.env.{k}="{v}"']

# --- 4 x H200, nccl-tests -g 4 -------------------------------------------------------------
def read_nccl_tests(path):
    # INFO lines (NCCL_DEBUG=INFO) may cut a row in two: drop them, then take the first and fourth
    # decimal numbers after the op's columns (out-of-place and in-place time).
    text = re.sub(r"\S*:\d+:\d+ \[\d+\] NCCL INFO[^\n]*\n", "", open(path).read())
    rows = {}
    for line in text.splitlines():
        f = line.split()
        if len(f) > 4 and f[0].isdigit() and f[1].isdigit():
            t = [float(x) for x in f[4:] if "." in x]
            if len(t) >= 4: rows[int(f[0])] = min(t[0], t[3])
    return rows

print("### nccl-tests, 4 x H200 (all_reduce_perf -g 4)\n")
print("| curve | sizes | median, all sizes | max, all sizes | median, >= 16 MiB | max, >= 16 MiB |")
print("|---|---|---|---|---|---|")
for f, sets in [("ar_g4.txt", []), ("ar_g4_info.txt", []), ("ar_g4_shm.txt", env("NCCL_P2P_DISABLE", 1)),
                ("ar_g4_sock.txt", env("NCCL_P2P_DISABLE", 1) + env("NCCL_SHM_DISABLE", 1))]:
    meas = read_nccl_tests(os.path.join(V, "h200x4/measured/nccl-tests", f))
    pred = predict(os.path.join(V, "h200x4.toml"), "all_reduce", 8, max(meas), sets)
    errs = {s: abs(min(pred[s]) / t - 1) for s, t in meas.items()}
    a, b = stats(list(errs.values()))
    c, d = stats([e for s, e in errs.items() if s >= 16 * MiB])
    print(f"| `{f}` | {len(errs)} | {a} | {b} | {c} | {d} |")

# --- 2 x H200, PyTorch ---------------------------------------------------------------------
D = os.path.join(V, "h200x2")
CASES = [
    ("default", "n2_default.json", "all_reduce", []),
    ("default", "n2_default.json", "broadcast", []),
    ("default", "n2_default.json", "all_gather", []),
    ("default", "n2_default.json", "reduce_scatter", []),
    ("default", "n2_ag_inplace.json", "all_gather_inplace", []),
    ("default", "n2_reduce.json", "reduce", []),
    ("default", "n2_a2a_sendrecv.json", "alltoall", []),
    ("default", "n2_a2a_sendrecv.json", "sendrecv", []),
    ("NCCL_P2P_DISABLE=1 (SHM)", "n2_shm.json", "all_reduce", env("NCCL_P2P_DISABLE", 1)),
    ("NCCL_P2P_DISABLE=1 (SHM)", "n2_shm_gather.json", "all_gather", env("NCCL_P2P_DISABLE", 1)),
    ("NCCL_P2P_DISABLE=1 (SHM)", "n2_shm_gather.json", "reduce_scatter", env("NCCL_P2P_DISABLE", 1)),
    ("NCCL_P2P_DISABLE=1 (SHM)", "n2_shm_gather.json", "broadcast", env("NCCL_P2P_DISABLE", 1)),
    ("NCCL_MAX_NCHANNELS=4", "n2_ch4.json", "all_reduce", env("NCCL_MAX_NCHANNELS", 4)),
    ("NCCL_MAX_NCHANNELS=4", "n2_ch4_gather.json", "all_gather", env("NCCL_MAX_NCHANNELS", 4)),
    ("NCCL_MAX_NCHANNELS=4", "n2_ch4_gather.json", "all_gather_inplace", env("NCCL_MAX_NCHANNELS", 4)),
    ("NCCL_MAX_NCHANNELS=4", "n2_ch4_gather.json", "reduce_scatter", env("NCCL_MAX_NCHANNELS", 4)),
    ("NCCL_MAX_NCHANNELS=4", "n2_ch4_gather.json", "broadcast", env("NCCL_MAX_NCHANNELS", 4)),
    ("NCCL_MAX_NCHANNELS=4", "n2_reduce_ch4.json", "reduce", env("NCCL_MAX_NCHANNELS", 4)),
    ("NCCL_MAX_NCHANNELS=8", "n2_ch8.json", "all_reduce", env("NCCL_MAX_NCHANNELS", 8)),
    ("NCCL_MAX_NCHANNELS=8", "n2_ch8.json", "all_gather", env("NCCL_MAX_NCHANNELS", 8)),
    ("NCCL_MAX_NCHANNELS=12", "n2_ch12.json", "all_reduce", env("NCCL_MAX_NCHANNELS", 12)),
    ("NCCL_MAX_NCHANNELS=16", "n2_ch16.json", "all_reduce", env("NCCL_MAX_NCHANNELS", 16)),
    ("default, rerun on another 2 x H200", "n2_default_rerun.json", "all_reduce", []),
    ("50 ms warm-up per size", "n2_default_warm.json", "all_reduce", []),
    ("one process, both GPUs", "n2_single.json", "all_reduce", ["placement.single_process=true"]),
    ("one process, both GPUs", "n2_single.json", "all_gather", ["placement.single_process=true"]),
    ("one process, both GPUs", "n2_single.json", "reduce_scatter", ["placement.single_process=true"]),
    ("one process, both GPUs", "n2_single.json", "broadcast", ["placement.single_process=true"]),
    ("NCCL_ALGO=Tree", "n2_tree.json", "all_reduce", env("NCCL_ALGO", "Tree")),
    ("NCCL_PROTO=Simple", "n2_proto_Simple.json", "all_reduce", env("NCCL_PROTO", "Simple")),
    ("NCCL_PROTO=LL128", "n2_proto_LL128.json", "all_reduce", env("NCCL_PROTO", "LL128")),
    ("NCCL_PROTO=LL", "n2_proto_LL.json", "all_reduce", env("NCCL_PROTO", "LL")),
    ("NCCL_P2P_READ_ENABLE=1", "n2_read.json", "all_reduce", env("NCCL_P2P_READ_ENABLE", 1)),
    ("NCCL_P2P_READ_ENABLE=1", "n2_read.json", "all_gather", env("NCCL_P2P_READ_ENABLE", 1)),
    ("NCCL_P2P_READ_ENABLE=1", "n2_read.json", "broadcast", env("NCCL_P2P_READ_ENABLE", 1)),
] + [(f"NCCL_BUFFSIZE={b}", f"n2_buff{b}.json", op, env("NCCL_BUFFSIZE", b))
     for b in (65536, 262144, 1048576) for op in ("all_reduce", "broadcast")]

print("\n### 2 x H200, PyTorch (one process per GPU unless said)\n")
print("| run | op | sizes | median, all sizes | median, >= 1 MiB | max, >= 1 MiB | median, >= 16 MiB | 1 GiB measured / predicted (µs) |")
print("|---|---|---|---|---|---|---|---|")
for label, f, op, sets in CASES:
    rows = [r for r in json.load(open(os.path.join(D, f)))["rows"] if r["op"] == op]
    in_place = op == "all_gather_inplace"
    lo = min(r["size"] for r in rows)
    pred = predict(os.path.join(D, "n2.toml"), "all_gather" if in_place else op, lo, 1 << 30, sets)
    errs = {r["size"]: abs(pred[r["size"]][in_place] / r["time_us"] - 1) for r in rows if r["size"] in pred}
    last = max(rows, key=lambda r: r["size"])
    a, _ = stats(list(errs.values()))
    b, c = stats([e for s, e in errs.items() if s >= MiB])
    d, _ = stats([e for s, e in errs.items() if s >= 16 * MiB])
    name = "all_gather, in place" if in_place else op
    print(f"| {label} | {name} | {len(errs)} | {a} | {b} | {c} | {d} | "
          f"{last['time_us']:.0f} / {pred[last['size']][in_place]:.0f} |")

# --- training steps ------------------------------------------------------------------------
def step(path, sets=()):
    cmd = [BIN, "run", path, "--json"]
    for s in sets: cmd += ["--set", s]
    return json.loads(run(cmd))["step_time_s"]

meas = {}
for line in open(os.path.join(D, "steps_foreach.jsonl")):
    if line.strip():
        j = json.loads(line)
        meas[j["tag"]] = j["result"]["mean_step_s"]
print("\n### Training steps, 2 x H200 (measured) \n")
print("| scenario | measured (s) | predicted (s) | error |")
print("|---|---|---|---|")
errs = []
STEPS = [(f"{'fsdp' if k == 'z3' else k}_{t}_n2", f"step_{k}_{t}_n2.toml", []) for k in ("z3", "tp", "pp")
         for t in ("p2p", "shm", "sock")]
STEPS += [("fsdp_pod1_n2", "step_z3_pod1_n2.toml", []),
          ("fsdp_p2p_n2_ch4", "step_z3_p2p_n2.toml", env("NCCL_MAX_NCHANNELS", 4))]
for tag, f, sets in STEPS:
    p = step(os.path.join(D, f), sets)
    e = p / meas[tag] - 1
    errs.append(abs(e))
    print(f"| {tag} | {meas[tag]:.4f} | {p:.4f} | {e * 100:+.1f} % |")
print(f"\nmedian |error| {statistics.median(errs) * 100:.1f} %, max {max(errs) * 100:.1f} %")

print("\n### Training steps, 4 x H200 (predictions)\n")
print("| scenario | predicted (s) |")
print("|---|---|")
for f in sorted(os.listdir(os.path.join(V, "h200x4"))):
    if f.endswith(".toml"):
        print(f"| {f[:-5]} | {step(os.path.join(V, 'h200x4', f)):.4f} |")
