# One Megatron-style tensor-parallel training step of the calibration decoder
# (../shared/calibration/h200x4/README.md), TP over every rank of the job: qkv, gate and up split
# by columns, o and down by rows; an all-reduce after o and after down in the forward (Megatron's
# "g"), one before qkv and before gate/up in the backward ("f"): 2 + 2 per block. Embedding, norms
# and head replicated (their gradients are equal on every rank, so no reduction), bf16 parameters,
# AdamW on bf16 tensors, micro-batch 2 x 2048 tokens. Prints the mean step time; checks
# scenarios/validation/h200x2/tp_*_n2.toml. Run with torchrun; NCCL variables from the environment.
import json, os, sys, time
import torch, torch.nn as nn, torch.nn.functional as F
import torch.distributed as dist

H, HEADS, FFN, V, L, SEQ, MB = 4096, 32, 14336, 32000, 8, 2048, 2

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

class Block(nn.Module):
    def __init__(self, tp):
        super().__init__()
        self.h = HEADS // tp
        self.n1, self.n2 = nn.RMSNorm(H), nn.RMSNorm(H)
        self.qkv, self.o = nn.Linear(H, 3 * H // tp, bias=False), nn.Linear(H // tp, H, bias=False)
        self.gate, self.up = nn.Linear(H, FFN // tp, bias=False), nn.Linear(H, FFN // tp, bias=False)
        self.down = nn.Linear(FFN // tp, H, bias=False)
    def forward(self, x):
        b, s, _ = x.shape
        q, k, v = self.qkv(ReduceBackward.apply(self.n1(x))).view(b, s, 3, self.h, H // HEADS).permute(2, 0, 3, 1, 4)
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True).transpose(1, 2).reshape(b, s, -1)
        x = x + ReduceForward.apply(self.o(a))
        h = ReduceBackward.apply(self.n2(x))
        return x + ReduceForward.apply(self.down(F.silu(self.gate(h)) * self.up(h)))

class Model(nn.Module):
    def __init__(self, tp):
        super().__init__()
        self.emb = nn.Embedding(V, H)
        self.blocks = nn.ModuleList(Block(tp) for _ in range(L))
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
        loss = F.cross_entropy(logits.float().view(-1, V), tokens[:, 1:].reshape(-1))
        loss.backward(); opt.step(); opt.zero_grad(set_to_none=True)
    for _ in range(3): step()
    torch.cuda.synchronize(); dist.barrier()
    times = []
    for _ in range(6):
        t0 = time.perf_counter(); step(); torch.cuda.synchronize(); times.append(time.perf_counter() - t0)
    if rank == 0:
        out = {"ranks": tp, "mode": "tp", "step_s": times, "mean_step_s": sum(times) / len(times),
               "params_per_rank": sum(p.numel() for p in model.parameters()),
               "env": {k: v for k, v in os.environ.items() if k.startswith("NCCL_")}}
        print(json.dumps(out))
        with open(sys.argv[1], "w") as f: json.dump(out, f, indent=1)
    dist.destroy_process_group()

main()
