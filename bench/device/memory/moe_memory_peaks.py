# Peak GPU memory of small mixture-of-experts decoders trained on ONE GPU the way Megatron-LM holds
# its model states, one JSON line per configuration: torch.cuda.max_memory_allocated and
# memory_allocated at the points of a step that split the peak into terms. commsim's estimate
# (models/memory/memory_peak.hpp, strategy megatron, tp = pp = dp = ep = 1) is checked against these rows
# by tests/validation/one_gpu/h100x1_moe_memory_validation_test.cpp.
#
#   python3 bench/device/memory/moe_memory_peaks.py OUT.jsonl     (MEM_BUDGET_S=240 bounds the run)
#   MOE_CONFIGS="e8f4096:0:2,e16f2048:1:4" (shape:ckpt:micro_batch) instead of the default plan.
#
# The model (the calibration decoder's block, bench/device/common/decoder.py, with its MLP replaced by an
# MoE layer; no biases, RMSNorm, untied head, vocabulary 32000, sequence 2048, bf16):
#   router   Linear(h, E) in bf16, softmax over the E experts in fp32, top-k, the k weights
#            renormalised (Mixtral's routing); dropless (every token reaches its k experts: the
#            routed copies are exactly k T whatever the balance, so the activations do not depend
#            on the random routing)
#   dispatch tokens sorted by expert (argsort of the k T choices), gathered (index_select)
#   experts  E SwiGLU experts of width moe_ffn, one nn.Linear each for gate, up and down, run one
#            after another on their slices (Megatron-Core's SequentialMLP)
#   combine  expert outputs times their routing weights (bf16), summed back per token with scatter_add_
#            as Megatron-Core's unpermute (moe_utils.py) does; MOE_COMBINE=index_add for the first run's
#            torch.index_add, whose backward keeps its source (one more bf16 h-vector per routed copy)
#   Shapes with a stride of 2 alternate MoE layers (even) and dense SwiGLU layers of width ffn (odd).
# Model states as Megatron-LM holds them with --bf16 and its (non-distributed) optimizer
# (docs/source/distrib_optimizer.md: 18 bytes per parameter): bf16 parameters (2); one contiguous
# fp32 gradient buffer, main_grad, each parameter's bf16 gradient added into it as soon as autograd
# has accumulated it and then freed (Megatron's DDP backward hook without gradient-accumulation
# fusion) (4); fp32 master parameters and fused AdamW's fp32 exp_avg and exp_avg_sq (12). After the
# step the masters are copied into the bf16 parameters and main_grad is zeroed.
# Activation checkpointing (ckpt 1): checkpoint_wrapper (non-reentrant) on every block, as
# memory_peaks.py does; Megatron's --recompute-granularity full --recompute-method uniform keeps the
# same (each block's input).
# Per configuration: build, one warm step (creates the AdamW states), then two instrumented steps.
# Fields (bytes relative to the allocation before the model was built):
#   params_count   parameters (commsim's ModelShape::total_params must equal it)
#   states         after the warm step, minus the bf16 parameters (main_grad, masters, exp_avg, exp_avg_sq)
#   step2/3        m0 (start of the step), act_fwd (after forward and loss, minus m0), peak_fwd, peak_bwd,
#                  peak (max_memory_allocated over the step), peak_reserved
#   peak           step3's peak
import gc, os, sys, time, traceback
import torch, torch.nn as nn, torch.nn.functional as F
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))  # gpu_timing, decoder
from gpu_timing import Rows, device_info, smi
from decoder import V, SEQ, loss_of

COMBINE = os.environ.get("MOE_COMBINE", "scatter_add")

# name: (layers, hidden, heads, experts, moe_ffn, top_k, stride, dense ffn)
SHAPES = {
    "e8f4096": (8, 2048, 16, 8, 4096, 2, 1, 4096),
    "e16f2048": (8, 2048, 16, 16, 2048, 2, 1, 2048),
    "e16f1024k4": (8, 2048, 16, 16, 1024, 4, 1, 1024),
    "e8f4096s2": (8, 2048, 16, 8, 4096, 2, 2, 5632),
    "h4096e8f7168": (4, 4096, 32, 8, 7168, 2, 1, 7168),
}


class Expert(nn.Module):
    def __init__(self, h, f):
        super().__init__()
        self.gate, self.up, self.down = nn.Linear(h, f, bias=False), nn.Linear(h, f, bias=False), nn.Linear(f, h, bias=False)

    def forward(self, x):
        return self.down(F.silu(self.gate(x)) * self.up(x))


