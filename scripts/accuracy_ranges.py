#!/usr/bin/env python3
# Prints docs/accuracy.md's "Every shipped curve with the defaults, per size range" table: for every
# collective curve measured under scenarios/validation/, commsim's nccl-tests prediction with the
# defaults a user gets (the scenario's calibration profile, if it names one, removed: no parameter
# fitted on any file), and per size range the median |error| of the time, with the median signed
# error beside it (- : the model is too fast).
# Ranges: < 64 KiB, 64 KiB - < 1 MiB, 1 MiB - < 64 MiB, >= 64 MiB. Error of a size: predicted /
# measured - 1 on the time; nccl-tests tables: the faster of out-of-place and in-place, as its users
# read it; bus bandwidth points: time = size x factor / busbw.
# Usage: scripts/accuracy_ranges.py [build/scenarios/commsim] [--profile] [--check DOC.md]... [--summary DOC.md]...
#   --profile: keep the profiles; --check (repeatable): also fail (exit 1) unless every printed row
#   is in DOC.md verbatim (the test that keeps docs/accuracy.md's table what the model gives);
#   --summary (repeatable): the same for the table's last line alone (the README's summary).
import json, os, re, statistics, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
V = os.path.join(ROOT, "scenarios/validation")
CHECKS = [sys.argv[i + 1] for i, a in enumerate(sys.argv[:-1]) if a == "--check"]
SUMMARIES = [sys.argv[i + 1] for i, a in enumerate(sys.argv[:-1]) if a == "--summary"]
BIN = next((a for a in sys.argv[1:] if not a.startswith("--") and a not in CHECKS + SUMMARIES),
           os.path.join(ROOT, "build/scenarios/commsim"))
KEEP_PROFILE = "--profile" in sys.argv
KiB, MiB = 1 << 10, 1 << 20
RANGES = [("< 64 KiB", 0, 64 * KiB), ("64 KiB-1 MiB", 64 * KiB, MiB), ("1-64 MiB", MiB, 64 * MiB),
          (">= 64 MiB", 64 * MiB, 1 << 62)]


def defaults_scenario(path):
    """The scenario without its `profile = ...` line, written to a temporary file."""
    text = open(path).read()
    if KEEP_PROFILE:
        return path
    text = re.sub(r"(?m)^profile\s*=.*$", "", text)
    fd, tmp = tempfile.mkstemp(suffix=".toml")
    with os.fdopen(fd, "w") as f:
        f.write(text)
    return tmp


def own_profile(scenario):
    """--profile: the profile of a cluster whose scenario runs with the defaults and keeps its own
    fit beside it (scenarios/validation/*_efa/<instance>.profile.toml), as a --set."""
    d = os.path.dirname(scenario)
    names = [f for f in os.listdir(d) if f.endswith(".profile.toml")] if KEEP_PROFILE else []
    if len(names) != 1 or re.search(r"(?m)^profile\s*=", open(scenario).read()):
        return []
    return ["--set", f'cluster.profile="{os.path.join(d, names[0])}"']


def predict(scenario, op, lo, hi, sets=()):
    cmd = [BIN, "nccl-tests", defaults_scenario(scenario), "--op", op, "-b", str(lo), "-e", str(hi), "-f", "2",
           "--json"] + own_profile(scenario)
    for s in sets:
        cmd += ["--set", s]
    out = json.loads(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout)
    return {r["size_bytes"]: r for r in out["rows"]}


def read_nccl_tests(path):
    text = re.sub(r"[A-Za-z][\w.-]*:\d+:\d+ \[\d+\] NCCL INFO[^\n]*\n", "", open(path).read())
    rows = {}
    for line in text.splitlines():
        f = line.split()
        # size count type redop root | time algbw busbw #wrong | time algbw busbw #wrong (large times
        # are printed without a decimal point)
        if len(f) >= 13 and f[0].isdigit() and f[1].isdigit():
            rows[int(f[0])] = min(float(f[5]), float(f[9]))
        elif len(f) == 12 and f[0].isdigit() and f[1].isdigit():  # nccl-tests before its root column (2021)
            rows[int(f[0])] = min(float(f[4]), float(f[8]))
    return rows


def env(k, v):
    return [f'nccl.env.{k}="{v}"']


