# The calibration decoder (scenarios/validation/h200x4/measured/README.md: 8 blocks, hidden 4096, 32 heads,
# SwiGLU 14336, vocab 32000, no rotary, untied, sequence 2048, micro-batch 2) shared by the step
# scripts, and the timing loop they share (3 warm-up steps, then 6 timed with CUDA synchronisation).
import time
import torch, torch.nn as nn, torch.nn.functional as F
import torch.distributed as dist

H, HEADS, FFN, V, L, SEQ, MB = 4096, 32, 14336, 32000, 8, 2048, 2

def _same(x): return x

class Block(nn.Module):
    """One decoder block, its matrices split over `tp` ranks (columns for qkv/gate/up, rows for
    o/down). `f` and `g` are Megatron's conjugate operators around the split parts (identity
    when tp == 1)."""
    def __init__(self, tp=1, f=_same, g=_same):
        super().__init__()
        self.h, self.f, self.g = HEADS // tp, f, g
        self.n1, self.n2 = nn.RMSNorm(H), nn.RMSNorm(H)
        self.qkv, self.o = nn.Linear(H, 3 * H // tp, bias=False), nn.Linear(H // tp, H, bias=False)
        self.gate, self.up = nn.Linear(H, FFN // tp, bias=False), nn.Linear(H, FFN // tp, bias=False)
        self.down = nn.Linear(FFN // tp, H, bias=False)
    def forward(self, x):
        b, s, _ = x.shape
        q, k, v = self.qkv(self.f(self.n1(x))).view(b, s, 3, self.h, H // HEADS).permute(2, 0, 3, 1, 4)
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True).transpose(1, 2).reshape(b, s, -1)
        x = x + self.g(self.o(a))
        h = self.f(self.n2(x))
        return x + self.g(self.down(F.silu(self.gate(h)) * self.up(h)))

def loss_of(logits, tokens):
    return F.cross_entropy(logits.float().view(-1, V), tokens[:, 1:].reshape(-1))

def time_steps(step, timed=6, barrier_each=False):
    """Seconds per timed step after 3 warm-up steps."""
    for _ in range(3): step()
    torch.cuda.synchronize(); dist.barrier()
    times = []
    for _ in range(timed):
        if barrier_each:
            dist.barrier(); torch.cuda.synchronize()
        t0 = time.perf_counter(); step(); torch.cuda.synchronize(); times.append(time.perf_counter() - t0)
    return times


class Model(nn.Module):
    def __init__(self, blocks, ckpt):
        super().__init__()
        from torch.distributed.algorithms._checkpoint.checkpoint_wrapper import checkpoint_wrapper
        self.emb = nn.Embedding(V, H)
        self.blocks = nn.ModuleList((checkpoint_wrapper(Block()) if ckpt else Block()) for _ in range(blocks))
        self.norm, self.head = nn.RMSNorm(H), nn.Linear(H, V, bias=False)
    def forward(self, t):
        x = self.emb(t)
        for b in self.blocks: x = b(x)
        return self.head(self.norm(x))
