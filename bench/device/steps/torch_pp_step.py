# One pipeline-parallel training step of the calibration decoder (scenarios/validation/h200x4/measured/
# README.md) with Megatron's non-interleaved 1F1B schedule: P stages (one per rank) of L/P blocks,
# embedding on the first, final norm + head + loss on the last, M micro-batches of 2 x 2048 tokens
# (M from the environment, default 8), activations and their gradients sent with
# batch_isend_irecv as Megatron pairs them (send_forward_recv_backward, send_backward_recv_forward),
# bf16 parameters, AdamW (foreach) per stage. Checks scenarios/validation/h200x2/step_pp_*_n2.toml.
import json, os, sys
import torch, torch.nn as nn
import torch.distributed as dist
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))  # gpu_timing, decoder
from decoder import H, V, L, SEQ, MB, Block, loss_of, time_steps

class Stage(nn.Module):
    def __init__(self, rank, p):
        super().__init__()
        self.first, self.last = rank == 0, rank == p - 1
        self.emb = nn.Embedding(V, H) if self.first else None
        self.blocks = nn.ModuleList(Block() for _ in range(L // p))
        if self.last: self.norm, self.head = nn.RMSNorm(H), nn.Linear(H, V, bias=False)
    def forward(self, x):
        if self.first: x = self.emb(x)
        for b in self.blocks: x = b(x)
        return self.head(self.norm(x)) if self.last else x

def main():
    dist.init_process_group("nccl")
    rank, p = dist.get_rank(), dist.get_world_size()
    torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", rank)))
    m = int(os.environ.get("MICRO_BATCHES", "8"))
    torch.manual_seed(rank)
    stage = Stage(rank, p).cuda().to(torch.bfloat16)
    opt = torch.optim.AdamW(stage.parameters(), lr=1e-4, foreach=True)
    tokens = torch.randint(0, V, (MB, SEQ + 1), device="cuda")
    shape = (MB, SEQ, H)

    def p2p(send=None, send_to=None, recv_from=None):
        ops, buf = [], None
        if send is not None: ops.append(dist.P2POp(dist.isend, send.contiguous(), send_to))
        if recv_from is not None:
            buf = torch.empty(shape, dtype=torch.bfloat16, device="cuda")
            ops.append(dist.P2POp(dist.irecv, buf, recv_from))
        if ops:
            for req in dist.batch_isend_irecv(ops): req.wait()
        return buf

    prev = rank - 1 if rank > 0 else None
    nxt = rank + 1 if rank < p - 1 else None

    def forward(x):
        if x is None: x = tokens[:, :-1]
        else: x.requires_grad_()
        y = stage(x)
        if stage.last: y = loss_of(y, tokens)
        return x, y

    def backward(x, y, g):
        if stage.last: y.backward()
        else: y.backward(g)
        return x.grad if not stage.first else None

    def step():
        warm = min(p - rank - 1, m)
        steady = m - warm
        saved = []
        for _ in range(warm):
            x, y = forward(p2p(recv_from=prev))
            p2p(send=y if nxt is not None else None, send_to=nxt)
            saved.append((x, y))
        x_in = p2p(recv_from=prev) if steady > 0 else None
        for i in range(steady):
            x, y = forward(x_in)
            saved.append((x, y))
            g = p2p(send=y if nxt is not None else None, send_to=nxt, recv_from=nxt)
            x0, y0 = saved.pop(0)
            gin = backward(x0, y0, g)
            if i == steady - 1:
                p2p(send=gin, send_to=prev if gin is not None else None)
            else:
                x_in = p2p(send=gin, send_to=prev if gin is not None else None, recv_from=prev)
        for _ in range(warm):
            g = p2p(recv_from=nxt)
            x0, y0 = saved.pop(0)
            gin = backward(x0, y0, g)
            p2p(send=gin, send_to=prev if gin is not None else None)
        opt.step(); opt.zero_grad(set_to_none=True)

    times = time_steps(step, barrier_each=True)
    t = torch.tensor(times, device="cuda")
    dist.all_reduce(t, op=dist.ReduceOp.MAX)  # the step ends when the slowest stage does
    if rank == 0:
        times = t.tolist()
        out = {"ranks": p, "mode": "pp", "micro_batches": m, "step_s": times, "mean_step_s": sum(times) / len(times),
               "env": {k: v for k, v in os.environ.items() if k.startswith("NCCL_")}}
        print(json.dumps(out))
        with open(sys.argv[1], "w") as f: json.dump(out, f, indent=1)
    dist.destroy_process_group()

main()