def nccl_tests_curve(label, scenario, table, sets=(), op="all_reduce"):
    meas = read_nccl_tests(os.path.join(V, table))
    pred = predict(os.path.join(V, scenario), op, min(meas), max(meas), sets)
    return label, {s: min(pred[s]["time_us"], pred[s]["in_place_time_us"]) / t - 1 for s, t in meas.items()}


def torch_issue_us(op):
    """The host time one PyTorch process spends per call of `op` in torch_nccl_bench.py's loop, as
    measured on an H200 VM with the 2 x H200 runs' software (torch 2.11, NCCL 2.28.9): one rank
    (h200x1/measured/torch_host_issue.jsonl, median over sizes, rounds and launches). With one rank
    NCCL copies for an out-of-place op (all_gather, reduce_scatter: a launch, as with two) and does
    nothing for an in-place one (all_reduce, broadcast), which therefore add what one NCCL call of
    one rank, out of place, costs that host (h200x1/measured/nccl_p2p_issue_cost.jsonl, all-reduce
    alone: an upper bound, its own checks included). This replaces nccl-tests' loop (the 4 x H200
    -g 4 fit, 25 us), which is not what these runs' host did."""
    rows = [json.loads(l) for l in open(os.path.join(V, "h200x1/measured/torch_host_issue.jsonl"))]
    t = statistics.median(r["issue_us"] for r in rows if r["ranks"] == 1 and r["op"] == op)
    if op in ("all_reduce", "broadcast"):
        calls = [json.loads(l) for l in open(os.path.join(V, "h200x1/measured/nccl_p2p_issue_cost.jsonl"))]
        t += statistics.median(c["api_us"] for c in calls if c.get("kind") == "allreduce" and c["k"] == 1)
    return t


def torch_curve(label, f, op, sets=()):
    rows = [r for r in json.load(open(os.path.join(V, "h200x2", f)))["rows"] if r["op"] == op]
    sets = list(sets) + [f"cluster.params.nccl.launch_overhead={torch_issue_us(op) * 1e-6}"]
    pred = predict(os.path.join(V, "h200x2/n2.toml"), op, min(r["size"] for r in rows), max(r["size"] for r in rows),
                   sets)
    return label, {r["size"]: pred[r["size"]]["time_us"] / r["time_us"] - 1 for r in rows if r["size"] in pred}


def busbw_points(label, scenario, points, nranks, sets=(), op="all_reduce"):
    # nccl-tests' bus bandwidth factor: all-reduce 2(n-1)/n, all-to-all (n-1)/n.
    errs = {}
    for size, busbw in points:
        p = predict(os.path.join(V, scenario), op, size, size, sets)[size]
        t_meas = size * (2 if op == "all_reduce" else 1) * (nranks - 1) / nranks / (busbw * 1e3)  # us
        errs[size] = min(p["time_us"], p["in_place_time_us"]) / t_meas - 1
    return label, errs


def timed_points(label, scenario, op, points):
    # Single sizes measured at several rank counts: (size, measured time in us, rank count, --set
    # values). Keyed by size + rank count (distinct keys in one size range).
    errs = {}
    for size, t_meas, nranks, sets in points:
        pred = predict(os.path.join(V, scenario), op, size, size, sets)
        p = pred[min(pred, key=lambda k: abs(k - size))]  # nccl-tests rounds an all-to-all to n x 4 B
        errs[size + nranks] = min(p["time_us"], p["in_place_time_us"]) / t_meas - 1
    return label, errs


def a4x_points(op, busbws):
    # scenarios/validation/blackwell_nvls/measured/gcp_a4x_domain.txt: bus bandwidth at 16 GiB on
    # 2, 8, 16 and 18 VMs of one NVL72 domain (nccl-tests' factor 2(n-1)/n, all-to-all (n-1)/n).
    pts = []
    for vms, busbw in zip((2, 8, 16, 18), busbws):
        n = 4 * vms
        factor = (2 if op == "all_reduce" else 1) * (n - 1) / n
        pts.append((16 << 30, (16 << 30) * factor / (busbw * 1e3), n, [f"placement.pods_per_node={vms}"]))
    return pts


