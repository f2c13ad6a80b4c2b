# A PyTorch profiler (Kineto) Chrome trace of the calibration decoder's plain single-GPU training step
# (bench/device/common/decoder.py's Model: 8 blocks, hidden 4096, 32 heads, SwiGLU 14336, vocab 32000,
# untied, sequence 2048, micro-batch 2; bf16 parameters, foreach torch.optim.AdamW with bf16 states:
# the tp_n1 calibration run), and the step times measured without the profiler.
#   python3 kineto_step.py OUTDIR
# 3 warm-up steps, 6 timed steps (torch.cuda.synchronize after each, wall clock), then the profiler
# with schedule(wait=0, warmup=1, active=2): the trace holds 2 ProfilerStep#N steps, CPU and CUDA
# activity, no shapes or stacks; then 6 more timed steps.
import json, os, sys, time
import torch
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))  # gpu_timing, decoder
from decoder import V, SEQ, MB, Model, loss_of
from torch.profiler import profile, ProfilerActivity, schedule

out = sys.argv[1]
os.makedirs(out, exist_ok=True)  # the trace is written at the end: a missing folder would lose the run
torch.cuda.set_device(0)
torch.manual_seed(0)
with torch.device("cuda"):
    model = Model(8, False)
model = model.to(torch.bfloat16)
opt = torch.optim.AdamW(model.parameters(), lr=1e-4, foreach=True)
tokens = torch.randint(0, V, (MB, SEQ + 1), device="cuda")
def step():
    loss_of(model(tokens[:, :-1]), tokens).backward(); opt.step(); opt.zero_grad(set_to_none=True)
def timed(n):
    ts = []
    for _ in range(n):
        torch.cuda.synchronize(); t0 = time.perf_counter(); step(); torch.cuda.synchronize()
        ts.append(time.perf_counter() - t0)
    return ts
for _ in range(3): step()
before = timed(6)
trace = os.path.join(out, "kineto_plain_step.json")
spans = []
with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], schedule=schedule(wait=0, warmup=1, active=2),
             on_trace_ready=lambda p: p.export_chrome_trace(trace)) as prof:
    for _ in range(3):
        torch.cuda.synchronize(); t0 = time.perf_counter(); step(); torch.cuda.synchronize()
        spans.append(time.perf_counter() - t0); prof.step()
after = timed(6)
info = {"device": torch.cuda.get_device_name(0), "torch": torch.__version__, "cuda": torch.version.cuda,
        "cudnn": torch.backends.cudnn.version(), "nccl": ".".join(map(str, torch.cuda.nccl.version())),
        "params": sum(p.numel() for p in model.parameters()), "blocks": 8, "micro_batch": MB, "seq": SEQ,
        "step_s_before": before, "step_s_profiled": spans, "step_s_after": after,
        "mean_step_s": sum(before + after) / len(before + after), "trace_bytes": os.path.getsize(trace)}
print(json.dumps(info))
json.dump(info, open(os.path.join(out, "kineto_plain_step.info.json"), "w"), indent=1)
