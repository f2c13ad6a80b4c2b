# One Megatron-style tensor-parallel training step of the calibration decoder
# (scenarios/validation/h200x4/measured/README.md), TP over every rank of the job: qkv, gate and up split
# by columns, o and down by rows; an all-reduce after o and after down in the forward (Megatron's
# "g"), one before qkv and before gate/up in the backward ("f"): 2 + 2 per block. Embedding, norms
# and head replicated (their gradients are equal on every rank, so no reduction), bf16 parameters,
# AdamW on bf16 tensors, micro-batch 2 x 2048 tokens. Prints the mean step time; checks
# scenarios/validation/h200x2/tp_*_n2.toml. Run with torchrun; NCCL variables from the environment.
import json, os, sys
import torch, torch.nn as nn
import torch.distributed as dist
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))  # gpu_timing, decoder
from decoder import H, V, L, SEQ, MB, Block, loss_of, time_steps

class ReduceForward(torch.autograd.Function):   # Megatron's g: all-reduce forward, identity backward
    @staticmethod
    def forward(ctx, x):
        if dist.get_world_size() > 1: dist.all_reduce(x)
        return x
    @staticmethod
    def backward(ctx, g): return g

class ReduceBackward(torch.autograd.Function):  # Megatron's f: identity forward, all-reduce backward
    @staticmethod
    def forward(ctx, x): return x
    @staticmethod
    def backward(ctx, g):
        g = g.contiguous()
        if dist.get_world_size() > 1: dist.all_reduce(g)
        return g

class Model(nn.Module):
    def __init__(self, tp):
        super().__init__()
        self.emb = nn.Embedding(V, H)
        self.blocks = nn.ModuleList(Block(tp, ReduceBackward.apply, ReduceForward.apply) for _ in range(L))
        self.norm, self.head = nn.RMSNorm(H), nn.Linear(H, V, bias=False)
    def forward(self, t):
        x = self.emb(t)
        for b in self.blocks: x = b(x)
        return self.head(self.norm(x))

def main():
    dist.init_process_group("nccl")
    rank, tp = dist.get_rank(), dist.get_world_size()
    torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", rank)))
    torch.manual_seed(0)
    model = Model(tp).cuda().to(torch.bfloat16)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, foreach=True)
    tokens = torch.randint(0, V, (MB, SEQ + 1), device="cuda")
    def step():
        logits = model(tokens[:, :-1])
        loss_of(logits, tokens).backward(); opt.step(); opt.zero_grad(set_to_none=True)
    times = time_steps(step)
    if rank == 0:
        out = {"ranks": tp, "mode": "tp", "step_s": times, "mean_step_s": sum(times) / len(times),
               "params_per_rank": sum(p.numel() for p in model.parameters()),
               "env": {k: v for k, v in os.environ.items() if k.startswith("NCCL_")}}
        print(json.dumps(out))
        with open(sys.argv[1], "w") as f: json.dump(out, f, indent=1)
    dist.destroy_process_group()

main()