def oci_gb200(op):
    # scenarios/validation/blackwell_nvls/measured/oci_gb200.txt: the faster of out-of-place and in-place
    # at 4 and 8 GiB. The all-reduce table headed "2 Nodes on a Single Rack" has 64 ranks' bus
    # bandwidth factor (891.64 / 452.90 = 1.969 = 2 x 63/64): the page's missing 16-host table.
    one = ["placement.pods_per_node=1", "placement.single_process=true"]
    G = 1 << 30
    if op == "all_reduce":
        rows = [(4, 9801.3, one), (8, 19424, one), (4, 9868.1, []), (8, 18884, []),
                (4, 11311, ["cluster.nodes=2"]), (8, 21313, ["cluster.nodes=2"]),
                (4, 12125, ["cluster.nodes=3"]), (8, 22820, ["cluster.nodes=3"])]
    else:
        rows = [(4, 4782.9, one), (8, 9654.2, one), (8, 11418, ["placement.pods_per_node=2"]),
                (16, 22698, ["placement.pods_per_node=2"]), (4, 6765.9, []), (8, 13560, []),
                (4, 48071, ["cluster.nodes=2"]), (8, 95018, ["cluster.nodes=2"]),
                (4, 70159, ["cluster.nodes=3"]), (8, 136749, ["cluster.nodes=3"])]
    pts = []
    for gib, t, sets in rows:
        n = 4 if sets is one else 8 if "placement.pods_per_node=2" in sets else 64 * (
            3 if "cluster.nodes=3" in sets else 2 if "cluster.nodes=2" in sets else 1)
        pts.append((gib * G, t, n, sets))
    return pts


def hgx_h100_nodes():
    # github.com/NVIDIA/nccl-tests/issues/309: the largest bus bandwidth of 1, 2 and 4 HGX H100
    # nodes (8 x NDR each), compared at 8 GiB. Keyed by node count (one size each).
    errs = {}
    for nodes, busbw in ((1, 480.0), (2, 470.0), (4, 365.84)):
        _, e = busbw_points("", "hgx_h100_nodes_allreduce.toml", [(8 << 30, busbw)], 8 * nodes,
                            [f"cluster.nodes={nodes}"])
        errs[(8 << 30) + nodes] = e[8 << 30]  # distinct keys in the >= 64 MiB range
    return "1, 2 and 4 x HGX H100, InfiniBand NDR, largest bus bandwidth (NVIDIA/nccl-tests#309)", errs


def azure_tray():
    pts = []
    for line in open(os.path.join(V, "gb200_nvl72/measured/azure_nd_gb200_v6_4gpu.csv")):
        f = line.strip().split(",")
        if len(f) == 2 and f[0].isdigit():
            pts.append((int(f[0]), float(f[1])))
    return busbw_points("GB200, one tray, 4 GPUs (Azure ND GB200 v6)", "gb200_nvl72/tray_4gpu.toml", pts, 4)


def p5_nodes(nodes):
    # github.com/crazyguitar/aws-gpu-communication-benchmark: all_reduce_perf 32 MiB - 8 GiB on 2-32 p5
    # nodes (algbw per size; the faster of out-of-place and in-place). EFA v2's efficiency is read off
    # the 4-16 node plateaus (models/hw/efa_generations.cpp); every other point checks.
    meas = {}
    for line in open(os.path.join(V, "p5_nodes_efa/measured/nccl_all_reduce.csv")):
        f = line.strip().split(",")
        if len(f) == 9 and f[0] == str(nodes):
            size = int(f[2]) * MiB
            meas[size] = size / max(float(f[5]), float(f[7])) / 1e3
    pred = predict(os.path.join(V, "p5_nodes_efa/scenario.toml"), "all_reduce", min(meas), max(meas),
                   [f"cluster.nodes={nodes}"])
    label = f"{nodes} x p5.48xlarge, EFA ({nodes * 8} ranks, crazyguitar/aws-gpu-communication-benchmark)"
    return label, {s: min(pred[s]["time_us"], pred[s]["in_place_time_us"]) / t - 1 for s, t in meas.items()}


def azure_curve(label, name):
    # github.com/Azure/AI-benchmarking-guide: one VM's in-place bus bandwidth, 1 KiB - 8 GiB
    # (all_reduce_perf -g 8, NCCL_ALGO=NVLS; scenarios/validation/azure_nd_v5/measured/README.md).
    pts = []
    for line in open(os.path.join(V, "azure_nd_v5/measured", name + ".csv")):
        f = line.strip().split(",")
        if len(f) == 3 and f[1].isdigit():
            pts.append((int(f[1]), float(f[2])))
    pred = predict(os.path.join(V, "azure_nd_v5", name + ".toml"), "all_reduce", pts[0][0], pts[-1][0])
    return label, {s: pred[s]["in_place_time_us"] / (s * 2 * 7 / 8 / (b * 1e3)) - 1 for s, b in pts}


