# The loss's GPU memory per logit, PyTorch's cross entropy against Megatron-Core's vocab-parallel
# one, on one GPU: the LM head's bf16 logits [T x V] from a Linear, then the loss, forward and
# backward, as a training step runs them. One JSON line per (loss, tokens, vocabulary).
#
#   python3 bench/device/memory/loss_memory.py OUT.jsonl MEGATRON_LM_DIR
#
# MEGATRON_LM_DIR is a Megatron-LM checkout (any recent one): its
# megatron/core/tensor_parallel/cross_entropy.py is run as it is, under a one-process tensor-parallel
# group (gloo), its three imports from the rest of Megatron-Core (the tensor-parallel group, the
# group's rank and size, VocabUtility's vocabulary range) given by the one-line stand-ins below, so
# no other Megatron code runs. Losses:
#   pytorch    F.cross_entropy(logits.float(), target), what torchtitan, Transformers and the
#              benches' decoders run (commsim: kLogitBytesPerEntry, 12 B per logit)
#   megatron   vocab_parallel_cross_entropy(logits, target), Megatron-Core's default loss
#              (cross_entropy_loss_fusion off) (commsim: megatron_loss_bytes_per_entry, 4 + e)
# The logits are dropped before the backward (del), as Megatron-Core's forward returns the loss
# alone. Each row: torch.cuda.max_memory_allocated from the head's forward until the loss's backward
# has given the logits their gradient (a hook on the logits; the head's weight gradient comes
# after), less what was allocated before, per logit; the forward's peak alone; and the time of the
# head and loss, forward and backward. commsim's memory tests read these rows
# (tests/validation/one_gpu/h100x1_loss_memory_validation_test.cpp).
import os, shutil, sys, tempfile
import torch, torch.nn as nn, torch.nn.functional as F
import torch.distributed as dist

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))  # gpu_timing
from gpu_timing import Rows, device_info, time_op

H = 4096
BF = torch.bfloat16

STANDINS = {
    "megatron/__init__.py": "",
    "megatron/core/__init__.py": "",
    "megatron/core/parallel_state.py":
        "import torch.distributed as dist\ndef get_tensor_model_parallel_group():\n    return dist.group.WORLD\n",
    "megatron/core/utils.py":
        "import torch.distributed as dist\n"
        "def get_pg_rank(g):\n    return dist.get_rank(g)\n"
        "def get_pg_size(g):\n    return dist.get_world_size(g)\n",
    "megatron/core/tensor_parallel/__init__.py": "",
    "megatron/core/tensor_parallel/utils.py":
        "class VocabUtility:\n    @staticmethod\n"
        "    def vocab_range_from_per_partition_vocab_size(n, rank, world_size):\n"
        "        return rank * n, rank * n + n\n",
}


def megatron_loss(megatron_dir):
    """Megatron-Core's vocab_parallel_cross_entropy, its own file, beside the stand-ins."""
    root = tempfile.mkdtemp()
    for path, text in STANDINS.items():
        os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
        open(os.path.join(root, path), "w").write(text)
    shutil.copy(os.path.join(megatron_dir, "megatron/core/tensor_parallel/cross_entropy.py"),
                os.path.join(root, "megatron/core/tensor_parallel/cross_entropy.py"))
    sys.path.insert(0, root)
    from megatron.core.tensor_parallel.cross_entropy import vocab_parallel_cross_entropy
    return lambda logits, target: vocab_parallel_cross_entropy(logits, target).mean()


def measure(rows, name, loss_fn, tokens, vocab):
    torch.manual_seed(0)
    head = nn.Linear(H, vocab, bias=False, device="cuda", dtype=BF)
    x = torch.randn(tokens, H, device="cuda", dtype=BF, requires_grad=True)
    target = torch.randint(0, vocab, (tokens,), device="cuda")
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    before = torch.cuda.memory_allocated()
    at_grad = {}
    logits = head(x)
    # Fires once the loss's backward has given the logits their gradient, before the head's own
    # backward allocates its weight gradient: the peak so far is the loss's.
    def at_logits_grad(_):
        at_grad.setdefault("peak", torch.cuda.max_memory_allocated())
    logits.register_hook(at_logits_grad)
    loss = loss_fn(logits, target)
    torch.cuda.synchronize()
    fwd_peak = torch.cuda.max_memory_allocated() - before
    del logits
    loss.backward()
    torch.cuda.synchronize()
    peak = at_grad["peak"] - before
    n = tokens * vocab
    row = dict(kind="loss_memory", loss=name, tokens=tokens, vocab=vocab, hidden=H, peak_bytes=peak,
               fwd_peak_bytes=fwd_peak, bytes_per_logit=peak / n, fwd_bytes_per_logit=fwd_peak / n)

    def step():
        head.weight.grad = None
        x.grad = None
        l = loss_fn(head(x), target)
        l.backward()
    row["step_s"] = time_op(step)["median_s"]
    rows(**row)
    print(name, tokens, vocab, round(row["bytes_per_logit"], 3), "B/logit at the peak,",
          round(row["fwd_bytes_per_logit"], 3), "in the forward,", round(row["step_s"] * 1e3, 3), "ms", flush=True)
    del head, x, target, loss
    torch.cuda.empty_cache()


def main():
    rows = Rows(sys.argv[1])
    rows(kind="info", **device_info())
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29511")
    dist.init_process_group("gloo", rank=0, world_size=1)
    losses = {"pytorch": lambda logits, target: F.cross_entropy(logits.float(), target),
              "megatron": megatron_loss(sys.argv[2])}
    for tokens, vocab in ((4096, 128256), (8192, 128256), (8192, 32000), (8192, 151936)):
        for name, fn in losses.items():
            measure(rows, name, fn, tokens, vocab)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