class MoE(nn.Module):
    def __init__(self, h, e, f, k):
        super().__init__()
        self.k = k
        self.router = nn.Linear(h, e, bias=False)
        self.experts = nn.ModuleList(Expert(h, f) for _ in range(e))

    def forward(self, x):
        shape = x.shape
        x = x.reshape(-1, shape[-1])
        probs = torch.softmax(self.router(x).float(), dim=-1)
        top_p, idx = torch.topk(probs, self.k, dim=-1)
        top_p = top_p / top_p.sum(dim=-1, keepdim=True)
        flat = idx.reshape(-1)
        order = torch.argsort(flat, stable=True)
        counts = torch.bincount(flat, minlength=len(self.experts)).tolist()
        tok = order // self.k
        xp = x.index_select(0, tok)
        outs, s = [], 0
        for i, c in enumerate(counts):
            if c:
                outs.append(self.experts[i](xp[s:s + c]))
            s += c
        y = torch.cat(outs)
        w = top_p.reshape(-1)[order].to(y.dtype).unsqueeze(1)
        if COMBINE == "index_add":  # the first run's combine: index_add saves its source (y w) for the backward
            return x.new_zeros(x.shape).index_add(0, tok, y * w).view(shape)
        out = x.new_zeros(x.shape)  # Megatron-Core's unpermute (moe_utils.py): scatter_add_ saves the index only
        out.scatter_add_(0, tok.unsqueeze(1).expand(-1, x.shape[-1]), y * w)
        return out.view(shape)


class Block(nn.Module):
    def __init__(self, h, heads, mlp):
        super().__init__()
        self.h, self.heads = h, heads
        self.n1, self.n2 = nn.RMSNorm(h), nn.RMSNorm(h)
        self.qkv, self.o = nn.Linear(h, 3 * h, bias=False), nn.Linear(h, h, bias=False)
        self.mlp = mlp

    def forward(self, x):
        b, s, _ = x.shape
        q, k, v = self.qkv(self.n1(x)).view(b, s, 3, self.heads, self.h // self.heads).permute(2, 0, 3, 1, 4)
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True).transpose(1, 2).reshape(b, s, -1)
        x = x + self.o(a)
        return x + self.mlp(self.n2(x))


class Model(nn.Module):
    def __init__(self, shape, ckpt):
        super().__init__()
        from torch.distributed.algorithms._checkpoint.checkpoint_wrapper import checkpoint_wrapper
        layers, h, heads, e, f, k, stride, ffn = shape
        def block(i):
            b = Block(h, heads, MoE(h, e, f, k) if i % stride == 0 else Expert(h, ffn))
            return checkpoint_wrapper(b) if ckpt else b
        self.emb = nn.Embedding(V, h)
        self.blocks = nn.ModuleList(block(i) for i in range(layers))
        self.norm, self.head = nn.RMSNorm(h), nn.Linear(h, V, bias=False)

    def forward(self, t):
        x = self.emb(t)
        for b in self.blocks:
            x = b(x)
        return self.head(self.norm(x))


class MegatronStates:
    """bf16 parameters, a contiguous fp32 main_grad buffer, fp32 masters and fused AdamW (18 B/param)."""
    def __init__(self, model):
        self.params = [p for p in model.parameters()]
        n = sum(p.numel() for p in self.params)
        self.main_grad = torch.zeros(n, dtype=torch.float32, device="cuda")
        o = 0
        for p in self.params:
            p.main_grad = self.main_grad[o:o + p.numel()].view_as(p)
            o += p.numel()
            p.register_post_accumulate_grad_hook(self._hook)
        self.masters = [p.detach().float() for p in self.params]
        self.opt = torch.optim.AdamW(self.masters, lr=1e-4, fused=True)

    @staticmethod
    def _hook(p):
        p.main_grad.add_(p.grad)
        p.grad = None

    def step(self):
        for m, p in zip(self.masters, self.params):
            m.grad = p.main_grad
        self.opt.step()
        with torch.no_grad():
            for m, p in zip(self.masters, self.params):
                p.copy_(m)
                m.grad = None
        self.main_grad.zero_()


def alloc():
    torch.cuda.synchronize()
    return torch.cuda.memory_allocated()


