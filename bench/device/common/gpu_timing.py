# Timing helpers shared by the single-GPU measurements (gemm_sweep.py, membound.py, adamw_bench.py):
# CUDA-event timing of queued repeats and the GPU's clocks read through NVML.
#
# time_op(fn): 2 warm-up calls, an estimate from 3 calls, then `reps` calls (enough for ~target_s
# of GPU time, between min_reps and max_reps) queued behind a spin kernel (torch.cuda._sleep) so the
# host is ahead of the GPU and the events measure kernels back to back, not launch latency; one
# event between consecutive calls; returns the median, 10th and 90th percentile per call.
import json, statistics, subprocess, threading, time
import torch

try:
    import pynvml
    pynvml.nvmlInit()
    _NVML = pynvml.nvmlDeviceGetHandleByIndex(0)
except Exception:  # no NVML: clocks are reported as None
    _NVML = None


def clocks():
    """SM and memory clock (MHz), temperature (C), power (W) and the throttle-reason bit mask."""
    if _NVML is None:
        return {}
    out = {}
    for key, read in (("sm_mhz", lambda: pynvml.nvmlDeviceGetClockInfo(_NVML, pynvml.NVML_CLOCK_SM)),
                      ("mem_mhz", lambda: pynvml.nvmlDeviceGetClockInfo(_NVML, pynvml.NVML_CLOCK_MEM)),
                      ("temp_c", lambda: pynvml.nvmlDeviceGetTemperature(_NVML, pynvml.NVML_TEMPERATURE_GPU)),
                      ("power_w", lambda: pynvml.nvmlDeviceGetPowerUsage(_NVML) / 1000.0),
                      ("throttle", lambda: int(pynvml.nvmlDeviceGetCurrentClocksThrottleReasons(_NVML)))):
        try:
            out[key] = read()
        except Exception:
            pass
    return out


def smi():
    """nvidia-smi's view of the clocks, as a dict (the brief asks for nvidia-smi before/after)."""
    out = {}
    for q in ("clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem,temperature.gpu,power.draw,power.limit",
              "clocks_event_reasons.active"):
        try:
            line = subprocess.run(["nvidia-smi", "--query-gpu=" + q, "--format=csv,noheader"], capture_output=True,
                                  text=True, timeout=20).stdout.strip()
            out.update(zip(q.split(","), [v.strip() for v in line.split(",")]))
        except Exception as e:
            out["error"] = str(e)
    return out


def time_op(fn, target_s=0.015, min_reps=5, max_reps=100):
    fn(); fn(); torch.cuda.synchronize()
    e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    e0.record()
    for _ in range(3):
        fn()
    e1.record(); torch.cuda.synchronize()
    est = max(e0.elapsed_time(e1) / 3e3, 1e-7)
    reps = int(min(max_reps, max(min_reps, round(target_s / est))))
    ev = [torch.cuda.Event(enable_timing=True) for _ in range(reps + 1)]
    # Enough spin for the host to queue every call (~40 us each from Python), at most 50 ms.
    torch.cuda._sleep(int(min(0.05, 2e-3 + reps * 40e-6) * 2.0e9))
    ev[0].record()
    for i in range(reps):
        fn()
        ev[i + 1].record()
    torch.cuda.synchronize()
    t = sorted(ev[i].elapsed_time(ev[i + 1]) / 1e3 for i in range(reps))
    return {"median_s": statistics.median(t), "p10_s": t[len(t) // 10], "p90_s": t[(len(t) * 9) // 10],
            "reps": reps}


def power_while(fn, seconds=3.0, batch=10):
    """Runs fn back to back for `seconds` while NVML is read every 50 ms; the readings after the
    first 0.2 s: calls, seconds, power_w (list), median_power_w, sm_mhz (median), throttle (last 5)."""
    for _ in range(3): fn()
    torch.cuda.synchronize()
    samples, stop = [], threading.Event()
    def sample():
        while not stop.is_set():
            time.sleep(0.05); samples.append(clocks())
    t = threading.Thread(target=sample); t.start()
    t0 = time.perf_counter(); n = 0
    while time.perf_counter() - t0 < seconds:
        for _ in range(batch): fn()
        n += batch
        torch.cuda.synchronize()
    dt = time.perf_counter() - t0
    stop.set(); t.join()
    p = [s.get("power_w") for s in samples[4:] if s.get("power_w")]
    return {"calls": n, "seconds": dt, "power_w": p, "median_power_w": statistics.median(p),
            "sm_mhz": statistics.median(s.get("sm_mhz", 0) for s in samples[4:]),
            "throttle": [s.get("throttle") for s in samples[4:]][-5:]}


class Rows:
    """Appends JSON lines to a file, flushed at once (a killed run keeps what it measured)."""
    def __init__(self, path):
        self.f = open(path, "a")
    def __call__(self, **row):
        self.f.write(json.dumps(row) + "\n"); self.f.flush()
        return row


def device_info():
    p = torch.cuda.get_device_properties(0)
    return {"name": p.name, "sms": p.multi_processor_count, "mem_gib": p.total_memory / 2**30,
            "l2_bytes": getattr(p, "L2_cache_size", None), "torch": torch.__version__, "cuda": torch.version.cuda,
            "cudnn": torch.backends.cudnn.version(), "nccl": ".".join(map(str, torch.cuda.nccl.version())),
            "time_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
