# A Llama-3-8B-shaped decoder's plain training step on ONE GPU, no communication: step time per
# configuration, one JSON line each (scenarios/validation/h100x1/measured/llama_steps.jsonl), to
# check the compute model at Llama 3's shapes and long sequences, which the calibration decoder
# (2,048 tokens, multi-head attention, a 32,000 vocabulary) does not reach.
#   python3 bench/device/steps/llama_step.py OUT.jsonl [expand|native] [ROWS] [none|full|N|op]
# expand (the default): the key/value heads repeated to 32 before SDPA, as torchtitan's llama3 model
# did until it passed enable_gqa; native: SDPA(enable_gqa=True) on the 8 heads under torchtitan's
# backend order (cuDNN, flash, math), as its GQAttention does now. ROWS: how many of the
# configurations below to run (all by default). full: every block under activation checkpointing
# (torch.utils.checkpoint, non-reentrant, as torchtitan's full AC wraps each TransformerBlock): the
# backward runs each block's forward again; N (a whole number): every N-th block only, as
# torchtitan's selective_ac_option = "N"; op: torchtitan's per-op policy (below) on every block;
# none (the default): no checkpointing.
# The model is meta-llama/Llama-3.1-8B's config.json (hidden 4096, 32 query and 8 key/value heads of
# 128, SwiGLU 14336, vocabulary 128256, RMSNorm, rotary positions, untied head) with fewer blocks
# (L in the rows), written as torchtitan's llama3 model writes it in eager mode: q, k, v and o
# projections, rotary embedding on q and k (complex multiply, as torchtitan's apply_rotary_emb),
# the key/value heads repeated to 32 for causal SDPA, w1/w3/w2 SwiGLU; bf16 parameters, foreach
# torch.optim.AdamW (bf16 moments), the loss on the fp32 logits. Per configuration: build, 3
# warm-up steps, 8 timed steps (CUDA-synchronised; median_step_s the 5th of 8 sorted; median_fwd_bwd_opt_s
# the same of each phase by CUDA events: the forward with the loss, the backward, the optimizer), the clocks,
# and the peak of allocated memory over the row (peak statistics reset before the model is built).
import json, os, sys, time
import torch, torch.nn as nn, torch.nn.functional as F, torch.utils.checkpoint
from torch.nn.attention import SDPBackend, sdpa_kernel
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))  # gpu_timing
from gpu_timing import Rows, device_info, clocks

H, NH, NKV, HD, FFN, V = 4096, 32, 8, 128, 14336, 128256
GQA = sys.argv[2] if len(sys.argv) > 2 else "expand"
AC = sys.argv[4] if len(sys.argv) > 4 else "none"


# torchtitan's per-op selective checkpointing (activation_checkpoint.mode = "selective",
# selective_ac_option = "op"): the outputs of matmuls (all but every second one of a block's
# forward), attention and reductions are saved, everything else recomputed.
SAVE = {torch.ops.aten.mm.default, torch.ops.aten._scaled_dot_product_efficient_attention.default,
        torch.ops.aten._scaled_dot_product_flash_attention.default,
        torch.ops.aten._scaled_dot_product_cudnn_attention.default, torch.ops.aten.max.default}


def op_policy():
    from torch.utils.checkpoint import CheckpointPolicy, create_selective_checkpoint_contexts
    meta = {"forward": 0, "recompute": 0}

    def policy(ctx, func, *args, **kwargs):
        mode = "recompute" if ctx.is_recompute else "forward"
        if func == torch.ops.aten.mm.default:
            meta[mode] += 1
        save = func in SAVE and not (func == torch.ops.aten.mm.default and meta[mode] % 2 == 0)
        return CheckpointPolicy.MUST_SAVE if save else CheckpointPolicy.PREFER_RECOMPUTE

    return create_selective_checkpoint_contexts(policy)