def p6_points(label, instance, scenario):
    # awslabs/awsome-distributed-ai compute-test.md: bus bandwidths quoted per size
    # (scenarios/validation/p6_efa/measured/points.csv).
    pts, nodes = [], 0
    for line in open(os.path.join(V, "p6_efa/measured/points.csv")):
        f = line.strip().split(",")
        if len(f) == 4 and f[0] == instance:
            nodes = int(f[1])
            pts.append((int(f[2]), float(f[3])))
    return busbw_points(label, scenario, pts, 8 * nodes)


def p5_alltoall(nodes):
    # awslabs/awsome-distributed-ai ep-backend-comparison/RESULTS-p5.md: alltoall_perf -b 8 -e 8G,
    # bus bandwidth at 64 MiB and the sweep's peak (compared at 8 GiB, the model's largest)
    # (scenarios/validation/p5_nodes_efa/measured/alltoall_points.csv).
    pts = []
    for line in open(os.path.join(V, "p5_nodes_efa/measured/alltoall_points.csv")):
        f = line.strip().split(",")
        if len(f) == 3 and f[0] == str(nodes):
            pts.append((int(f[1]), float(f[2])))
    return busbw_points(f"{nodes} x p5.48xlarge, EFA, all-to-all ({nodes * 8} ranks, awsome-distributed-ai)",
                        "p5_nodes_efa/alltoall.toml", pts, 8 * nodes, [f"cluster.nodes={nodes}"], "alltoall")


def time_points(label, scenario, csv, op):
    # A run that quotes (size, time in us) points (scenarios/validation/*/measured/*.csv).
    rows = [line.strip().split(",") for line in open(os.path.join(V, csv)) if line[0].isdigit()]
    meas = {int(r[0]): float(r[1]) for r in rows}
    pred = predict(os.path.join(V, scenario), op, min(meas), max(meas))
    return label, {sz: min(pred[sz]["time_us"], pred[sz]["in_place_time_us"]) / t - 1 for sz, t in meas.items()}


def gb200_partitions():
    # NVIDIA/nccl#1801: three NVL4 / NVL8 partitions of GB200 racks over InfiniBand, NVLS off, 16 GiB,
    # Ring (NCCL's choice) and forced Tree (scenarios/validation/gb200_nvl72/measured/nvl_partitions_ib.csv).
    errs = {}
    for line in open(os.path.join(V, "gb200_nvl72/measured/nvl_partitions_ib.csv")):
        f = line.strip().split(",")
        if len(f) != 4 or not f[0].isdigit():
            continue
        gpus, algo, size, busbw = int(f[0]), f[1], int(f[2]), float(f[3])
        n = 3 * gpus
        p = predict(os.path.join(V, "gb200_nvl_partitions.toml"), "all_reduce", size, size,
                    [f"placement.pods_per_node={gpus // 4}"] + env("NCCL_ALGO", algo))[size]
        # keyed by size (the range) plus the row's index, four points of one size
        errs[size + len(errs)] = p["time_us"] / (size * 2 * (n - 1) / n / (busbw * 1e3)) - 1
    return "GB200 NVL4 / NVL8 partitions on three racks over InfiniBand, Ring and Tree, 16 GiB (NVIDIA/nccl#1801)", errs


def a3_mega_mgcafe():
    # MG-Cafe/TCPXO-Enabled-A3-Mega-H100-Benchmarks docs/benchmark-report.md: the sizes it quotes.
    return time_points("2 x GCP A3 Mega, all_gather, MG-Cafe's run (13 sizes)", "gcp_2node/a3_mega_allgather.toml",
                       "gcp_2node/measured/a3_mega_allgather_mgcafe.csv", "all_gather")


def a3_mega_1vm():
    return time_points("GCP A3 Mega, one VM, all_reduce -g 8 (MG-Cafe's run, 7 sizes)", "gcp_2node/a3_mega_1vm.toml",
                       "gcp_2node/measured/a3_mega_1vm_mgcafe.csv", "all_reduce")


UNITS = {"B": 1, "KB": KiB, "MB": MiB, "GB": 1 << 30}


