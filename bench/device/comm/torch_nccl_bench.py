# Measures NCCL collectives through PyTorch the way nccl-tests times them: a back-to-back loop of
# the same op, CUDA events around it, time per iteration; sizes in nccl-tests' convention (total
# bytes for all_gather / reduce_scatter). Used to check commsim's predictions on hardware it was
# not calibrated on (here: 2 GPUs, one process each, P2P/CUMEM). Run with torchrun:
#   torchrun --nproc_per_node=2 bench/device/comm/torch_nccl_bench.py OUT.json all_reduce,all_gather,...
# WARMUP_MS=N runs each size for at least N ms before timing it (default: 3 iterations, as
# before), so GPU clocks have settled; each row records the SM clock read after timing (NVML).
import json, os, sys
import torch
import torch.distributed as dist

def main():
    dist.init_process_group("nccl")
    rank, n = dist.get_rank(), dist.get_world_size()
    torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", rank)))
    out_path, ops = sys.argv[1], sys.argv[2].split(",")
    try:
        import pynvml as nvml
        nvml.nvmlInit()
        nvml_dev = nvml.nvmlDeviceGetHandleByIndex(torch.cuda.current_device())
    except Exception:  # no NVML: rows go without the clock
        nvml, nvml_dev = None, None
    rows = []
    for op in ops:
        for k in range(3, 31):
            size = 1 << k
            count = size // 4
            if op in ("all_gather", "all_gather_inplace", "reduce_scatter", "alltoall"):
                count = (count // n) * n
            if count == 0:
                continue
            big = torch.ones(count, dtype=torch.float32, device="cuda")
            part = torch.ones(count // n, dtype=torch.float32, device="cuda")
            other = torch.empty_like(big) if op in ("alltoall", "sendrecv") else None
            def run():
                if op == "all_reduce": dist.all_reduce(big)
                elif op == "all_gather": dist.all_gather_into_tensor(big, part)
                elif op == "all_gather_inplace": dist.all_gather_into_tensor(big, big[rank * (count // n):(rank + 1) * (count // n)])
                elif op == "reduce_scatter": dist.reduce_scatter_tensor(part, big)
                elif op == "broadcast": dist.broadcast(big, 0)
                elif op == "reduce": dist.reduce(big, 0)
                elif op == "alltoall": dist.all_to_all_single(other, big)  # S per rank, S/n to each peer
                elif op == "sendrecv":  # sendrecv_perf: S to the next rank, S from the previous, at once
                    for req in dist.batch_isend_irecv([dist.P2POp(dist.isend, big, (rank + 1) % n),
                                                      dist.P2POp(dist.irecv, other, (rank - 1) % n)]):
                        req.wait()
                else: raise SystemExit("unknown op " + op)
            for _ in range(3): run()
            torch.cuda.synchronize()
            warm_ms = float(os.environ.get("WARMUP_MS", "0"))
            if warm_ms > 0:  # every rank runs the same count: rank 0's estimate, broadcast
                w0, w1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                w0.record(); run(); w1.record(); torch.cuda.synchronize()
                reps = torch.tensor([int(warm_ms / max(w0.elapsed_time(w1), 1e-3)) + 1], device="cuda")
                dist.broadcast(reps, 0)
                for _ in range(int(reps.item())): run()
                torch.cuda.synchronize()
            dist.barrier()
            iters = 20 if size <= (64 << 20) else 8
            a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            a.record()
            for _ in range(iters): run()
            b.record(); torch.cuda.synchronize()
            t_us = a.elapsed_time(b) * 1000 / iters
            if rank == 0:
                row = {"op": op, "size": count * 4, "time_us": t_us}
                if nvml: row["sm_mhz"] = nvml.nvmlDeviceGetClockInfo(nvml_dev, nvml.NVML_CLOCK_SM)
                rows.append(row)
            del big, part, other
    if rank == 0:
        with open(out_path, "w") as f:
            json.dump({"ranks": n, "env": {k: v for k, v in os.environ.items() if k.startswith("NCCL_")},
                       "torch": torch.__version__, "nccl": ".".join(map(str, torch.cuda.nccl.version())),
                       "gpu": torch.cuda.get_device_name(0), "rows": rows}, f, indent=1)
    dist.destroy_process_group()

main()
