"""The Python package (scenarios/python/commsim): run, compare, sweep and plan over the JSON interface,
errors as CommsimError with the FILE:LINE:COL line and the exit code, the binary found as the
module documents."""

import math
import os
import subprocess
import sys

import pytest

import commsim


def test_run_returns_the_result_object(allreduce):
    r = commsim.run(allreduce)
    assert r["schema_version"] == commsim.SCHEMA_VERSION == 1
    assert r["command"] == "run"
    assert r["inputs"]["files"] == [allreduce]
    assert r["step_time_s"] > 0
    assert len(r["ranks"]) == 4
    assert isinstance(r["links"][0]["bytes"], int)


def test_run_overrides_as_a_mapping_keep_python_types(allreduce):
    base = commsim.run(allreduce)
    r = commsim.run(allreduce, {"collective.bytes": "2 GiB", "collective.iterations": 3})
    assert r["inputs"]["overrides"] == ['collective.bytes="2 GiB"', "collective.iterations=3"]
    assert r["steps"] == 3
    assert 1.9 < r["step_time_s"] / base["step_time_s"] < 2.0
    # The same as a list of KEY=VALUE strings, as on the command line.
    same = commsim.run(allreduce, ["collective.bytes=2 GiB", "collective.iterations=3"])
    assert same["step_time_s"] == r["step_time_s"]


def test_a_name_outside_ascii_passes_as_written(allreduce):
    # TOML has no surrogate-pair escapes: the text goes as UTF-8, and the name keeps it.
    r = commsim.run(allreduce, {"name": "café run 🚀"})
    assert r["scenario"].startswith("café run 🚀")


def test_a_time_limit_returns_the_partial_result(repo):
    # Exit 3 is a partial result with its JSON, not an error, when a time limit was asked for.
    r = commsim.run(str(repo / "scenarios" / "examples" / "gpt3_175b_zb_h1.toml"), time_limit=0.001)
    assert r["partial"] is True


def test_compare_one_file_twice_with_one_knob_changed(allreduce):
    c = commsim.compare([allreduce, allreduce], {"2:collective.bytes": "2 GiB"})
    assert c["command"] == "compare"
    first, second = c["results"]
    assert first["step_time_ratio"] == 1.0
    assert 1.9 < second["step_time_ratio"] < 2.0
    assert second["inputs"]["overrides"] == ['collective.bytes="2 GiB"']


def test_sweep_rows_are_flat_dicts_in_sweep_order(allreduce):
    rows = commsim.sweep(
        allreduce, {"collective.bytes": ["1 MiB", "16 MiB"], "collective.op": ["all_reduce", "all_gather"]}, jobs=2
    )
    assert [r["index"] for r in rows] == [0, 1, 2, 3]
    assert [r["collective.op"] for r in rows] == ["all_reduce", "all_gather"] * 2
    assert all(r["error"] is None for r in rows)
    assert all(not isinstance(v, (dict, list)) for r in rows for k, v in r.items() if k != "overrides")
    assert rows[2]["step_time_s"] > rows[0]["step_time_s"]
    shard = commsim.sweep(allreduce, {"collective.bytes": ["1 MiB", "16 MiB"]}, shard=(1, 2))
    assert [r["index"] for r in shard] == [1]


def test_sweep_string_values_keep_their_quotes_and_commas(allreduce):
    # json.dumps writes a quote inside a string as TOML's \" escape; --vary must not end the value there.
    name = 'say "hi", world'
    rows = commsim.sweep(allreduce, {"name": [name, "b"]})
    assert [r["name"] for r in rows] == [name, "b"]
    assert [r["error"] for r in rows] == [None, None]


def test_plan_is_exported_and_takes_one_instance_and_a_gpu_list(repo, monkeypatch):
    assert "plan" in commsim.__all__
    seen = []
    monkeypatch.setattr(commsim, "command", lambda args, **kw: seen.append(args) or {})
    example = str(repo / "scenarios" / "examples" / "plan_llama3_8b.toml")
    commsim.plan(example, instances="p5.48xlarge", gpus=[8, 16])
    assert seen[0][seen[0].index("--instances") + 1] == "p5.48xlarge"
    assert seen[0][seen[0].index("--gpus") + 1] == "8..16"
    with pytest.raises(ValueError, match=r"gpus=\[8, 16, 32\]: expected \(MIN, MAX\)"):
        commsim.plan(example, gpus=[8, 16, 32])