def human_size(text):
    """'8B', '1 KB', '2 GB' (binary units, as nccl-tests and these harnesses print them) in bytes."""
    m = re.fullmatch(r"(\d+)\s*([KMG]?B)", text.strip())
    return int(m.group(1)) * UNITS[m.group(2)]


def a3_high_torch():
    # elideng-sg/hypercomputer-internode-deepdive lab-18: a PyTorch loop of 20 back-to-back in-place
    # all-reduces per size (time_ms column), 8 B - 2 GiB; compared with the in-place prediction.
    meas = {}
    for line in open(os.path.join(V, "gcp_2node/measured/a3_high_allreduce_torch_lab18.txt")):
        f = line.split()
        if len(f) == 5 and not line.startswith("#"):
            meas[human_size(f[0])] = float(f[2]) * 1e3
    pred = predict(os.path.join(V, "gcp_2node/a3_high_allreduce_torch.toml"), "all_reduce", min(meas), max(meas))
    return ("2 x GCP A3 High, all_reduce over GPUDirect-TCPX, PyTorch loop (16 ranks, a public guide's lab; held out)",
            {s: pred[s]["in_place_time_us"] / t - 1 for s, t in meas.items()})


def a3_high_skypilot():
    # skypilot-org/skypilot examples/gcp_gpu_direct_tcpx: bus bandwidth to two decimals only; from
    # 64 KiB on, where that rounding moves the time by under 5 %.
    points = []
    for line in open(os.path.join(V, "gcp_2node/measured/a3_high_allreduce_skypilot.md")):
        f = [c.strip() for c in line.split("|")]
        if len(f) > 2 and re.fullmatch(r"\d+ [KMG]?B", f[1]) and human_size(f[1]) >= 64 * KiB:
            points.append((human_size(f[1]), float(f[2])))
    return busbw_points("2 x GCP A3 High, all_reduce over GPUDirect-TCPX, 8 channels (16 ranks, SkyPilot's bus "
                        "bandwidths from 64 KiB; held out)", "gcp_2node/a3_high_allreduce_skypilot.toml", points, 16)


