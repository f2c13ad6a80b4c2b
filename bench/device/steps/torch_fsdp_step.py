# One training step of the calibration decoder (scenarios/validation/h200x4/measured/README.md: 8 blocks,
# hidden 4096, 32 heads, SwiGLU 14336, vocab 32000, no rotary, untied) with FSDP2 full sharding
# per block, fp32 parameters, bf16 compute and collectives, AdamW fp32 on the GPU; micro-batch 2
# x 2048 tokens per GPU. Prints the mean step time over timed steps, to check commsim's
# scenarios/validation/h200x4/z3_p2p_n2.toml prediction out of sample. Run with torchrun.
import json, os, sys
import torch, torch.nn as nn
import torch.distributed as dist
from torch.distributed.fsdp import fully_shard, MixedPrecisionPolicy
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))  # gpu_timing, decoder
from decoder import H, V, L, SEQ, MB, Block, loss_of, time_steps

class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(V, H)
        self.blocks = nn.ModuleList(Block() for _ in range(L))
        self.norm, self.head = nn.RMSNorm(H), nn.Linear(H, V, bias=False)
    def forward(self, t):
        x = self.emb(t)
        for b in self.blocks: x = b(x)
        return self.head(self.norm(x))

def main():
    # HOSTID_PER_RANK=1: every process its own NCCL host (pods on one node without shared IPC,
    # as scenarios/validation/h200x4/z3_pod1_n4.toml models with NCCL_HOSTID).
    if os.environ.get("HOSTID_PER_RANK"):
        os.environ["NCCL_HOSTID"] = "pod" + os.environ.get("RANK", "0")
    dist.init_process_group("nccl")
    rank = dist.get_rank()
    torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", rank)))
    torch.manual_seed(0)
    model = Model().cuda()
    mp = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.bfloat16)
    for b in model.blocks: fully_shard(b, mp_policy=mp)
    fully_shard(model, mp_policy=mp)
    # ADAMW=foreach (PyTorch's default on CUDA, many passes over the states) or fused (one kernel).
    impl = os.environ.get("ADAMW", "foreach")
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, **({"fused": True} if impl == "fused" else {"foreach": True}))
    tokens = torch.randint(0, V, (MB, SEQ + 1), device="cuda")
    def step():
        logits = model(tokens[:, :-1])
        loss_of(logits, tokens).backward(); opt.step(); opt.zero_grad(set_to_none=True)
    times = time_steps(step)
    if os.environ.get("PROFILE"):  # kernel-time table of 3 steps, to see what overlap costs compute
        from torch.profiler import profile, ProfilerActivity
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            for _ in range(3): step()
            torch.cuda.synchronize()
        if rank == 0:
            with open(os.environ["PROFILE"], "w") as f:
                f.write(prof.key_averages().table(sort_by="cuda_time_total", row_limit=40, max_name_column_width=70))
    if rank == 0:
        out = {"ranks": dist.get_world_size(), "step_s": times, "mean_step_s": sum(times) / len(times),
               "params": sum(p.numel() for p in model.parameters()), "adamw": impl,
               "env": {k: v for k, v in os.environ.items() if k.startswith("NCCL_")}}
        print(json.dumps(out))
        with open(sys.argv[1], "w") as f: json.dump(out, f, indent=1)
    dist.destroy_process_group()

main()
