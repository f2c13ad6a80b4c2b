"""Every command's --json output validates against docs/result.schema.json (draft 2020-12), and
the schema's own conventions hold on them: utilisation is a fraction, counts are integers, no
number carries more than 9 significant digits."""

import csv
import io
import json
import pathlib
import re
import subprocess

import jsonschema
import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
SCHEMA = json.loads((REPO / "docs" / "result.schema.json").read_text())


def validator():
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    return jsonschema.Draft202012Validator(SCHEMA)


def commsim(binary, *args, ok=(0,)):
    proc = subprocess.run([binary, *map(str, args)], capture_output=True, text=True, cwd=REPO)
    assert proc.returncode in ok, proc.stderr
    return proc.stdout


def numbers(value):
    if isinstance(value, dict):
        for v in value.values():
            yield from numbers(v)
    elif isinstance(value, list):
        for v in value:
            yield from numbers(v)
    elif isinstance(value, float):
        yield value


def check(obj):
    errors = sorted(validator().iter_errors(obj), key=lambda e: list(e.path))
    assert not errors, "\n".join(f"{list(e.path)}: {e.message}" for e in errors[:5])
    for x in numbers(obj):
        assert float(f"{x:.9g}") == x, f"{x!r} has more than 9 significant digits"


SCENARIOS = [
    "scenarios/examples/allreduce_h200x4.toml",
    "scenarios/seeds/p4d_1pod_4gpu.toml",
    "scenarios/seeds/p4d_4pod_1gpu_efa.toml",
    "scenarios/validation/h200x2/step_pp_p2p_n2.toml",
]


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_run(commsim_binary, scenario):
    r = json.loads(commsim(commsim_binary, "run", scenario, "--json", "--set", "training.steps=2"
                           if "allreduce" not in scenario else "collective.iterations=2"))
    check(r)
    assert r["command"] == "run" and r["inputs"]["files"][0] == scenario


def test_compare(commsim_binary):
    a, b = SCENARIOS[1], SCENARIOS[2]
    check(json.loads(commsim(commsim_binary, "compare", a, b, a, "--json", "--set", "3:training.steps=1")))


def test_sweep_rows(commsim_binary):
    out = commsim(commsim_binary, "sweep", "scenarios/seeds/p4d_1pod_4gpu.toml", "--json", "--vary",
                  "parallel.tp=1,3", "--vary", "parallel.strategy=megatron")
    rows = [json.loads(line) for line in out.splitlines()]
    assert len(rows) == 2 and rows[1]["error"]  # a failed point validates too
    for row in rows:
        check(row)


@pytest.mark.parametrize("args", [
    ["scenarios/validation/h200x4.toml", "-b", "8", "-e", "1G", "-f", "4", "--compare",
     "scenarios/validation/h200x4/measured/nccl-tests/ar_g4.txt"],
    ["scenarios/validation/p4d_nodes_allreduce.toml", "all_gather_perf", "-b", "1M", "-e", "8M", "-d", "all",
     "-n", "50"],
    ["scenarios/validation/h200x4.toml", "--op", "broadcast", "-r", "2", "-b", "1K", "-e", "1K", "-o", "all"],
])
def test_nccl_tests(commsim_binary, args):
    j = json.loads(commsim(commsim_binary, "nccl-tests", *args, "--json"))
    check(j)
    assert j["command"] == "nccl-tests"


@pytest.mark.parametrize("scenario", ["scenarios/seeds/p4d_4pod_1gpu_efa.toml", "scenarios/seeds/p5_8pod_1gpu.toml"])
def test_topo(commsim_binary, scenario):
    j = json.loads(commsim(commsim_binary, "topo", scenario, "--json"))
    check(j)
    assert j["placement"]["ranks"] == len({p["from"] for p in j["pairs"]})
    # What it lays out, as every --json output states it.
    assert j["gpus"] == j["placement"]["ranks"] and j["nodes"] >= 1 and j["pods"] >= 1 and j["layout"]


