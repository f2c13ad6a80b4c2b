# Kernel-time breakdown of the two single-GPU calibration steps on one GPU (what
# a step spends in GEMMs, attention, memory-bound kernels and the optimizer), 8 blocks, micro-batch 2:
#   fsdp   as z3_n1 (FSDP2 on one rank, fp32 parameters, bf16 compute, foreach AdamW, fp32 states)
#   plain  as tp_n1 (bf16 parameters, foreach AdamW, bf16 states)
#
#   python3 bench/device/steps/step_profile.py OUT.jsonl OUTDIR
#
# Per mode: 3 warm-up steps, 6 steps timed with torch.cuda.synchronize (mean and each), then 3 steps
# under torch.profiler (CUDA activity). One JSON line per mode: step times, every GPU kernel's total
# time per step and calls per step (self device time of the profiler's kernel rows), and totals per
# class (gemm, attention, optimizer, nccl, other), classes by kernel name (regular expressions below);
# OUTDIR/profile_<mode>.txt holds the profiler's own table.
import os, re, sys, time
import torch
import torch.distributed as dist
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))  # gpu_timing, decoder
from gpu_timing import Rows, clocks, device_info
from decoder import V, SEQ, MB, Model, loss_of

# Attention first: cuDNN's SDPA kernels carry "sm90_" in their names. (The committed step_profile.jsonl was
# written with gemm first, so its "class" fields count cuDNN SDPA as gemm; analysis/analyze_h200x1.py reclassifies.)
CLASSES = [("attention", r"flash|fmha|sdpa|attention|cudnn"),
           ("gemm", r"gemm|nvjet|xmma|cutlass|sm90_|cublas"),
           ("optimizer", r"multi_tensor|foreach|adam"),
           ("nccl", r"nccl"),
           ("other", r".")]


def klass(name):
    for c, pat in CLASSES:
        if re.search(pat, name, re.I):
            return c


def main():
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1"); os.environ.setdefault("MASTER_PORT", "29512")
    dist.init_process_group("nccl", rank=0, world_size=1)
    torch.cuda.set_device(0)
    rows, outdir = Rows(sys.argv[1]), sys.argv[2]
    rows(kind="info", **device_info())
    from torch.distributed.fsdp import fully_shard, MixedPrecisionPolicy
    from torch.profiler import profile, ProfilerActivity
    for mode in ("fsdp", "plain"):
        torch.manual_seed(0)
        with torch.device("cuda"):
            model = Model(8, False)
        if mode == "fsdp":
            mp = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.bfloat16)
            for b in model.blocks: fully_shard(b, mp_policy=mp)
            fully_shard(model, mp_policy=mp)
        else:
            model = model.to(torch.bfloat16)
        opt = torch.optim.AdamW(model.parameters(), lr=1e-4, foreach=True)
        tokens = torch.randint(0, V, (MB, SEQ + 1), device="cuda")
        def step():
            loss_of(model(tokens[:, :-1]), tokens).backward(); opt.step(); opt.zero_grad(set_to_none=True)
        for _ in range(3): step()
        torch.cuda.synchronize()
        times = []
        for _ in range(6):
            t0 = time.perf_counter(); step(); torch.cuda.synchronize(); times.append(time.perf_counter() - t0)
        clk = clocks()
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            for _ in range(3): step()
            torch.cuda.synchronize()
        try:
            with open(os.path.join(outdir, f"profile_{mode}.txt"), "w") as f:
                f.write(prof.key_averages().table(sort_by="cuda_time_total", row_limit=60, max_name_column_width=90))
        except Exception as e:
            rows(kind="error", where="table " + mode, error=repr(e)[:300])
        kernels, totals = [], {}
        for e in prof.key_averages():
            t = getattr(e, "self_device_time_total", None)
            if t is None:
                t = e.self_cuda_time_total
            if not t or "CUDA" not in str(getattr(e, "device_type", "CUDA")):
                continue
            c = klass(e.key)
            kernels.append({"name": e.key[:200], "class": c, "us_per_step": t / 3, "calls_per_step": e.count / 3})
            totals[c] = totals.get(c, 0) + t / 3
        kernels.sort(key=lambda k: -k["us_per_step"])
        rows(kind="profile", mode=mode, blocks=8, micro_batch=MB, seq=SEQ, step_s=times, mean_step_s=sum(times) / 6,
             class_us_per_step=totals, kernel_us_per_step=sum(totals.values()), kernels=kernels[:150], **clk)
        del model, opt, prof
        torch.cuda.empty_cache()
    dist.destroy_process_group()


main()
