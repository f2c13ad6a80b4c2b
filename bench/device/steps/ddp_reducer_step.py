# What PyTorch DDP's Reducer adds to one GPU's training step, measured: the same GPT-2-shaped step
# (gpt2_step.py's model, bf16 parameters, foreach AdamW) run plain, wrapped in DistributedDataParallel
# on a one-rank NCCL process group with its defaults (gradient_as_bucket_view=False: every gradient is
# scaled into its bucket as its hook fires and copied back to .grad after the all-reduce), and wrapped
# with gradient_as_bucket_view=True (the gradients are the buckets: no copy in, no copy back). One
# rank's NCCL all-reduce of a bucket moves nothing, so the difference between the wrappings is the
# Reducer's memory traffic and its kernels (scenarios/validation/h100x1/measured/ddp_reducer.jsonl;
# tests/validation/one_gpu/h100x1_ddp_reducer_validation_test.cpp reads it).
#   python3 bench/device/steps/ddp_reducer_step.py OUT.jsonl
# Per configuration: build, then the three modes interleaved 5 rounds x (2 warm-up + 6 timed steps,
# CUDA-synchronised); per mode the median of its 30 timed steps.
import os, sys, time, statistics
import torch, torch.nn.functional as F, torch.distributed as dist
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))  # gpu_timing
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # gpt2_step: the model
from gpu_timing import Rows, device_info, clocks
from gpt2_step import G, V, S
from torch.nn.parallel import DistributedDataParallel as DDP


def main():
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29517")
    dist.init_process_group("nccl", rank=0, world_size=1, device_id=torch.device("cuda", 0))
    R = Rows(sys.argv[1])
    R(kind="info", nccl_version=".".join(map(str, torch.cuda.nccl.version())), **device_info())
    for nm, L, h, a, mb, seq in [("gpt2-medium", 24, 1024, 16, 1, 512), ("gpt2-large", 36, 1280, 20, 1, 512),
                                 ("gpt2-xl", 48, 1600, 25, 1, 512), ("gpt2-xl", 48, 1600, 25, 2, 1024)]:
        models, opts = {}, {}
        for k in ("plain", "ddp", "ddp_bucket_view"):  # one model each: a DDP wrapper hooks its parameters
            torch.manual_seed(0)
            with torch.device("cuda"):
                base = G(L, h, a).to(torch.bfloat16)
            opts[k] = torch.optim.AdamW(base.parameters(), lr=1e-4, foreach=True)
            models[k] = base if k == "plain" else DDP(base, bucket_cap_mb=25,
                                                      gradient_as_bucket_view=(k == "ddp_bucket_view"))
        tk = torch.randint(0, V, (mb, seq + 1), device="cuda")
        times = {k: [] for k in models}

        def step(k):
            F.cross_entropy(models[k](tk[:, :-1]).float().view(-1, V), tk[:, 1:].reshape(-1)).backward()
            opts[k].step()
            opts[k].zero_grad(set_to_none=True)

        for _ in range(5):
            for k in models:
                for _ in range(2):
                    step(k)
                for _ in range(6):
                    torch.cuda.synchronize(); t0 = time.perf_counter(); step(k); torch.cuda.synchronize()
                    times[k].append(time.perf_counter() - t0)
        n = sum(x.numel() for x in models["plain"].parameters())
        row = {k + "_median_s": statistics.median(v) for k, v in times.items()}
        R(kind="ddp_reducer_step", model=nm, layers=L, hidden=h, heads=a, seq=seq, vocab=V, micro_batch=mb,
          params_count=n, grad_bytes=2 * n, steps_s=times, **row, **clocks())
        print(nm, mb, seq, {k: round(v * 1e3, 2) for k, v in row.items()}, flush=True)
        del models, opts, base
        torch.cuda.empty_cache()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