def test_calibrate(commsim_binary, tmp_path):
    measured = "scenarios/validation/h200x4/measured/nccl-tests"
    j = json.loads(commsim(commsim_binary, "calibrate", "--scenario", "scenarios/validation/h200x4.toml",
                           f"{measured}/ar_g4.txt", f"{measured}/ar_g4_shm.txt:NCCL_P2P_DISABLE=1",
                           "--fix", "nvlink.efficiency.ll=0.26", "--out", tmp_path / "p.toml", "--json"))
    check(j)
    assert j["fixed"] == {"nvlink.efficiency.ll": 0.26}
    assert (tmp_path / "p.toml").is_file()


MEASURED_RUN = "scenarios/validation/h200x1/measured_run"


def test_profile(commsim_binary, tmp_path):
    j = json.loads(commsim(commsim_binary, "profile", f"{MEASURED_RUN}/kineto_plain_step.json", "--scenario",
                           f"{MEASURED_RUN}/plain_step.toml", "--out", tmp_path / "c.toml", "--json"))
    check(j)
    assert [c["class"] for c in j["classes"]] == ["gemm", "attention", "elementwise", "optimizer"]
    assert (tmp_path / "c.toml").is_file()


def test_diff(commsim_binary):
    j = json.loads(commsim(commsim_binary, "diff", f"{MEASURED_RUN}/kineto_plain_step.json",
                           f"{MEASURED_RUN}/nccl_tests_all_reduce.json", f"{MEASURED_RUN}/inspector_handwritten.jsonl",
                           f"{MEASURED_RUN}/plain_step.toml", "--json"))
    check(j)
    assert j["rows"][0]["kind"] == "step"
    assert {r["kind"] for r in j["rows"]} == {"step", "compute", "idle", "collective"}
    assert (j["gpus"], j["nodes"], j["pods"]) == (1, 1, 1) and j["layout"]


@pytest.mark.parametrize("log", ["seed000_p4d_4pods_efa.log", "seed004_g6e_4pods_socket_fallback.log"])
def test_nccl_log(commsim_binary, log):
    check(json.loads(commsim(commsim_binary, "nccl-log", f"scenarios/examples/inputs/{log}", "--json")))


def test_report(commsim_binary, tmp_path):
    j = json.loads(commsim(commsim_binary, "report", "scenarios/examples/allreduce_h200x4.toml", "--csv",
                           tmp_path / "r.csv", "--trace", tmp_path / "r.json", "--no-busbw", "--json"))
    check(j)
    trace = json.loads((tmp_path / "r.json").read_text())
    assert trace["metadata"]["commsim"] == j["inputs"]
    assert "input,,,,,,,,,,,commsim: " in (tmp_path / "r.csv").read_text()


@pytest.mark.parametrize("command", ["instances", "presets"])
def test_catalogs(commsim_binary, command):
    j = json.loads(commsim(commsim_binary, command, "--json"))
    check(j)
    assert j[command]


@pytest.mark.parametrize("owner", [None, "collectives"])
def test_params(commsim_binary, owner):
    args = ["params", "--json"] + (["--owner", owner] if owner else [])
    j = json.loads(commsim(commsim_binary, *args))
    check(j)
    assert j["params"]
    assert j["owner"] == (f"models/{owner}" if owner else None)
    if owner:
        assert {p["owner"] for p in j["params"]} == {f"models/{owner}"}
    # The same parameters, in the same order, as the table.
    table = commsim(commsim_binary, *args[:1], *args[2:]).splitlines()
    start = next(i for i, line in enumerate(table) if line.startswith("name "))
    assert [line.split()[0] for line in table[start + 1:] if line.strip()] == [p["name"] for p in j["params"]]


@pytest.mark.parametrize("job", ["pytorchjob_p4d_1x4.yaml", "mpijob_p4d_2x8.yaml", "jobset_p4d_2x8.yaml",
                                 "indexed_job_p5_2x8.yaml", "list_pytorchjob_g6e_2x4.yaml"])
