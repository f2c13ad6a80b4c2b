# The LM head and loss of a Llama-3-8B-shaped model on one GPU by tokens per step, as
# bench/device/steps/llama_step.py runs them: final RMSNorm, the untied head [4096 x 128256] in
# bf16, the logits cast to fp32 and cross-entropy, forward and backward (torch.autograd.grad of the
# loss against the norm's input and the head's weight). One JSON line per size.
#   python3 bench/device/compute/head_loss.py OUT.jsonl
# Each row: the whole head (fwd+bwd), the loss alone on the same logits (its fp32 cast,
# cross-entropy and backward), and the head's three GEMMs apart (forward, input and weight
# gradients), so the model's head (models/workload/compute.cpp head_kernels) is checked term by term.
# Then the loss alone at 8,192 tokens over vocabularies of 32,000 (the calibration decoder's, whose
# loss law it is) to 151,936 (Qwen's), to tell the GPU from the row length:
#   python3 bench/device/compute/head_loss.py OUT.jsonl vocab
import os, sys
import torch, torch.nn as nn, torch.nn.functional as F
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))  # gpu_timing
from gpu_timing import Rows, clocks, device_info, time_op

H, V = 4096, 128256
BF = torch.bfloat16


def vocab_sweep(rows):
    t = 8192
    for v in (32000, 50304, 65536, 128256, 151936):
        logits = torch.randn(t, v, device="cuda", dtype=BF, requires_grad=True)
        tgt = torch.randint(0, v, (t,), device="cuda")
        fwd = time_op(lambda: F.cross_entropy(logits.float(), tgt))["median_s"]
        both = time_op(lambda: torch.autograd.grad(F.cross_entropy(logits.float(), tgt), logits))["median_s"]
        rows(kind="loss_vocab", tokens=t, vocab=v, fwd_s=fwd, loss_s=both, ps_per_logit=both / (t * v) * 1e12, **clocks())
        print(v, round(both * 1e3, 3), "ms", round(both / (t * v) * 1e12, 2), "ps/logit", flush=True)
        del logits
        torch.cuda.empty_cache()


def main():
    rows = Rows(sys.argv[1])
    rows(kind="info", **device_info())
    if len(sys.argv) > 2 and sys.argv[2] == "vocab":
        return vocab_sweep(rows)
    torch.manual_seed(0)
    norm = nn.RMSNorm(H, device="cuda", dtype=BF)
    head = nn.Linear(H, V, bias=False, device="cuda", dtype=BF)
    for tokens in (4096, 8192, 16384):
        x = torch.randn(tokens, H, device="cuda", dtype=BF, requires_grad=True)
        t = torch.randint(0, V, (tokens,), device="cuda")

        def whole():
            loss = F.cross_entropy(head(norm(x)).float(), t)
            return torch.autograd.grad(loss, (x, head.weight))

        logits = torch.randn(tokens, V, device="cuda", dtype=BF, requires_grad=True)

        def loss_only():
            return torch.autograd.grad(F.cross_entropy(logits.float(), t), logits)

        h = torch.randn(tokens, H, device="cuda", dtype=BF)
        g = torch.randn(tokens, V, device="cuda", dtype=BF)
        w = head.weight.detach()
        r = {}
        for name, fn in (("whole", whole), ("loss", loss_only), ("gemm_fwd", lambda: h @ w.t()),
                         ("gemm_dgrad", lambda: g @ w), ("gemm_wgrad", lambda: g.t() @ h)):
            r[name] = time_op(fn)["median_s"]
        rows(kind="head_loss", tokens=tokens, hidden=H, vocab=V, **{k + "_s": v for k, v in r.items()}, **clocks())
        print(tokens, {k: round(v * 1e3, 3) for k, v in r.items()}, "ms", flush=True)
        del x, logits, g, h
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
