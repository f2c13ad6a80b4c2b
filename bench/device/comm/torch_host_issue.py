"""What one PyTorch process's host spends to issue one NCCL collective, per op and size.

The 2 x H200 curves of scenarios/validation/h200x2/ were timed by torch_nccl_bench.py: a
back-to-back loop of one op between CUDA events, so below ~1 MiB the loop runs at the host's issue
rate, not the GPUs'. This measures that issue rate on its own: ITERS calls queued without a
synchronisation, wall time per call on the host (`issue_us`), with the GPU behind (its own time
per call, `gpu_us`, is larger where the host is the faster). Ops and sizes as torch_nccl_bench.py
calls them (all_reduce, all_gather_into_tensor, reduce_scatter_tensor, broadcast; nccl-tests'
size convention), ROUNDS interleaved rounds.

On one GPU, ranks > 1 share it: every process sets NCCL_HOSTID=host<rank> first, so NCCL takes
each for a host of its own and joins them with NET/Socket (kernels are launched as with P2P; the
network's proxy runs on its own thread). Run under MPS so the ranks' kernels run at once.

Run:  torchrun --standalone --nproc_per_node=N bench/device/comm/torch_host_issue.py OUT.jsonl
Writes one JSON line per op, size and round (rank 0's host; appends).
"""
import json, os, sys, time

os.environ["NCCL_HOSTID"] = "host" + os.environ.get("RANK", "0")  # before torch starts NCCL
import torch
import torch.distributed as dist


def main():
    out_path = sys.argv[1]
    iters, rounds = int(os.environ.get("ITERS", "40")), int(os.environ.get("ROUNDS", "5"))
    dist.init_process_group("nccl")
    rank, n = dist.get_rank(), dist.get_world_size()
    torch.cuda.set_device(rank % torch.cuda.device_count())
    rows = []
    for rnd in range(rounds):
        for op in ("all_reduce", "all_gather", "reduce_scatter", "broadcast"):
            for size in (8 * n, 1024, 65536):
                count = max(size // 4 // n * n, n)
                big = torch.ones(count, dtype=torch.float32, device="cuda")
                part = torch.ones(count // n, dtype=torch.float32, device="cuda")

                def run():
                    if op == "all_reduce": dist.all_reduce(big)
                    elif op == "all_gather": dist.all_gather_into_tensor(big, part)
                    elif op == "reduce_scatter": dist.reduce_scatter_tensor(part, big)
                    else: dist.broadcast(big, 0)

                for _ in range(5): run()
                torch.cuda.synchronize(); dist.barrier(); torch.cuda.synchronize()
                a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                a.record()
                t0 = time.perf_counter()
                for _ in range(iters): run()
                t1 = time.perf_counter()
                b.record(); torch.cuda.synchronize()
                row = {"kind": "torch_issue", "launch": os.environ.get("TAG", ""), "round": rnd, "ranks": n, "op": op, "size": count * 4,
                       "issue_us": (t1 - t0) / iters * 1e6, "gpu_us": a.elapsed_time(b) / iters * 1e3}
                if rank == 0: rows.append(row)
                dist.barrier()
    if rank == 0:
        with open(out_path, "a") as f:
            for r in rows: f.write(json.dumps(r) + "\n")
        print(json.dumps({"torch": torch.__version__, "nccl": ".".join(map(str, torch.cuda.nccl.version())),
                          "ranks": n, "rows": len(rows)}))
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