def one(rows, name, ckpt, mb):
    shape = SHAPES[name]
    gc.collect(); torch.cuda.empty_cache(); torch.cuda.reset_peak_memory_stats()
    base = alloc()
    torch.manual_seed(0)
    torch.set_default_dtype(torch.bfloat16)
    try:
        with torch.device("cuda"):
            model = Model(shape, ckpt)
    finally:
        torch.set_default_dtype(torch.float32)
    nparams = sum(p.numel() for p in model.parameters())
    params = alloc() - base
    states = MegatronStates(model)
    tokens = torch.randint(0, V, (mb, SEQ + 1), device="cuda")
    torch.cuda.reset_peak_memory_stats()
    t0 = time.perf_counter()
    loss_of(model(tokens[:, :-1]), tokens).backward(); states.step()
    peak1 = torch.cuda.max_memory_allocated() - base
    layers, h, heads, e, f, k, stride, ffn = shape
    out = dict(kind="moe_memory", shape=name, layers=layers, hidden=h, heads=heads, experts=e, moe_ffn=f, top_k=k,
               moe_stride=stride, ffn=ffn, vocab=V, combine=COMBINE, ckpt=ckpt, micro_batch=mb, seq=SEQ, params_count=nparams,
               base=base, params=params, states=alloc() - base - params, peak_step1=peak1,
               step1_s=time.perf_counter() - t0)
    for i in (2, 3):
        torch.cuda.reset_peak_memory_stats()
        t0 = time.perf_counter()
        m0 = alloc()
        logits = model(tokens[:, :-1])
        m_logits = alloc()
        loss = loss_of(logits, tokens)
        m_fwd = alloc(); peak_fwd = torch.cuda.max_memory_allocated()
        loss.backward()
        del logits, loss
        m_bwd = alloc(); peak_bwd = torch.cuda.max_memory_allocated()
        states.step()
        m_end = alloc()
        out[f"step{i}"] = dict(m0=m0 - base, act_before_loss=m_logits - m0, act_fwd=m_fwd - m0, after_bwd=m_bwd - m0,
                               end=m_end - base, peak_fwd=peak_fwd - base, peak_bwd=peak_bwd - base,
                               peak=torch.cuda.max_memory_allocated() - base,
                               peak_reserved=torch.cuda.max_memory_reserved(), step_s=time.perf_counter() - t0)
    out["peak"] = out["step3"]["peak"]
    out["peak_gb"] = out["peak"] / 1e9
    st = torch.cuda.memory_stats()
    out["num_alloc_retries"], out["num_ooms"] = st.get("num_alloc_retries"), st.get("num_ooms")
    rows(**out)
    for p in model.parameters():
        p.main_grad = None
    del model, states, tokens


def main():
    torch.cuda.set_device(0)
    rows = Rows(sys.argv[1])
    rows(kind="info", **device_info(), smi_before=smi(), free_total=torch.cuda.mem_get_info())
    budget, t0 = float(os.environ.get("MEM_BUDGET_S", "240")), time.monotonic()
    plan = [("e8f4096", 0, 1), ("e8f4096", 0, 2), ("e8f4096", 0, 4), ("e8f4096", 1, 4),
            ("e16f2048", 0, 2), ("e16f2048", 0, 4), ("e16f2048", 1, 4),
            ("e16f1024k4", 0, 2), ("e8f4096s2", 0, 2), ("e8f4096s2", 1, 4), ("h4096e8f7168", 0, 1)]
    if os.environ.get("MOE_CONFIGS"):
        plan = [(s, int(c), int(mb)) for s, c, mb in (x.split(":") for x in os.environ["MOE_CONFIGS"].split(","))]
    for name, ckpt, mb in plan:
        if time.monotonic() - t0 > budget:
            rows(kind="skipped", shape=name, ckpt=ckpt, micro_batch=mb, why="MEM_BUDGET_S spent")
            continue
        err = None
        try:
            one(rows, name, bool(ckpt), mb)
        except torch.OutOfMemoryError as e:
            err = dict(kind="moe_memory", shape=name, ckpt=bool(ckpt), micro_batch=mb, oom=True, error=str(e)[:600])
        except Exception:
            err = dict(kind="error", shape=name, ckpt=bool(ckpt), micro_batch=mb, error=traceback.format_exc()[-800:])
        if err:
            err["peak_at_failure"] = torch.cuda.max_memory_allocated()
            rows(**err)
        gc.collect(); torch.cuda.empty_cache()
    rows(kind="end", smi_after=smi(), seconds=time.monotonic() - t0)


if __name__ == "__main__":
    main()
