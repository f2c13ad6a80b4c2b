# Pipeline stages' and other shapes' compute on ONE GPU, no communication (mechanism 2:
# checks of the compute model out of sample).
#
#   python3 bench/device/compute/stage_compute.py OUT.jsonl
#
# kind "stage_step": torch_pp_step.py's two stages of the calibration decoder (2 stages of 4 blocks;
#   stage 0 with the embedding, stage 1 with the final norm, head and loss) run alone on one GPU:
#   8 micro-batches of 2 x 2048 tokens in 1F1B order without the sends (stage 0: forward, then
#   backward with a random output gradient; stage 1: forward from a random input activation that
#   requires grad, loss, backward), then foreach AdamW on the stage's bf16 parameters.
# kind "plain_step": the tp_n1-like plain bf16 step (foreach) at micro-batch 1 and 4, and at 2 with
#   activation checkpointing on every block (torch.utils.checkpoint, non-reentrant).
# Each: 3 warm-up steps, 6 timed (torch.cuda.synchronize each), 3 under torch.profiler (kernel time
# per step by class, as tp_rank_compute.py).
import os, re, sys, time, traceback
import torch, torch.nn as nn
from torch.utils.checkpoint import checkpoint
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))  # gpu_timing, decoder
from gpu_timing import Rows, clocks, device_info, smi
from decoder import H, V, L, SEQ, MB, Block, loss_of

CLASSES = [("attention", r"flash|fmha|sdpa|attention|cudnn"), ("gemm", r"gemm|nvjet|xmma|cutlass|sm90_|cublas"),
           ("optimizer", r"multi_tensor|foreach|adam"), ("copies", r"copy|Memcpy|chunk_cat|CatArray"), ("other", r".")]


def klass(name):
    for c, pat in CLASSES:
        if re.search(pat, name, re.I):
            return c


class Stage(nn.Module):
    def __init__(self, first, last, blocks, ckpt=False):
        super().__init__()
        self.first, self.last, self.ckpt = first, last, ckpt
        self.emb = nn.Embedding(V, H) if first else None
        self.blocks = nn.ModuleList(Block() for _ in range(blocks))
        if last: self.norm, self.head = nn.RMSNorm(H), nn.Linear(H, V, bias=False)
    def forward(self, x):
        if self.first: x = self.emb(x)
        for b in self.blocks: x = checkpoint(b, x, use_reentrant=False) if self.ckpt else b(x)
        return self.head(self.norm(x)) if self.last else x


def measure(rows, kind, step, **meta):
    from torch.profiler import profile, ProfilerActivity
    for _ in range(3): step()
    torch.cuda.synchronize()
    times = []
    for _ in range(6):
        t0 = time.perf_counter(); step(); torch.cuda.synchronize(); times.append(time.perf_counter() - t0)
    clk = clocks()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(3): step()
        torch.cuda.synchronize()
    totals, calls = {}, 0
    for e in prof.key_averages():
        t = getattr(e, "self_device_time_total", None)
        if t is None: t = e.self_cuda_time_total
        if not t or "CUDA" not in str(getattr(e, "device_type", "CUDA")): continue
        c = klass(e.key)
        totals[c] = totals.get(c, 0) + t / 3
        calls += e.count / 3
    rows(kind=kind, **meta, step_s=times, mean_step_s=sum(times) / 6, class_us_per_step=totals,
         kernel_us_per_step=sum(totals.values()), kernel_calls_per_step=calls, **clk)


def stage_step(rows, stage_index, m=8):
    torch.manual_seed(stage_index)
    first, last = stage_index == 0, stage_index == 1
    stage = Stage(first, last, L // 2).cuda().to(torch.bfloat16)
    opt = torch.optim.AdamW(stage.parameters(), lr=1e-4, foreach=True)
    tokens = torch.randint(0, V, (MB, SEQ + 1), device="cuda")
    act = torch.randn(MB, SEQ, H, device="cuda", dtype=torch.bfloat16)
    grad = torch.randn(MB, SEQ, H, device="cuda", dtype=torch.bfloat16)
    def fwd():
        if first:
            return None, stage(tokens[:, :-1])
        x = act.clone().requires_grad_()
        return x, loss_of(stage(x), tokens)
    def bwd(x, y):
        if last: y.backward()
        else: y.backward(grad)
    def step():  # 1F1B order of a 2-stage pipeline without the transfers
        warm = 1 if first else 0
        saved = [fwd() for _ in range(warm)]
        for _ in range(m - warm):
            saved.append(fwd())
            bwd(*saved.pop(0))
        for _ in range(warm):
            bwd(*saved.pop(0))
        opt.step(); opt.zero_grad(set_to_none=True)
    measure(rows, "stage_step", step, stage=stage_index, micro_batches=m, blocks=L // 2,
            params=sum(p.numel() for p in stage.parameters()))
    del stage, opt
    torch.cuda.empty_cache()


def plain_step(rows, mb, ckpt):
    torch.manual_seed(0)
    model = Stage(True, True, L, ckpt).cuda().to(torch.bfloat16)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, foreach=True)
    tokens = torch.randint(0, V, (mb, SEQ + 1), device="cuda")
    def step():
        loss_of(model(tokens[:, :-1]), tokens).backward(); opt.step(); opt.zero_grad(set_to_none=True)
    measure(rows, "plain_step", step, micro_batch=mb, ckpt=ckpt, blocks=L)
    del model, opt
    torch.cuda.empty_cache()


def main():
    rows = Rows(sys.argv[1])
    rows(kind="info", **device_info(), smi_before=smi())
    plan = [(stage_step, 1), (stage_step, 0), (plain_step, 1, False), (plain_step, 4, False), (plain_step, 2, True),
            (plain_step, 2, False), (stage_step, 1)]  # tp_n1 itself and stage 1 again: the power state
    for fn, *args in plan:
        try:
            fn(rows, *args)
        except Exception:
            rows(kind="error", where=f"{fn.__name__} {args}", error=traceback.format_exc()[-800:])
        torch.cuda.empty_cache()
    rows(kind="end", smi_after=smi())


main()