CURVES = [
    lambda: nccl_tests_curve("4 x H200, P2P/NVLink (`ar_g4.txt`)", "h200x4.toml", "h200x4/measured/nccl-tests/ar_g4.txt"),
    lambda: nccl_tests_curve("4 x H200, P2P/NVLink (`ar_g4_info.txt`)", "h200x4.toml",
                             "h200x4/measured/nccl-tests/ar_g4_info.txt"),
    lambda: nccl_tests_curve("4 x H200, SHM (`ar_g4_shm.txt`)", "h200x4.toml", "h200x4/measured/nccl-tests/ar_g4_shm.txt",
                             env("NCCL_P2P_DISABLE", 1)),
    lambda: nccl_tests_curve("4 x H200, Socket (`ar_g4_sock.txt`)", "h200x4.toml",
                             "h200x4/measured/nccl-tests/ar_g4_sock.txt",
                             env("NCCL_P2P_DISABLE", 1) + env("NCCL_SHM_DISABLE", 1)),
    lambda: torch_curve("2 x H200, all_reduce (PyTorch, `n2_default.json`)", "n2_default.json", "all_reduce"),
    lambda: torch_curve("2 x H200, all_gather (PyTorch)", "n2_default.json", "all_gather"),
    lambda: torch_curve("2 x H200, reduce_scatter (PyTorch)", "n2_default.json", "reduce_scatter"),
    lambda: torch_curve("2 x H200, broadcast (PyTorch)", "n2_default.json", "broadcast"),
    lambda: nccl_tests_curve("2 x p5.48xlarge, EFA (16 ranks)", "p5_2node_efa/scenario.toml",
                             "p5_2node_efa/measured/all_reduce_perf.txt"),
    *[lambda n=n: p5_nodes(n) for n in (2, 4, 8, 16, 32)],
    lambda: nccl_tests_curve("2 x p4de.24xlarge, EFA (16 ranks)", "p4de_2node_efa/scenario.toml",
                             "p4de_2node_efa/measured/all_reduce_perf.txt"),
    lambda: busbw_points("3 and 4 x p4d.24xlarge, EFA, 1 GiB (NVIDIA/nccl#527)", "p4d_nodes_allreduce.toml", [], 0),
    lambda: busbw_points("1 and 2 x p4d.24xlarge, 1 GiB, the same run (NVIDIA/nccl#527)", "p4d_nodes_allreduce.toml",
                         [], 0),
    azure_tray,
    lambda: nccl_tests_curve("GB200 NVL72, one rack (72 GPUs)", "gb200_nvl72/scenario.toml",
                             "gb200_nvl72/measured/all_reduce_1rack.txt"),
    lambda: nccl_tests_curve("GB200 NVL72, two racks (144 GPUs)", "gb200_nvl72/two_racks.toml",
                             "gb200_nvl72/measured/all_reduce_2racks.txt"),
    lambda: nccl_tests_curve("GB200 NVL72, twenty racks (1,440 GPUs)", "gb200_nvl72/twenty_racks.toml",
                             "gb200_nvl72/measured/all_reduce_20racks.txt"),
    lambda: busbw_points("8 x B200, one machine (NVIDIA/nccl#1807)", "b200x8/scenario.toml", [(8 << 30, 830.0)], 8),
    lambda: busbw_points("2 x 8 B200, InfiniBand (coreweave/nccl-tests#92)", "b200x8/two_nodes.toml",
                         [(8 << 30, 690.07)], 16),
    lambda: busbw_points("8 x A100, one node (NVIDIA/nccl-tests#175)", "dgx_a100_nodes_allreduce.toml",
                         [(4 << 30, 232.54)], 8, ["cluster.nodes=1"]),
    lambda: busbw_points("2 x DGX A100, InfiniBand HDR, rings (NVIDIA/nccl#812)", "dgx_a100_nodes_allreduce.toml",
                         [(8 << 30, 192.0)], 16),
    hgx_h100_nodes,
    lambda: nccl_tests_curve("2 x Azure NDm A100 v4, 8 x HDR InfiniBand (16 ranks; LL step read off 8-128 B)",
                             "ib_2node/ndm_a100_v4.toml", "ib_2node/measured/ndm_a100_v4.txt"),
    lambda: nccl_tests_curve("2 x 8 B200, Lambda, InfiniBand (16 ranks, NCCL 2.26.2)", "ib_2node/lambda_b200.toml",
                             "ib_2node/measured/lambda_b200.txt"),
    lambda: nccl_tests_curve("2 x 8 H100, Nebius, InfiniBand (16 ranks)", "ib_2node/nebius_h100.toml",
                             "ib_2node/measured/nebius_h100.txt"),
    lambda: nccl_tests_curve("2 x GCP A4, 8 x B200, RoCE (16 ranks, 8 MiB up)", "gcp_2node/a4.toml",
                             "gcp_2node/measured/a4.txt"),
    lambda: nccl_tests_curve("2 x GCP A3 Mega, 8 x H100, GPUDirect-TCPXO (16 ranks, plugin v1.0.3's Simple profile)",
                             "gcp_2node/a3_mega.toml", "gcp_2node/measured/a3_mega.txt"),
    lambda: nccl_tests_curve("2 x GCP A3 Mega, all_gather, Google's run (TCPXO's LL128 step and efficiency read off)",
                             "gcp_2node/a3_mega_allgather.toml", "gcp_2node/measured/a3_mega_allgather_google.txt",
                             op="all_gather"),
    lambda: nccl_tests_curve("2 x GCP A3 Mega, all_gather, dstack's run (8 MiB up)", "gcp_2node/a3_mega_allgather.toml",
                             "gcp_2node/measured/a3_mega_allgather_dstack.txt", op="all_gather"),
    a3_mega_mgcafe,
    a3_mega_1vm,
    lambda: nccl_tests_curve("2 x GCP A4, all_gather, Google's GKE run (cluster-toolkit @f23ae316)", "gcp_2node/a4.toml",
                             "gcp_2node/measured/a4_allgather_gke_a.txt", op="all_gather"),
    lambda: nccl_tests_curve("2 x GCP A4, all_gather, Google's GKE run (cluster-toolkit @74f7e3da)", "gcp_2node/a4.toml",
                             "gcp_2node/measured/a4_allgather_gke_b.txt", op="all_gather"),
    gb200_partitions,
    lambda: nccl_tests_curve("OCI GB300, one host (4 ranks, NCCL 2.28.7)", "gb300_oci/scenario.toml",
                             "gb300_oci/measured/all_reduce_1host.txt", ["placement.pods_per_node=1"]),
    lambda: nccl_tests_curve("OCI GB300, two hosts of one rack (8 ranks)", "gb300_oci/scenario.toml",
                             "gb300_oci/measured/all_reduce_2hosts.txt", ["placement.pods_per_node=2"]),
    lambda: nccl_tests_curve("OCI GB300 NVL72, one rack, 16 hosts (64 ranks, NCCL 2.28.7)", "gb300_oci/scenario.toml",
                             "gb300_oci/measured/all_reduce_1rack.txt"),
    lambda: nccl_tests_curve("OCI GB300 NVL72, two racks, 32 hosts (128 ranks)", "gb300_oci/scenario.toml",
                             "gb300_oci/measured/all_reduce_2racks.txt", ["cluster.nodes=2"]),
    lambda: nccl_tests_curve("OCI GB300 NVL72, one rack, all-to-all (64 ranks)", "gb300_oci/scenario.toml",
                             "gb300_oci/measured/alltoall_1rack.txt", op="alltoall"),
    *[lambda n=n: nccl_tests_curve(f"{n} x HGX H100, NDR InfiniBand ({8 * n} ranks, nccl-tests#309, another user's cluster)",
                                   "ib_nodes_h100/scenario.toml", f"ib_nodes_h100/measured/nodes{n}.txt",
                                   [f"cluster.nodes={n}"]) for n in (2, 4, 8)],
    lambda: azure_curve("Azure ND H100 v5, one VM, NVLS (NCCL 2.18.5)", "nd_h100_v5"),
    lambda: azure_curve("Azure ND H200 v5, one VM, NVLS (NCCL 2.20.5)", "nd_h200_v5"),
    lambda: azure_curve("Azure ND A100 v4, one VM (NCCL_ALGO=NVLS set, which A100 lacks; NCCL 2.18.5)", "nd_a100_v4"),
    lambda: p6_points("4 x p6-b200.48xlarge, EFA v4 (32 ranks, awsome-distributed-ai)", "p6-b200.48xlarge",
                      "p6_efa/b200_nodes.toml"),
    lambda: p6_points("2 x p6-b300.48xlarge, EFA v4, 16 and 64 GiB (awsome-distributed-ai)", "p6-b300.48xlarge",
                      "p6_efa/b300_nodes.toml"),
    *[lambda n=n: p5_alltoall(n) for n in (4, 8)],
    lambda: busbw_points("HGX B300, one machine, 8 GiB (OCI, NCCL 2.28.9)", "blackwell_nvls/b300_1node.toml",
                         [(8 << 30, 834.84)], 8),
    lambda: timed_points("GCP A4X, one NVL72 domain, 8 / 32 / 64 / 72 GPUs, all-reduce at 16 GiB",
                         "blackwell_nvls/a4x_domain.toml", "all_reduce",
                         a4x_points("all_reduce", (839.54, 908.80, 909.96, 876.55))),
    lambda: timed_points("GCP A4X, one NVL72 domain, 8 / 32 / 64 / 72 GPUs, all-to-all at 16 GiB",
                         "blackwell_nvls/a4x_domain.toml", "alltoall",
                         a4x_points("alltoall", (682.73, 675.98, 666.64, 627.18))),
    lambda: timed_points("OCI GB200 NVL72, all-reduce at 4 and 8 GiB: one host, one, two and three racks (NCCL 2.27.3)",
                         "blackwell_nvls/oci_gb200.toml", "all_reduce", oci_gb200("all_reduce")),
    lambda: timed_points("OCI GB200 NVL72, all-to-all at 4-16 GiB: one and two hosts, one, two and three racks",
                         "blackwell_nvls/oci_gb200.toml", "alltoall", oci_gb200("alltoall")),
    lambda: nccl_tests_curve("OCI GB200 NVL72, two racks, 32 hosts (128 ranks, NCCL 2.29.2, NVLS off)",
                             "blackwell_nvls/oci_gb200_v3_2racks.toml", "blackwell_nvls/measured/oci_gb200_v3_2racks.txt"),
    lambda: nccl_tests_curve("p5.48xlarge, one node, NVLink (8 ranks, awsome-distributed-ai's AWS Batch sample)",
                             "p5_1node/scenario.toml", "p5_1node/measured/all_reduce_perf.txt"),
    lambda: nccl_tests_curve("2 x p4d.24xlarge on EKS, EFA, NCCL 2.8.3, NCCL_ALGO=RING (16 ranks, aws-samples/aws-efa-eks)",
                             "p4d_2node_efa_eks/scenario.toml", "p4d_2node_efa_eks/measured/all_reduce_nccl2.8.3.txt",
                             env("NCCL_ALGO", "RING")),
    lambda: nccl_tests_curve("2 x p4d.24xlarge on EKS, EFA, NCCL 2.9.9 (16 ranks, aws-samples/aws-efa-eks)",
                             "p4d_2node_efa_eks/scenario.toml", "p4d_2node_efa_eks/measured/all_reduce_nccl2.9.9.txt"),
    lambda: nccl_tests_curve("2 x GCP A3 High, all_gather over GPUDirect-TCPX, Ring/Simple (16 ranks, Google's example; TCPX's step floor read off 1-16 MiB)",
                             "gcp_2node/a3_high_allgather.toml", "gcp_2node/measured/a3_high_allgather.txt",
                             op="all_gather"),
    lambda: nccl_tests_curve("2 x GCP A3 High, all_reduce over GPUDirect-TCPX, Ring/Simple (16 ranks, Google's example in ai-infra-cluster-provisioning)",
                             "gcp_2node/a3_high_allreduce.toml", "gcp_2node/measured/a3_high_allreduce_aiinfra.txt"),
    a3_high_torch,
    a3_high_skypilot,
    lambda: nccl_tests_curve("2 x GCP A3 High, all_gather over GPUDirect-TCPX (16 ranks, dstack's run, 8 MiB up; held out)",
                             "gcp_2node/a3_high_allgather_dstack.toml", "gcp_2node/measured/a3_high_allgather_dstack.txt",
                             op="all_gather"),
]


