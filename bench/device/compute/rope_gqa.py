# The attention block's work around the attention kernel that the calibration decoder does not have
# (multi-head, no rotary positions): the rotary embedding on q and k, and grouped-query attention's
# key/value heads, as three model codes write them. One JSON line per measurement.
#
#   python3 bench/device/compute/rope_gqa.py OUT.jsonl
#
# Shapes: Llama 3.1 8B's attention (32 query heads, 8 key/value heads, head 128) at 8,192 tokens
# (1 x 8192 and 2 x 4096). Ops, each timed forward alone and forward + backward (torch.autograd.grad
# of the outputs against a fixed upstream gradient; the backward's time is the difference):
#   rope_complex      torchtitan's ComplexRoPE (torchtitan/models/common/rope.py): x.float(), view as
#                     complex, multiply by the cached freqs_cis, view as real, cast back; q and k
#                     as [b, s, heads, 128] (the projections' views).
#   rope_rotate_half  Hugging Face transformers' apply_rotary_pos_emb: q * cos + rotate_half(q) * sin
#                     in bf16 on [b, heads, s, 128] (the projections' views transposed, as
#                     LlamaAttention passes them), cos and sin [b, 1, s, 128].
#   repeat_kv         the key/value heads copied to every query head before attention: torchtitan's
#                     older repeat_kv (expand + reshape on [b, s, kv, 128]) and transformers'
#                     repeat_kv (the same on [b, kv, s, 128]); k and v both.
#   sdpa              causal scaled_dot_product_attention with k and v expanded to 32 heads against
#                     enable_gqa=True on the 8 heads, under PyTorch's default backend order and under
#                     torchtitan's (cuDNN first, then flash), with the backend that ran recorded
#                     (each backend tried alone).
# `elements` is the number of q and k elements (rope) or of k and v elements after the copy
# (repeat_kv); the model prices these ops from their bytes (models/workload/compute.cpp).
import os, sys
import torch, torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))  # gpu_timing
from gpu_timing import Rows, clocks, device_info, time_op

NH, NKV, HD = 32, 8, 128
BF = torch.bfloat16


def fwd_bwd(rows, op, shape, make, run, elements, **extra):
    """Times run(inputs) forward, then forward + backward; the backward row is their difference."""
    inputs = make()
    out = run(*inputs)
    outs = out if isinstance(out, tuple) else (out,)
    grads = [torch.randn_like(o) for o in outs]
    f = time_op(lambda: run(*inputs))
    fb = time_op(lambda: torch.autograd.grad(run(*inputs), [x for x in inputs if x.requires_grad], grads))
    rows(kind="rope_gqa", op=op, shape=shape, elements=elements, fwd_s=f["median_s"], fwdbwd_s=fb["median_s"],
         bwd_s=fb["median_s"] - f["median_s"], **extra, **clocks())
    print(op, shape, extra, round(f["median_s"] * 1e6, 1), "us fwd", round((fb["median_s"] - f["median_s"]) * 1e6, 1),
          "us bwd", flush=True)


def freqs_cis(s):
    f = 1.0 / (500000.0 ** (torch.arange(0, HD, 2, device="cuda").float() / HD))
    return torch.polar(torch.ones(s, HD // 2, device="cuda"), torch.outer(torch.arange(s, device="cuda").float(), f))


def rope_complex(q, k, fc):
    def one(x):
        xc = torch.view_as_complex(x.float().reshape(*x.shape[:-1], -1, 2))
        return torch.view_as_real(xc * fc[None, :, None, :]).flatten(3).type_as(x)
    return one(q), one(k)


def rotate_half(x):
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


def rope_rotate_half(q, k, cos, sin):
    return q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin


def main():
    rows = Rows(sys.argv[1])
    rows(kind="info", **device_info())
    for b, s in ((1, 8192), (2, 4096)):
        shape = f"{b}x{s}"
        qk = b * s * (NH + NKV) * HD

        def proj(heads):  # a projection's output viewed as heads: [b, s, heads, 128], contiguous
            return torch.randn(b, s, heads * HD, device="cuda", dtype=BF).view(b, s, heads, HD).requires_grad_()

        fc = freqs_cis(s)
        fwd_bwd(rows, "rope_complex", shape, lambda: (proj(NH), proj(NKV)), lambda q, k: rope_complex(q, k, fc), qk)
        ang = torch.outer(torch.arange(s, device="cuda").float(),
                          1.0 / (500000.0 ** (torch.arange(0, HD, 2, device="cuda").float() / HD)))
        emb = torch.cat((ang, ang), dim=-1)
        cos, sin = emb.cos().to(BF)[None, None].expand(b, 1, s, HD), emb.sin().to(BF)[None, None].expand(b, 1, s, HD)
        fwd_bwd(rows, "rope_rotate_half", shape,
                lambda: (proj(NH).detach().transpose(1, 2).requires_grad_(), proj(NKV).detach().transpose(1, 2).requires_grad_()),
                lambda q, k: rope_rotate_half(q, k, cos, sin), qk)
        kv = 2 * b * s * NH * HD  # k and v after the copy
        r = NH // NKV
        fwd_bwd(rows, "repeat_kv_bshd", shape, lambda: (proj(NKV), proj(NKV)),
                lambda k, v: tuple(x.unsqueeze(3).expand(b, s, NKV, r, HD).reshape(b, s, NH, HD) for x in (k, v)), kv)
        fwd_bwd(rows, "repeat_kv_bhsd", shape,
                lambda: (proj(NKV).detach().transpose(1, 2).requires_grad_(), proj(NKV).detach().transpose(1, 2).requires_grad_()),
                lambda k, v: tuple(x[:, :, None].expand(b, NKV, r, s, HD).reshape(b, NH, s, HD) for x in (k, v)), kv)
        fwd_bwd(rows, "repeat_interleave", shape, lambda: (proj(NKV), proj(NKV)),
                lambda k, v: tuple(x.repeat_interleave(r, dim=2) for x in (k, v)), kv)
        # Attention: [b, heads, s, 128] views of [b, s, heads, 128] tensors, as both codes pass them.
        def qkv(kv_heads):
            return tuple(proj(h).detach().transpose(1, 2).requires_grad_() for h in (NH, kv_heads, kv_heads))
        orders = {"default": None, "torchtitan": [SDPBackend.CUDNN_ATTENTION, SDPBackend.FLASH_ATTENTION, SDPBackend.MATH],
                  "cudnn": [SDPBackend.CUDNN_ATTENTION], "flash": [SDPBackend.FLASH_ATTENTION],
                  "efficient": [SDPBackend.EFFICIENT_ATTENTION]}
        for gqa in (False, True):
            for name, order in orders.items():
                def run(q, k, v, order=order, gqa=gqa):
                    if order is None:
                        return F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=gqa)
                    with sdpa_kernel(order, set_priority=True):
                        return F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=gqa)
                try:
                    fwd_bwd(rows, "sdpa", shape, lambda: qkv(NKV if gqa else NH), run, b * s * NH * HD,
                            enable_gqa=gqa, backends=name)
                except Exception as e:  # a backend that refuses the inputs
                    rows(kind="rope_gqa_refused", op="sdpa", shape=shape, enable_gqa=gqa, backends=name, error=str(e)[:300])
                    print("sdpa", shape, name, gqa, "refused:", str(e)[:120], flush=True)
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