def test_sweep_rows_make_a_dataframe(allreduce):
    pandas = pytest.importorskip("pandas")
    rows = commsim.sweep(allreduce, {"collective.iterations": [1, 2, 3]})
    frame = pandas.DataFrame(rows)
    assert list(frame["collective.iterations"]) == [1, 2, 3]
    assert frame["run_time_s"].is_monotonic_increasing


def test_a_failed_point_is_a_row_unless_fail_on_error(repo):
    seed = str(repo / "scenarios" / "seeds" / "p4d_1pod_4gpu.toml")
    vary = {"parallel.tp": [1, 3], "parallel.strategy": ["megatron"]}
    rows = commsim.sweep(seed, vary)
    assert rows[0]["error"] is None
    assert "tp x cp x pp = 3 does not divide the 4 GPUs" in rows[1]["error"]
    assert rows[1]["step_time_s"] is None
    with pytest.raises(commsim.CommsimError) as e:
        commsim.sweep(seed, vary, fail_on_error=True)
    assert e.value.exit_code == 1
    # The failed point's own error, not the summary lines after it, and every row still there.
    assert "tp x cp x pp = 3 does not divide the 4 GPUs" in e.value.message
    assert "1 of 2 sweep points failed" in e.value.message
    assert [r["error"] is None for r in e.value.rows] == [True, False]
    # A --vary value refused at its point keeps its position.
    with pytest.raises(commsim.CommsimError) as e:
        commsim.sweep(seed, {"placement.gpus_per_pod": [1, 16]}, fail_on_error=True)
    assert (e.value.file, e.value.line) == ("--vary", 1)


def test_plan_refuses_output_options_that_would_replace_its_json(repo):
    with pytest.raises(ValueError, match="returns the --json object"):
        commsim.plan(repo / "scenarios" / "examples" / "plan_llama3_8b.toml", csv="x.csv")


