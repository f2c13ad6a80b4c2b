# Peak GPU memory of the calibration decoder's single-GPU training steps, one JSON line per
# configuration: torch.cuda.max_memory_allocated / max_memory_reserved, and memory_allocated at the
# points of a step that split the peak into terms.
#
#   python3 bench/device/memory/memory_peaks.py OUT.jsonl        (MEM_BUDGET_S=150 bounds the run)
# Options (environment): ADAMW=fused for the fused optimizer (default foreach, as the calibration runs);
# MEM_CONFIGS="fsdp:16:0:2,plain:8:1:4" (mode:blocks:ckpt:micro_batch) instead of the default plan;
# MEM_LIMIT_BYTES=N caps the caching allocator at N bytes (torch.cuda.set_per_process_memory_fraction)
# to emulate a smaller GPU; with PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True for the other allocator.
#
# Modes (the two calibration runs, scenarios/validation/h200x4/measured/README.md):
#   fsdp   as z3_n1 (torch_fsdp_step.py): FSDP2 fully_shard per block and at the root on ONE rank,
#          fp32 parameters, bf16 compute (MixedPrecisionPolicy), foreach AdamW with fp32 states
#   plain  as tp_n1 (torch_tp_step.py at tp = 1): bf16 parameters, foreach AdamW with bf16 states
# each with and without activation checkpointing (checkpoint_wrapper, non-reentrant, on every block,
# as torchtitan applies it before fully_shard), micro-batch 1, 2, 4 sequences of 2048, 8 blocks
# (2.21 G parameters) and 16 blocks (4.28 G: expected to run out of memory on one 80 GB GPU).
# Per configuration: build (params), one warm step (creates the AdamW states), then two instrumented
# steps. Fields (bytes, memory_allocated unless named peak):
#   params      after building and sharding the model
#   states      after step 1 minus params (AdamW exp_avg, exp_avg_sq, step)
#   m0          start of the instrumented step (params + states)
#   act_fwd     after forward and loss, minus m0 (saved activations, logits, the fp32 logits copy
#               and the log-softmax saved by cross-entropy, FSDP's unsharded root parameters)
#   grads       after backward (loss and logits dropped) minus m0
#   peak_fwd    max_memory_allocated at the end of forward; peak_bwd at the end of backward;
#   peak        over the whole instrumented step; peak_step1 over the warm step (states created);
#   peak_reserved max_memory_reserved over the instrumented step (what the caching allocator held)
import gc, os, sys, time, traceback
import torch, torch.nn as nn
import torch.distributed as dist
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))  # gpu_timing, decoder
from gpu_timing import Rows, device_info, smi
from decoder import H, V, SEQ, Block, Model, loss_of


LIMIT = int(float(os.environ["MEM_LIMIT_BYTES"])) if os.environ.get("MEM_LIMIT_BYTES") else None


def alloc():
    torch.cuda.synchronize()
    return torch.cuda.memory_allocated()


