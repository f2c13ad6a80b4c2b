#!/usr/bin/env python3
# Prints docs/accuracy.md's "Out of sample: 2 x H200" table: commsim's nccl-tests prediction against
# each measurement in scenarios/validation/h200x2/ (sizes >= 1 MiB; error of the time per size).
# Usage: scripts/h200x2_table.py [build/scenarios/commsim] [--check DOC.md]
#   --check: also fail (exit 1) unless every printed row is in DOC.md verbatim (the test that keeps
#   docs/accuracy.md's table what the model gives).
import json, os, statistics, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
D = os.path.join(ROOT, "scenarios/validation/h200x2")
CHECKS = [sys.argv[i + 1] for i, a in enumerate(sys.argv[:-1]) if a == "--check"]
BIN = next((a for a in sys.argv[1:] if not a.startswith("--") and a not in CHECKS),
           os.path.join(ROOT, "build/scenarios/commsim"))

def env(k, v): return [f'nccl.env.{k}="{v}"']
CASES = [  # (label, file, op as measured, --set values)
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
    ("NCCL_MAX_NCHANNELS=12", "n2_ch12.json", "all_reduce", env("NCCL_MAX_NCHANNELS", 12)),
    ("NCCL_MAX_NCHANNELS=16", "n2_ch16.json", "all_reduce", env("NCCL_MAX_NCHANNELS", 16)),
    ("default, rerun on another 2 x H200 machine", "n2_default_rerun.json", "all_reduce", []),
    ("same machine, 50 ms warm-up per size", "n2_default_warm.json", "all_reduce", []),
    ("NCCL_MAX_NCHANNELS=8", "n2_ch8.json", "all_gather", env("NCCL_MAX_NCHANNELS", 8)),
    ("NCCL_ALGO=Tree", "n2_tree.json", "all_reduce", env("NCCL_ALGO", "Tree")),
    ("NCCL_PROTO=Simple", "n2_proto_Simple.json", "all_reduce", env("NCCL_PROTO", "Simple")),
    ("NCCL_PROTO=LL128", "n2_proto_LL128.json", "all_reduce", env("NCCL_PROTO", "LL128")),
    ("NCCL_PROTO=LL", "n2_proto_LL.json", "all_reduce", env("NCCL_PROTO", "LL")),
    ("NCCL_P2P_READ_ENABLE=1", "n2_read.json", "all_reduce", env("NCCL_P2P_READ_ENABLE", 1)),
    ("NCCL_P2P_READ_ENABLE=1", "n2_read.json", "all_gather", env("NCCL_P2P_READ_ENABLE", 1)),
    ("NCCL_P2P_READ_ENABLE=1", "n2_read.json", "broadcast", env("NCCL_P2P_READ_ENABLE", 1)),
] + [(f"NCCL_BUFFSIZE={b}", f"n2_buff{b}.json", op, env("NCCL_BUFFSIZE", b))
     for b in (65536, 262144, 1048576) for op in ("all_reduce", "broadcast")]

def predict(op, sets):
    cmd = [BIN, "nccl-tests", os.path.join(D, "n2.toml"), "--op", op, "-b", "1M", "-e", "1G", "-f", "2"]
    for s in sets: cmd += ["--set", s]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    rows = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) >= 13 and f[0].isdigit(): rows[int(f[0])] = (float(f[5]), float(f[9]))  # out of place, in place
    return rows

lines = ["| run | op | median \\|error\\| | max \\|error\\| | 1 GiB measured / predicted (µs) |", "|---|---|---|---|---|"]
for label, f, op, sets in CASES:
    rows = [r for r in json.load(open(os.path.join(D, f)))["rows"] if r["op"] == op and r["size"] >= 1 << 20]
    in_place = op == "all_gather_inplace"
    pred = predict("all_gather" if in_place else op, sets)
    errs = [abs(pred[r["size"]][in_place] / r["time_us"] - 1) for r in rows]
    last = max(rows, key=lambda r: r["size"])
    name = "all_gather, in place" if in_place else op
    lines.append(f"| {label} | {name} | {statistics.median(errs) * 100:.1f} % | {max(errs) * 100:.1f} % | "
                 f"{last['time_us']:.0f} / {pred[last['size']][in_place]:.0f} |")
print("\n".join(lines))
failed = False
for doc in CHECKS:
    text = open(doc).read().splitlines()
    for line in lines[2:]:
        if line not in text:
            print(f"{doc}: missing or stale row: {line}", file=sys.stderr)
            failed = True
sys.exit(1 if failed else 0)