def test_user_errors_raise_with_the_place_and_exit_code(allreduce, tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "x"\n[cluster]\ninstance = "p4d.24xlarge"\nnodez = 2\n')
    with pytest.raises(commsim.CommsimError) as e:
        commsim.run(bad)
    err = e.value
    assert err.exit_code == 2
    assert (err.file, err.line, err.col) == (str(bad), 4, 1)
    assert err.message == f"{bad}:4:1: unknown key 'nodez' in [cluster] (did you mean 'nodes'?)"
    with pytest.raises(commsim.CommsimError) as e:
        commsim.run(allreduce, {"collective.bytes": "-3 MB"})
    assert (e.value.file, e.value.line) == ("--set", 1)
    with pytest.raises(TypeError):
        commsim.run(allreduce, {"collective.bytes": object()})


def test_binary_is_found_from_the_environment_then_the_build_folder(monkeypatch, repo, commsim_binary):
    monkeypatch.setenv("COMMSIM_BINARY", "/nonexistent/commsim")
    assert commsim.binary() == "/nonexistent/commsim"
    with pytest.raises(commsim.CommsimError) as e:
        commsim.run("x.toml")
    assert e.value.exit_code == 127
    assert "/nonexistent/commsim" in e.value.message
    monkeypatch.delenv("COMMSIM_BINARY")
    built = repo / "build" / "scenarios" / "commsim"
    if built.is_file():
        assert commsim.binary() == str(built)


def test_importable_with_pythonpath_as_the_readme_says(repo, commsim_binary, allreduce):
    env = dict(os.environ, PYTHONPATH=str(repo / "scenarios" / "python"), COMMSIM_BINARY=commsim_binary)
    code = "import commsim, sys; print(commsim.run(sys.argv[1])['step_time_s'] > 0)"
    out = subprocess.run([sys.executable, "-c", code, allreduce], env=env, cwd="/", capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "True"


def test_the_docs_python_line_runs(repo, commsim_binary):
    lines = [line for line in (repo / "docs" / "python.md").read_text().splitlines()
             if line.startswith("PYTHONPATH=scenarios/python python3 -c ")]
    assert len(lines) == 1, "docs/python.md shows one PYTHONPATH=scenarios/python line"
    env = dict(os.environ, COMMSIM_BINARY=commsim_binary, PYTHON=sys.executable)
    out = subprocess.run(["bash", "-c", lines[0].replace("python3 -c", '"$PYTHON" -c', 1)], env=env, cwd=repo,
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert float(out.stdout) > 0


def test_every_row_states_gpus_nodes_pods_and_the_layout(repo):
    # The one-knob what-if that changes the GPU count: each result and each sweep row says so.
    seed = str(repo / "scenarios" / "seeds" / "p4d_1pod_4gpu.toml")
    c = commsim.compare([seed, seed], {"2:placement.gpus_per_pod": 1, "training.steps": 1})
    first, second = c["results"]
    assert (first["gpus"], first["nodes"], first["pods"]) == (4, 1, 1)
    assert (second["gpus"], second["nodes"], second["pods"]) == (1, 1, 1)
    assert first["layout"].startswith("4 GPUs: 1 node p4d.24xlarge, 1 pod x 4 GPUs (4 of 8 GPUs per node idle); zero3")
    assert second["layout"].startswith("1 GPU: 1 node p4d.24xlarge, 1 pod x 1 GPU (7 of 8 GPUs per node idle); zero3")
    # The override is part of the second column's name: two columns never share one.
    # Every column's --set first, then the column's own (which wins over it).
    assert second["scenario"] == first["scenario"].replace("[training.steps=1]", "[training.steps=1, placement.gpus_per_pod=1]")
    rows = commsim.sweep(seed, {"placement.pods_per_node": [1, 4], "placement.gpus_per_pod": [4, 1]})
    laid = {(r["placement.pods_per_node"], r["placement.gpus_per_pod"]): r for r in rows if r["error"] is None}
    assert laid[(4, 1)]["pods"] == 4 and laid[(4, 1)]["gpus"] == 4
    assert "4 pods x 1 GPU" in laid[(4, 1)]["layout"]
    assert laid[(1, 1)]["gpus"] == 1


def test_plan_ranks_layouts_and_names_every_instance(repo):
    # The plan of docs/plan.md's small example with a GB200 NVL72 UltraServer beside p5: every
    # UltraServer row runs 64 of its 72 GPUs and pays the whole rack.
    example = str(repo / "scenarios" / "examples" / "plan_llama3_8b.toml")
    p = commsim.plan(example, instances=["p5.48xlarge", "u-p6e-gb200x72"], gpus=(64, 144),
                     strategies=["megatron"], micro_batches=[1], cp=[1], jobs=2)
    assert p["command"] == "plan"
    assert p["rows"][0]["rank"] == 1
    assert set(p["space"]["instances"]) == {"p5.48xlarge", "u-p6e-gb200x72"}
    for row in p["rows"]:
        if row["instance"] == "u-p6e-gb200x72":
            assert (row["gpus_per_node"], row["node_gpus"]) == (64, 72)
            assert row["layout"].endswith(", 64 of 72 GPUs per node")
            # Sold as Capacity Blocks: whole days of the rack paid up front (runs under 14 days here).
            paid_s = math.ceil(row["train_time_s"] / 86400) * 86400
            assert row["pricing"] == "capacity block"
            assert row["cost_usd"] == pytest.approx(paid_s * row["nodes"] * 761.904 / 3600, rel=1e-6)
    with pytest.raises(commsim.CommsimError) as e:
        commsim.plan(example, gpus="9..15")
    assert e.value.exit_code == 2
    assert "no number of whole nodes, nor a half, quarter or eighth of one node, has 9 to 15 GPUs" in e.value.message