def one(rows, mode, blocks, ckpt, mb):
    from torch.distributed.fsdp import fully_shard, MixedPrecisionPolicy
    gc.collect(); torch.cuda.empty_cache(); torch.cuda.reset_peak_memory_stats()
    base = alloc()
    torch.manual_seed(0)
    with torch.device("cuda"):
        model = Model(blocks, ckpt)
    if mode == "fsdp":
        mp = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.bfloat16)
        for b in model.blocks: fully_shard(b, mp_policy=mp)
        fully_shard(model, mp_policy=mp)
    else:
        model = model.to(torch.bfloat16)
    adamw = os.environ.get("ADAMW", "foreach")
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, **({"fused": True} if adamw == "fused" else {"foreach": True}))
    tokens = torch.randint(0, V, (mb, SEQ + 1), device="cuda")
    nparams = sum(p.numel() for p in model.parameters())
    gc.collect(); torch.cuda.empty_cache()
    params = alloc() - base
    torch.cuda.reset_peak_memory_stats()
    t0 = time.perf_counter()
    loss_of(model(tokens[:, :-1]), tokens).backward(); opt.step(); opt.zero_grad(set_to_none=True)
    peak1 = torch.cuda.max_memory_allocated() - base
    states = alloc() - base - params
    out = dict(kind="memory", mode=mode, blocks=blocks, ckpt=ckpt, micro_batch=mb, seq=SEQ, params_count=nparams,
               adamw=adamw, limit_bytes=LIMIT, alloc_conf=os.environ.get("PYTORCH_CUDA_ALLOC_CONF"),
               base=base, params=params, states=states, peak_step1=peak1, step1_s=time.perf_counter() - t0)
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
        opt.step()
        m_opt = alloc()
        opt.zero_grad(set_to_none=True)
        m_end = alloc()
        out[f"step{i}"] = dict(m0=m0 - base, act_before_loss=m_logits - m0, act_fwd=m_fwd - m0, grads=m_bwd - m0,
                               after_opt=m_opt - base, end=m_end - base, peak_fwd=peak_fwd - base,
                               peak_bwd=peak_bwd - base, peak=torch.cuda.max_memory_allocated() - base,
                               peak_reserved=torch.cuda.max_memory_reserved(), step_s=time.perf_counter() - t0)
    out["peak"] = out["step3"]["peak"]
    out["peak_gb"] = out["peak"] / 1e9
    out["peak_reserved_gb"] = out["step3"]["peak_reserved"] / 1e9
    out["over_80gb"] = out["peak"] > 80e9
    st = torch.cuda.memory_stats()
    out["num_alloc_retries"], out["num_ooms"] = st.get("num_alloc_retries"), st.get("num_ooms")
    rows(**out)
    del model, opt, tokens


def main():
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1"); os.environ.setdefault("MASTER_PORT", "29511")
    os.environ.setdefault("NCCL_NVLS_ENABLE", "0")
    dist.init_process_group("nccl", rank=0, world_size=1)
    torch.cuda.set_device(0)
    if LIMIT:
        torch.cuda.set_per_process_memory_fraction(LIMIT / torch.cuda.get_device_properties(0).total_memory)
    rows = Rows(sys.argv[1])
    rows(kind="info", **device_info(), smi_before=smi(), free_total=torch.cuda.mem_get_info())
    budget, t0 = float(os.environ.get("MEM_BUDGET_S", "150")), time.monotonic()
    plan = [(m, 8, c, mb) for m in ("fsdp", "plain") for c in (False, True) for mb in (1, 2, 4)]
    plan += [(m, 16, c, 2) for m in ("fsdp", "plain") for c in (False, True)]
    plan += [(m, 16, c, mb) for mb in (1, 4) for m in ("fsdp", "plain") for c in (False, True)]
    if os.environ.get("MEM_CONFIGS"):
        plan = [(m, int(b), c == "1", int(mb)) for m, b, c, mb in (x.split(":") for x in os.environ["MEM_CONFIGS"].split(","))]
    for mode, blocks, ckpt, mb in plan:
        if time.monotonic() - t0 > budget:
            rows(kind="skipped", mode=mode, blocks=blocks, ckpt=ckpt, micro_batch=mb, why="MEM_BUDGET_S spent")
            continue
        err = None
        try:
            one(rows, mode, blocks, ckpt, mb)
        except torch.OutOfMemoryError as e:
            err = dict(kind="memory", mode=mode, blocks=blocks, ckpt=ckpt, micro_batch=mb, oom=True, error=str(e)[:600],
                       adamw=os.environ.get("ADAMW", "foreach"), limit_bytes=LIMIT,
                       alloc_conf=os.environ.get("PYTORCH_CUDA_ALLOC_CONF"))
        except Exception:
            err = dict(kind="error", mode=mode, blocks=blocks, ckpt=ckpt, micro_batch=mb, error=traceback.format_exc()[-800:])
        if err:
            err["peak_at_failure"] = torch.cuda.max_memory_allocated()
            rows(**err)
        gc.collect(); torch.cuda.empty_cache()
    rows(kind="end", smi_after=smi(), seconds=time.monotonic() - t0)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
