# What one tensor-parallel rank computes, measured on ONE GPU ("tensor-parallel
# compute is not FLOPs / tp"), and the attention layout copies of the calibration decoder.
#
#   python3 bench/device/compute/tp_rank_compute.py OUT.jsonl OUTDIR
#
# 1. kind "rank_step": the plain bf16 step of torch_tp_step.py (decoder.py's Block(tp) with its
#    matrices split as TP splits them: qkv, gate, up by columns, o and down by rows; embedding,
#    norms, head and loss replicated; bf16 parameters; AdamW) on one GPU with f and g the identity,
#    i.e. the compute of one rank of a TP group of `tp` without its all-reduces, for tp = 1, 2, 4, 8
#    with foreach AdamW (the calibration runs), and tp = 1 with fused AdamW; plus the FSDP2
#    one-rank step (step_profile.py's "fsdp") with fused AdamW. Per configuration: 3 warm-up steps,
#    6 timed (torch.cuda.synchronize each), 3 under torch.profiler: kernel time per step by class
#    (step_profile.py's classes) and the kernels themselves.
# 2. kind "sdpa_layout": F.scaled_dot_product_attention (cuDNN, causal) on contiguous q, k, v
#    [2, heads, 2048, 128] against the decoder's way (decoder.py Block.forward): q, k, v unbound from
#    the qkv projection's output viewed [b, s, 3, heads, d] and permuted, the output transposed back
#    and reshaped; fwd and fwd+bwd for heads = 32, 16, 8, 4 (TP 1, 2, 4, 8). The difference is the
#    layout work (the backward's stack of dq, dk, dv and the copy back to [b, s, 3 * heads * d]).
import os, re, sys, time, traceback
import torch, torch.nn as nn, torch.nn.functional as F
import torch.distributed as dist
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))  # gpu_timing, decoder
from gpu_timing import Rows, clocks, device_info, smi, time_op
from decoder import H, HEADS, V, SEQ, MB, L, Block, loss_of

CLASSES = [("attention", r"flash|fmha|sdpa|attention|cudnn"),
           ("gemm", r"gemm|nvjet|xmma|cutlass|sm90_|cublas"),
           ("optimizer", r"multi_tensor|foreach|adam"),
           ("nccl", r"nccl"),
           ("copies", r"copy|Memcpy|chunk_cat|CatArray"),
           ("other", r".")]


def klass(name):
    for c, pat in CLASSES:
        if re.search(pat, name, re.I):
            return c


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


def rank_step(rows, outdir, mode, tp, adamw):
    from torch.distributed.fsdp import fully_shard, MixedPrecisionPolicy
    from torch.profiler import profile, ProfilerActivity
    torch.manual_seed(0)
    with torch.device("cuda"):
        model = Model(tp)
    if mode == "fsdp":
        mp = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.bfloat16)
        for b in model.blocks: fully_shard(b, mp_policy=mp)
        fully_shard(model, mp_policy=mp)
    else:
        model = model.to(torch.bfloat16)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, **({"fused": True} if adamw == "fused" else {"foreach": True}))
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
    kernels, totals, calls = [], {}, 0
    for e in prof.key_averages():
        t = getattr(e, "self_device_time_total", None)
        if t is None:
            t = e.self_cuda_time_total
        if not t or "CUDA" not in str(getattr(e, "device_type", "CUDA")):
            continue
        c = klass(e.key)
        kernels.append({"name": e.key[:200], "class": c, "us_per_step": t / 3, "calls_per_step": e.count / 3})
        totals[c] = totals.get(c, 0) + t / 3
        calls += e.count / 3
    kernels.sort(key=lambda k: -k["us_per_step"])
    rows(kind="rank_step", mode=mode, tp=tp, adamw=adamw, blocks=L, micro_batch=MB, seq=SEQ,
         params=sum(p.numel() for p in model.parameters()), step_s=times, mean_step_s=sum(times) / 6,
         class_us_per_step=totals, kernel_us_per_step=sum(totals.values()), kernel_calls_per_step=calls,
         kernels=kernels[:80], **clk)
    del model, opt, prof
    torch.cuda.empty_cache()


