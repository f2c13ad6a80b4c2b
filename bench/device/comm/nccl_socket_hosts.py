"""NCCL over TCP sockets between processes that NCCL takes for separate hosts, on one machine.

Every process sets NCCL_HOSTID=host<rank> before NCCL starts, so NCCL sees one GPU per host and
joins every pair with NET/Socket (no InfiniBand device), as the 4 x H200 runs' "4 pods x 1 GPU"
(scenarios/validation/h200x4/measured/tcp/). On a machine with fewer GPUs than processes the
processes share GPUs (rank % device count): NCCL allows that only because the host ids differ.

What one launch measures, in ROUNDS interleaved rounds (so a drift of the machine shows as a
spread of one point across rounds, and a difference between points is measured side by side):
  ar32   all_reduce, bf16, 32 MiB, all ranks: the TP-4 step's message (2 per block forward, 2 backward)
  ag_blk all_gather, bf16, 121,638,912 B per rank: one FSDP2 block of the calibration decoder
  rs_blk reduce_scatter of the same block
  ag64   all_gather, 64 MiB in total, all ranks (coll_bench.py's largest all_gather)
  bc2    broadcast, 64 MiB, ranks {0, 1} only, root 0: rank 0 only sends, rank 1 only receives
  ar2    all_reduce, 64 MiB, ranks {0, 1} only: each of the two sends and receives
Per point: ITERS back-to-back calls between CUDA events, the slowest rank's time per call, and the
bytes each rank sends per call over that time ("per direction": ring all_reduce 2 (n-1)/n S,
all_gather / reduce_scatter (n-1)/n S of the total S, 2-rank broadcast and all_reduce S).

Run:  torchrun --standalone --nproc_per_node=4 bench/device/comm/nccl_socket_hosts.py OUT.jsonl TAG
Env:  ROUNDS (default 3), NCCL_* as usual (NCCL_DEBUG=INFO shows channels and socket threads).
Writes one JSON line per point and round to OUT.jsonl (appends), rank 0 only.
"""
import json, os, sys, time

rank_env = int(os.environ["RANK"])
os.environ["NCCL_HOSTID"] = f"host{rank_env}"  # before torch starts NCCL
import torch
import torch.distributed as dist


def main():
    out_path, tag = sys.argv[1], sys.argv[2]
    rounds = int(os.environ.get("ROUNDS", "3"))
    dist.init_process_group("nccl")
    rank, n = dist.get_rank(), dist.get_world_size()
    dev = torch.device("cuda", rank % torch.cuda.device_count())
    torch.cuda.set_device(dev)
    pair = dist.new_group([0, 1])
    bf16 = torch.bfloat16
    blk = 121638912 // 2  # bf16 elements per rank of one FSDP2 block
    x32 = torch.ones(32 << 19, dtype=bf16, device=dev)  # 32 MiB
    blk_in = torch.ones(blk, dtype=bf16, device=dev)
    blk_out = torch.empty(blk * n, dtype=bf16, device=dev)
    ag64_in = torch.ones((64 << 19) // n, dtype=bf16, device=dev)
    ag64_out = torch.empty(64 << 19, dtype=bf16, device=dev)
    x64 = torch.ones(64 << 19, dtype=bf16, device=dev)

    def ar32(): dist.all_reduce(x32)
    def ag_blk(): dist.all_gather_into_tensor(blk_out, blk_in)
    def rs_blk(): dist.reduce_scatter_tensor(blk_in, blk_out)
    def ag64(): dist.all_gather_into_tensor(ag64_out, ag64_in)
    def bc2(): dist.broadcast(x64, 0, group=pair)
    def ar2(): dist.all_reduce(x64, group=pair)

    S32, SBLK, S64 = 32 << 20, 121638912 * n, 64 << 20
    points = [  # name, fn, ranks taking part, bytes each sends per call, iterations
        ("ar32", ar32, n, 2 * (n - 1) / n * S32, 10),
        ("ag_blk", ag_blk, n, (n - 1) / n * SBLK, 3),
        ("rs_blk", rs_blk, n, (n - 1) / n * SBLK, 3),
        ("ag64", ag64, n, (n - 1) / n * S64, 8),
        ("bc2", bc2, 2, S64, 8),
        ("ar2", ar2, 2, S64, 8),
    ]
    for name, fn, ranks, _, _ in points:  # connect and warm up every communicator once
        if rank < ranks:
            fn(); fn()
    torch.cuda.synchronize(); dist.barrier()
    for rnd in range(rounds):
        for name, fn, ranks, sent, iters in points:
            dist.barrier(); torch.cuda.synchronize()
            ms = 0.0
            if rank < ranks:
                a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                a.record()
                for _ in range(iters): fn()
                b.record(); torch.cuda.synchronize()
                ms = a.elapsed_time(b) / iters
            t = torch.tensor([ms], device=dev)
            dist.all_reduce(t, op=dist.ReduceOp.MAX)
            ms = t.item()
            if rank == 0:
                row = dict(tag=tag, round=rnd, point=name, ranks=ranks, iters=iters, time_ms=ms,
                           sent_bytes=sent, per_direction_GBps=sent / (ms * 1e-3) / 1e9,
                           affinity=sorted(os.sched_getaffinity(0)), nproc=os.cpu_count(),
                           gpus=torch.cuda.device_count(), nccl=".".join(map(str, torch.cuda.nccl.version())),
                           torch=torch.__version__, wall=time.strftime("%H:%M:%S", time.gmtime()))
                print(json.dumps(row), flush=True)
                with open(out_path, "a") as f:
                    f.write(json.dumps(row) + "\n")
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