def rotary(seq):
    f = 1.0 / (500000.0 ** (torch.arange(0, HD, 2, device="cuda").float() / HD))
    return torch.polar(torch.ones(seq, HD // 2, device="cuda"), torch.outer(torch.arange(seq, device="cuda").float(), f))


def rope(x, fc):  # x: b, s, h, d
    xc = torch.view_as_complex(x.float().reshape(*x.shape[:-1], -1, 2))
    return torch.view_as_real(xc * fc[None, :, None, :]).flatten(3).type_as(x)


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.n1, self.n2 = nn.RMSNorm(H), nn.RMSNorm(H)
        self.wq, self.wk = nn.Linear(H, NH * HD, bias=False), nn.Linear(H, NKV * HD, bias=False)
        self.wv, self.wo = nn.Linear(H, NKV * HD, bias=False), nn.Linear(NH * HD, H, bias=False)
        self.w1, self.w3, self.w2 = nn.Linear(H, FFN, bias=False), nn.Linear(H, FFN, bias=False), nn.Linear(FFN, H, bias=False)

    def forward(self, x, fc):
        b, s, _ = x.shape
        if GQA == "native":
            return self.native(x, fc)
        h = self.n1(x)
        q, k, v = self.wq(h).view(b, s, NH, HD), self.wk(h).view(b, s, NKV, HD), self.wv(h).view(b, s, NKV, HD)
        q, k = rope(q, fc), rope(k, fc)
        r = NH // NKV
        k, v = k.repeat_interleave(r, dim=2), v.repeat_interleave(r, dim=2)
        a = F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), is_causal=True)
        x = x + self.wo(a.transpose(1, 2).reshape(b, s, -1))
        h = self.n2(x)
        return x + self.w2(F.silu(self.w1(h)) * self.w3(h))

    def native(self, x, fc):
        b, s, _ = x.shape
        h = self.n1(x)
        q, k, v = self.wq(h).view(b, s, NH, HD), self.wk(h).view(b, s, NKV, HD), self.wv(h).view(b, s, NKV, HD)
        q, k = rope(q, fc), rope(k, fc)
        with sdpa_kernel([SDPBackend.CUDNN_ATTENTION, SDPBackend.FLASH_ATTENTION, SDPBackend.MATH], set_priority=True):
            a = F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), is_causal=True,
                                               enable_gqa=True)
        x = x + self.wo(a.transpose(1, 2).reshape(b, s, -1))
        h = self.n2(x)
        return x + self.w2(F.silu(self.w1(h)) * self.w3(h))


class Llama(nn.Module):
    def __init__(self, layers):
        super().__init__()
        self.emb = nn.Embedding(V, H)
        self.blocks = nn.ModuleList(Block() for _ in range(layers))
        self.norm, self.head = nn.RMSNorm(H), nn.Linear(H, V, bias=False)

    def forward(self, t, fc):
        x = self.emb(t)
        for i, blk in enumerate(self.blocks):
            # full: every block; N: every N-th block, counted from 1 (torchtitan's selective_ac_option
            # "N": ptd_checkpoint_wrapper's _count % N == 0, so blocks N, 2N, ... in 1-based count).
            if AC == "full" or (AC.isdigit() and (i + 1) % int(AC) == 0):
                x = torch.utils.checkpoint.checkpoint(blk, x, fc, use_reentrant=False)
            elif AC == "op":
                x = torch.utils.checkpoint.checkpoint(blk, x, fc, use_reentrant=False, context_fn=op_policy)
            else:
                x = blk(x, fc)
        return self.head(self.norm(x))


def main():
    rows = Rows(sys.argv[1])
    rows(kind="info", **device_info())
    configs = [(4, 8192, 1), (8, 8192, 1), (4, 8192, 2), (4, 4096, 2), (8, 4096, 2), (4, 2048, 4), (16, 8192, 1)]
    for layers, seq, mb in configs[:int(sys.argv[3]) if len(sys.argv) > 3 else None]:
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats()
        base = torch.cuda.memory_allocated()  # what earlier rows left (nothing, once freed)
        torch.manual_seed(0)
        try:
            with torch.device("cuda"):
                m = Llama(layers).to(torch.bfloat16)
            opt = torch.optim.AdamW(m.parameters(), lr=1e-4, foreach=True)
            tk = torch.randint(0, V, (mb, seq + 1), device="cuda")
            fc = rotary(seq)

            ev = [torch.cuda.Event(enable_timing=True) for _ in range(4)]
            phases = []  # per timed step: forward (with the loss), backward, optimizer (CUDA events)

            def step():
                ev[0].record()
                loss = F.cross_entropy(m(tk[:, :-1], fc).float().view(-1, V), tk[:, 1:].reshape(-1))
                ev[1].record()
                loss.backward()
                ev[2].record()
                opt.step()
                opt.zero_grad(set_to_none=True)
                ev[3].record()

            for _ in range(3):
                step()
            ts = []
            for _ in range(8):
                torch.cuda.synchronize()
                t0 = time.perf_counter()
                step()
                torch.cuda.synchronize()
                ts.append(time.perf_counter() - t0)
                phases.append([ev[i].elapsed_time(ev[i + 1]) / 1e3 for i in range(3)])
            rows(kind="llama_step", gqa=GQA, ac=AC, layers=layers, seq=seq, micro_batch=mb, hidden=H, heads=NH, kv_heads=NKV,
                 ffn=FFN, vocab=V, params_count=sum(p.numel() for p in m.parameters()), step_s=ts,
                 median_step_s=sorted(ts)[4],
                 median_fwd_bwd_opt_s=[sorted(p[i] for p in phases)[4] for i in range(3)], peak=torch.cuda.max_memory_allocated() - base, **clocks())
            print(layers, seq, mb, round(sorted(ts)[4] * 1e3, 2), "ms", flush=True)
            del m, opt, tk, fc
        except torch.OutOfMemoryError as e:
            rows(kind="llama_step_oom", layers=layers, seq=seq, micro_batch=mb, error=str(e)[:200])
            print(layers, seq, mb, "OOM", flush=True)


if __name__ == "__main__":
    main()