def sdpa_layout(rows):
    b, s, d = MB, SEQ, H // HEADS
    for tp in (1, 2, 4, 8):
        h = HEADS // tp
        fwd_flops = 4 * b * h * s * s * d / 2
        cont = [[torch.randn(b, h, s, d, device="cuda", dtype=torch.bfloat16, requires_grad=True) for _ in range(3)]
                for _ in range(2)]
        packed = [torch.randn(b, s, 3 * h * d, device="cuda", dtype=torch.bfloat16, requires_grad=True) for _ in range(2)]
        do_c = torch.randn(b, h, s, d, device="cuda", dtype=torch.bfloat16)
        do_p = torch.randn(b, s, h * d, device="cuda", dtype=torch.bfloat16)
        i = [0]
        def pick(sets):
            i[0] += 1
            return sets[i[0] % len(sets)]
        def c_fwd():
            q, k, v = pick(cont); return F.scaled_dot_product_attention(q, k, v, is_causal=True)
        def c_fb():
            q, k, v = pick(cont)
            return torch.autograd.grad(F.scaled_dot_product_attention(q, k, v, is_causal=True), (q, k, v), do_c)
        def p_out(x):
            q, k, v = x.view(b, s, 3, h, d).permute(2, 0, 3, 1, 4)
            return F.scaled_dot_product_attention(q, k, v, is_causal=True).transpose(1, 2).reshape(b, s, -1)
        def p_fwd():
            return p_out(pick(packed))
        def p_fb():
            x = pick(packed); return torch.autograd.grad(p_out(x), (x,), do_p)
        r = {name: time_op(fn) for name, fn in (("cont_fwd", c_fwd), ("cont_fb", c_fb), ("packed_fwd", p_fwd),
                                                 ("packed_fb", p_fb))}
        rows(kind="sdpa_layout", tp=tp, heads=h, b=b, seq=s, head_dim=d, fwd_flops=fwd_flops,
             **{k + "_s": v["median_s"] for k, v in r.items()},
             cont_fwd_tflops=fwd_flops / r["cont_fwd"]["median_s"] / 1e12,
             cont_bwd_tflops=2.5 * fwd_flops / (r["cont_fb"]["median_s"] - r["cont_fwd"]["median_s"]) / 1e12,
             layout_fwd_s=r["packed_fwd"]["median_s"] - r["cont_fwd"]["median_s"],
             layout_bwd_s=(r["packed_fb"]["median_s"] - r["packed_fwd"]["median_s"])
             - (r["cont_fb"]["median_s"] - r["cont_fwd"]["median_s"]),
             qkv_grad_bytes=2 * b * s * 3 * h * d, **clocks())
        del cont, packed
        torch.cuda.empty_cache()


def main():
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1"); os.environ.setdefault("MASTER_PORT", "29513")
    dist.init_process_group("nccl", rank=0, world_size=1)
    torch.cuda.set_device(0)
    rows, outdir = Rows(sys.argv[1]), sys.argv[2]
    rows(kind="info", **device_info(), smi_before=smi())
    try:
        sdpa_layout(rows)
    except Exception:
        rows(kind="error", where="sdpa_layout", error=traceback.format_exc()[-800:])
    plan = [("plain", 1, "foreach"), ("plain", 2, "foreach"), ("plain", 4, "foreach"), ("plain", 8, "foreach"),
            ("plain", 1, "fused"), ("fsdp", 1, "fused"), ("plain", 4, "foreach"), ("plain", 1, "foreach")]
    for mode, tp, adamw in plan:  # tp 4 and tp 1 again at the end: the power state's drift
        try:
            rank_step(rows, outdir, mode, tp, adamw)
        except Exception:
            rows(kind="error", where=f"rank_step {mode} {tp} {adamw}", error=traceback.format_exc()[-800:])
        torch.cuda.empty_cache()
    rows(kind="end", smi_after=smi())
    dist.destroy_process_group()


main()
