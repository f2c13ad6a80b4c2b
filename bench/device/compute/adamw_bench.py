# torch.optim.AdamW on one GPU (fit the optimizer on its own): time per
# step of the fused (fused=True), multi-tensor (foreach=True, PyTorch's default on CUDA) and per-tensor
# for-loop (foreach=False) implementations, on fp32 and on bf16 parameters (states in the parameters'
# dtype, as torch creates them), for parameter sets cut like the calibration decoder's tensors:
#   block   one block: qkv 4096x12288, o 4096x4096, gate/up 14336x4096, down 4096x14336, 2 norms (243 M)
#   4blocks four blocks (973 M)
#   decoder 8 blocks + embedding and head 32000x4096 + final norm (2,208,370,688, the z3_n1 model)
#
#   python3 bench/device/compute/adamw_bench.py OUT.jsonl
#
# lr 1e-4, default betas/eps/weight_decay (0.01), random gradients set once. Median of >= 5 steps
# after 2 warm-up steps (the first allocates the states), CUDA events. Bytes per parameter stated:
#   min_bytes  fewest possible: read p, g, m, v and write p, m, v = 7 x dtype bytes (28 fp32, 14 bf16);
#              what the fused kernel moves
#   counted    commsim's foreach count (models/workload/compute.hpp kAdamwTensorPasses): 20 tensor
#              passes x dtype bytes (80 fp32, 40 bf16): weight-decay mul (2), lerp (3), mul (2),
#              addcmul (3), sqrt (2), div (2), add (2), addcdiv (4)
import sys, traceback
import torch
import os
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))  # gpu_timing, decoder
from gpu_timing import Rows, clocks, device_info, smi, time_op

H, FFN, V = 4096, 14336, 32000


def shapes(which):
    block = [(3 * H, H), (H, H), (FFN, H), (FFN, H), (H, FFN), (H,), (H,)]
    if which == "block":
        return block
    if which == "4blocks":
        return block * 4
    return block * 8 + [(V, H), (V, H), (H,)]


def main():
    rows = Rows(sys.argv[1])
    rows(kind="info", **device_info(), smi_before=smi())
    for dtype, nbytes in ((torch.float32, 4), (torch.bfloat16, 2)):
        for which in ("block", "4blocks", "decoder"):
            params = [torch.nn.Parameter(torch.randn(s, device="cuda", dtype=dtype) * 0.02) for s in shapes(which)]
            for p in params:
                p.grad = torch.randn_like(p) * 1e-3
            n = sum(p.numel() for p in params)
            for impl, kw in (("fused", {"fused": True}), ("foreach", {"foreach": True}),
                             ("forloop", {"foreach": False, "fused": False})):
                try:
                    opt = torch.optim.AdamW(params, lr=1e-4, **kw)
                    r = time_op(opt.step, target_s=0.1, min_reps=5, max_reps=10)
                    t = r["median_s"]
                    rows(kind="adamw", impl=impl, dtype=str(dtype).split(".")[1], set=which, params=n,
                         tensors=len(params), min_bytes_per_param=7 * nbytes, counted_bytes_per_param=20 * nbytes,
                         gbps_min=7 * nbytes * n / t / 1e9, gbps_counted=20 * nbytes * n / t / 1e9,
                         s_per_gparam=t / (n / 1e9), **r, **clocks())
                    del opt
                except Exception:
                    rows(kind="error", impl=impl, dtype=str(dtype), set=which, error=traceback.format_exc()[-600:])
                torch.cuda.empty_cache()
            del params
            torch.cuda.empty_cache()
    rows(kind="end", smi_after=smi())


main()
