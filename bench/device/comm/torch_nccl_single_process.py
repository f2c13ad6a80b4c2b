# NCCL collectives from ONE process driving every GPU (torch.cuda.nccl: ncclCommInitAll and a
# group of per-device calls, like nccl-tests -g N), so NCCL connects the GPUs with
# "P2P/direct pointer" instead of P2P/CUMEM between processes. Timed like torch_nccl_bench.py
# (back-to-back loop, wall time around it after synchronising every device; nccl-tests' sizes).
#   python3 torch_nccl_single_process.py OUT.json all_reduce,all_gather,reduce_scatter,broadcast
import json, os, sys, time
import torch
import torch.cuda.nccl as nccl

def main():
    out_path, ops = sys.argv[1], sys.argv[2].split(",")
    n = torch.cuda.device_count()
    devs = list(range(n))
    rows = []
    for op in ops:
        for k in range(20, 31):
            size = 1 << k
            count = size // 4
            if op in ("all_gather", "reduce_scatter"):
                count = (count // n) * n
            big = [torch.ones(count, dtype=torch.float32, device=f"cuda:{d}") for d in devs]
            part = [torch.ones(count // n, dtype=torch.float32, device=f"cuda:{d}") for d in devs]
            def run():
                if op == "all_reduce": nccl.all_reduce(big)
                elif op == "all_gather": nccl.all_gather(part, big)
                elif op == "reduce_scatter": nccl.reduce_scatter(big, part)
                elif op == "broadcast": nccl.broadcast(big, root=0)
                else: raise SystemExit("unknown op " + op)
            def sync():
                for d in devs: torch.cuda.synchronize(d)
            for _ in range(3): run()
            sync()
            iters = 20 if size <= (64 << 20) else 8
            t0 = time.perf_counter()
            for _ in range(iters): run()
            sync()
            rows.append({"op": op, "size": count * 4, "time_us": (time.perf_counter() - t0) * 1e6 / iters})
            del big, part
    with open(out_path, "w") as f:
        json.dump({"ranks": n, "mode": "single process (torch.cuda.nccl)",
                   "env": {k: v for k, v in os.environ.items() if k.startswith("NCCL_")},
                   "torch": torch.__version__, "nccl": ".".join(map(str, torch.cuda.nccl.version())),
                   "gpu": torch.cuda.get_device_name(0), "rows": rows}, f, indent=1)

main()