def p4d_points(runs=((3, 64782.0), (4, 70253.0))):
    # github.com/NVIDIA/nccl/issues/527: 1 GiB all-reduce, 64782 us on 3 nodes, 70253 us on 4 (EFA
    # v1's efficiency is read off these two); the same run's 1 node (NVLink alone) 8142.6 us and
    # 2 nodes (Tree over EFA) 35215 us.
    errs = []
    for nodes, t in runs:
        p = predict(os.path.join(V, "p4d_nodes_allreduce.toml"), "all_reduce", 1 << 30, 1 << 30,
                    [f"cluster.nodes={nodes}"])[1 << 30]
        errs.append(p["time_us"] / t - 1)
    return errs


def cell(errs):
    if not errs:
        return "-"
    return f"{statistics.median(abs(e) for e in errs) * 100:.1f} % ({statistics.median(errs) * 100:+.0f})"


rows = ["| curve | sizes | " + " | ".join(r[0] for r in RANGES) + " | all sizes |",
        "|---|---|" + "---|" * (len(RANGES) + 1)]
per_curve = []  # each curve's median |error| over all its sizes
for make in CURVES:
    label, errs = make()
    if label.startswith("3 and 4 x p4d") or label.startswith("1 and 2 x p4d"):
        e = p4d_points() if label.startswith("3") else p4d_points(((1, 8142.6), (2, 35215.0)))
        rows.append(f"| {label} | 2 | - | - | - | {cell(e)} | {cell(e)} |")
        per_curve.append(statistics.median(abs(x) for x in e))
        continue
    cells = [cell([e for s, e in errs.items() if lo <= s < hi]) for _, lo, hi in RANGES]
    rows.append(f"| {label} | {len(errs)} | " + " | ".join(cells) + f" | {cell(list(errs.values()))} |")
    per_curve.append(statistics.median(abs(x) for x in errs.values()))
# The summary the README gives under the table (kept by --check as the rows are).
rounded = [round(x * 100, 1) for x in per_curve]
rows.append(f"Over these {len(per_curve)} curves the median curve is {statistics.median(rounded):.1f} % off over all its "
            f"sizes; {sum(x <= 10 for x in rounded)} are within 10 % and {sum(x <= 20 for x in rounded)} within 20 %.")
print("\n".join(rows))
missing = 0
for check, lines in [(c, rows) for c in CHECKS] + [(s, rows[-1:]) for s in SUMMARIES]:
    doc = set(open(check).read().splitlines())
    for r in lines:
        if r not in doc:
            print(f"{check}: row not in the document as printed: {r}", file=sys.stderr)
            missing += 1
sys.exit(1 if missing else 0)