def test_import(commsim_binary, tmp_path, job):
    j = json.loads(commsim(commsim_binary, "import", "k8s", f"scenarios/examples/inputs/{job}", "--out",
                           tmp_path / "s.toml", "--json"))
    check(j)
    assert (tmp_path / "s.toml").is_file()


def test_plan(commsim_binary, tmp_path):
    out = commsim(commsim_binary, "plan", "tests/scenarios/cli/plan/small.toml", "--gpus", "8..16", "--strategies",
                  "megatron,fsdp", "--cp", "1", "--json", "--include", "tests/scenarios/cli/plan/small.toml")
    j = json.loads(out)
    check(j)
    assert j["command"] == "plan" and j["rows"][0]["rank"] == 1 and j["included"]["file"]


GOODPUT = "scenarios/examples/at_scale/goodput_llama70b_16k.toml"


@pytest.mark.parametrize("setting, checkpointing, finishes", [
    (None, "interval", True),
    ("training.steps=1", "run_shorter_than_interval", True),  # 2.2 s of steps: no checkpoint to take
    ("cluster.params.checkpoint.storage_bandwidth=1e6", "never_sooner", True),  # a 274 h checkpoint, M = 3 h
    ("cluster.params.failures.gpu=1e6", "interval", False),  # M = 0.22 s, a 10 min restart: T_w overflows
])
def test_goodput_plans(commsim_binary, setting, checkpointing, finishes):
    """Every checkpoint plan and a run that does not finish validate: the interval is null where
    none is taken, the infinite figures are null (never the `null` of an infinity, never a number
    of overflowed days), and a sweep row has empty cells where run --json has null."""
    sets = ["--set", setting] if setting else []
    r = json.loads(commsim(commsim_binary, "run", GOODPUT, "--json", *sets))
    check(r)
    g = r["goodput"]
    assert g["checkpointing"] == checkpointing and g["finishes"] is finishes
    assert (g["checkpoint_interval_s"] is None) is (checkpointing != "interval")
    assert (g["checkpoint_interval_steps"] is None) is (checkpointing != "interval")
    for key in ("expected_wall_s", "expected_interruptions", "rework_s", "restart_overhead_s", "expected_cost_usd"):
        assert (g[key] is None) is (not finishes), key
    if not finishes:
        assert g["goodput"] == 0
    text = commsim(commsim_binary, "run", GOODPUT, *sets)
    assert "-9223372036854775808" not in text and not re.search(r"\b(inf|nan)\b", text)
    if setting:
        key, value = setting.split("=")
        out = commsim(commsim_binary, "sweep", GOODPUT, "--vary", f"{key}={value}")
        rows = list(csv.DictReader(io.StringIO(out)))
        assert len(rows) == 1 and "null" not in rows[0].values()
        row = rows[0]
        assert (row["checkpoint_interval_s"] == "") is (checkpointing != "interval")
        assert (row["expected_wall_s"] == "") is (not finishes)
        assert (row["expected_cost_usd"] == "") is (not finishes)
        check(json.loads(commsim(commsim_binary, "sweep", GOODPUT, "--json", "--vary", f"{key}={value}")))


def test_samples_within_time_limit(commsim_binary):
    """--samples shares --time-limit with the step: the run stops sampling when it runs out, exits 3,
    and its statistics are over the samples that finished (no NaN)."""
    r = json.loads(commsim(commsim_binary, "run", "scenarios/seeds/p4d_1pod_4gpu.toml", "--samples", "100000",
                           "--time-limit", "2", "--json", ok=(3,)))
    check(r)
    v = r["variability"]
    assert r["partial"] is False and r["step_time_s"] > 0
    assert v["samples_asked"] == 100000 and 0 < v["samples"] < 100000 and len(v["steps_s"]) == v["samples"]
    assert min(v["steps_s"]) == v["step_min_s"] and v["step_mean_s"] > 0
