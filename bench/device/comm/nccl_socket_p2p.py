"""NCCL point-to-point over TCP sockets against a collective on the same edges, one machine.

Every process sets NCCL_HOSTID=host<rank> (as nccl_socket_hosts.py), so NCCL joins every pair with
NET/Socket. Points, in ROUNDS interleaved rounds:
  sr64   ring send/recv, 64 MiB: each rank sends to rank+1 and receives from rank-1 in one group
         (nccl-tests' sendrecv_perf pattern)
  sr4    the same at 4 MiB
  ar32   all_reduce, bf16, 32 MiB, all ranks (the collectives' rate on the same ring edges)
Per point: ITERS calls between CUDA events, the slowest rank's time per call, and the bytes each
rank sends per call over that time ("per direction": send/recv S, ring all_reduce 2 (n-1)/n S).
NCCL_P2P_NET_CHUNKSIZE (NCCL's point-to-point chunk over the network, 128 KiB by default) is
recorded with every row: it is what the launches vary.

Run:  torchrun --standalone --nproc_per_node=4 bench/device/comm/nccl_socket_p2p.py OUT.jsonl TAG
"""
import json, os, sys, time

os.environ["NCCL_HOSTID"] = f"host{int(os.environ['RANK'])}"  # before torch starts NCCL
import torch
import torch.distributed as dist


def main():
    out_path, tag = sys.argv[1], sys.argv[2]
    rounds = int(os.environ.get("ROUNDS", "3"))
    dist.init_process_group("nccl")
    rank, n = dist.get_rank(), dist.get_world_size()
    dev = torch.device("cuda", rank % torch.cuda.device_count())
    torch.cuda.set_device(dev)
    bf16 = torch.bfloat16
    s64, r64 = torch.ones(64 << 19, dtype=bf16, device=dev), torch.empty(64 << 19, dtype=bf16, device=dev)
    s4, r4 = torch.ones(4 << 19, dtype=bf16, device=dev), torch.empty(4 << 19, dtype=bf16, device=dev)
    x32 = torch.ones(32 << 19, dtype=bf16, device=dev)
    nxt, prv = (rank + 1) % n, (rank - 1) % n

    def ring(sb, rb):
        ops = [dist.P2POp(dist.isend, sb, nxt), dist.P2POp(dist.irecv, rb, prv)]
        for w in dist.batch_isend_irecv(ops): w.wait()

    points = [("sr64", lambda: ring(s64, r64), 64 << 20, 8), ("sr4", lambda: ring(s4, r4), 4 << 20, 30),
              ("ar32", lambda: dist.all_reduce(x32), 2 * (n - 1) / n * (32 << 20), 10)]
    for _, fn, _, _ in points:
        fn(); fn()
    torch.cuda.synchronize(); dist.barrier()
    for rnd in range(rounds):
        for name, fn, sent, iters in points:
            dist.barrier(); torch.cuda.synchronize()
            a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            a.record()
            for _ in range(iters): fn()
            b.record(); torch.cuda.synchronize()
            t = torch.tensor([a.elapsed_time(b) / iters], device=dev)
            dist.all_reduce(t, op=dist.ReduceOp.MAX)
            ms = t.item()
            if rank == 0:
                row = dict(tag=tag, round=rnd, point=name, ranks=n, iters=iters, time_ms=ms, sent_bytes=sent,
                           per_direction_GBps=sent / (ms * 1e-3) / 1e9,
                           p2p_net_chunksize=os.environ.get("NCCL_P2P_NET_CHUNKSIZE", "default"),
                           nccl=".".join(map(str, torch.cuda.nccl.version())), torch=torch.__version__,
                           wall=time.strftime("%H:%M:%S", time.gmtime()))
                print(json.dumps(row), flush=True)
                with open(out_path, "a") as f:
                    f.write(json.dumps(row) + "\n")
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
