"""The cluster manifests in docs/ do what they say: their shard commands, run here once per index
(the Kubernetes Indexed Job's container command with $JOB_COMPLETION_INDEX, the Slurm script with
$SLURM_ARRAY_TASK_ID), then their merge line, give byte for byte the CSV of one unsharded sweep;
and a shard killed mid-way and run again (a pod eviction, a requeue) ends with the same file."""

import os
import pathlib
import re
import shlex
import signal
import subprocess
import time

import yaml

REPO = pathlib.Path(__file__).resolve().parents[2]


def workdir(tmp_path, binary):
    """A folder like the pod's /work or the Slurm job's folder: scenarios/, results/, commsim on PATH."""
    (tmp_path / "scenarios").symlink_to(REPO / "scenarios")
    (tmp_path / "results").mkdir()
    bindir = tmp_path / "bin"
    bindir.mkdir()
    (bindir / "commsim").symlink_to(binary)
    env = dict(os.environ, PATH=f"{bindir}:{os.environ['PATH']}")
    env.pop("COMMSIM", None)
    return env


def merge_line(text):
    m = re.search(r"^#\s+merge:\s+(.+)$", text, re.M)
    assert m, "the manifest states how to merge the shards"
    return m.group(1).strip()


def unsharded(command, cwd, env):
    """The same sweep in one go: the shard's command without --shard, into another file."""
    one = re.sub(r'--shard\s+"?[^"\s]+"?', "", command)
    one, replaced = re.subn(r'--csv\s+"[^\n]*?\.csv"', "--csv whole.csv", one)
    assert replaced == 1
    one = one.replace("$JOB_COMPLETION_INDEX", "0").replace("$SLURM_ARRAY_TASK_ID", "0")
    subprocess.run(["/bin/sh", "-c", one], cwd=cwd, env=env, check=True)
    return (cwd / "whole.csv").read_bytes()


def test_kubernetes_indexed_job_shards_merge_to_the_unsharded_csv(tmp_path, commsim_binary):
    text = (REPO / "docs" / "sweep-indexed-job.yaml").read_text()
    job = yaml.safe_load(text)
    assert (job["apiVersion"], job["kind"]) == ("batch/v1", "Job")
    spec = job["spec"]
    assert spec["completionMode"] == "Indexed"
    container = spec["template"]["spec"]["containers"][0]
    assert container["command"] == ["/bin/sh", "-c"]
    command = container["args"][0]
    assert "$JOB_COMPLETION_INDEX" in command
    n = int(re.search(r"--shard\s+\"?\$JOB_COMPLETION_INDEX/(\d+)", command).group(1))
    assert n == spec["completions"]
    # The mounts the command relies on exist under the working directory.
    mounts = {m["mountPath"] for m in container["volumeMounts"]}
    assert {container["workingDir"] + "/results", container["workingDir"] + "/scenarios/seeds"} <= mounts

    env = workdir(tmp_path, commsim_binary)
    for index in range(n):
        subprocess.run(["/bin/sh", "-c", command], cwd=tmp_path, env=dict(env, JOB_COMPLETION_INDEX=str(index)),
                       check=True)
    subprocess.run(["/bin/sh", "-c", merge_line(text)], cwd=tmp_path, env=env, check=True)
    merged = (tmp_path / "results" / "sweep.csv").read_bytes()
    assert merged == unsharded(command, tmp_path, env)
    assert merged.count(b"\n") == 1 + 3 * 4 * 2  # header + every point once


def test_slurm_array_script_shards_merge_to_the_unsharded_csv(tmp_path, commsim_binary):
    script = REPO / "docs" / "sweep-array.sh"
    text = script.read_text()
    first, last = map(int, re.search(r"^#SBATCH --array=(\d+)-(\d+)", text, re.M).groups())
    n = int(re.search(r"^N=(\d+)$", text, re.M).group(1))
    assert (first, last + 1) == (0, n)
    env = workdir(tmp_path, commsim_binary)
    for index in range(n):
        subprocess.run(["bash", str(script)], cwd=tmp_path, env=dict(env, SLURM_ARRAY_TASK_ID=str(index)), check=True)
    subprocess.run(["/bin/sh", "-c", merge_line(text)], cwd=tmp_path, env=env, check=True)
    merged = (tmp_path / "results" / "sweep.csv").read_bytes()
    # The script's command, joined from its continuation lines, run without --shard.
    command = re.search(r'^"\$\{COMMSIM:-commsim\}" sweep .*?--fail-on-error$', text, re.M | re.S).group(0)
    command = command.replace("\\\n", " ").replace('"${COMMSIM:-commsim}"', "commsim")
    command = command.replace("$N", str(n)).replace("${SLURM_CPUS_PER_TASK:-2}", "2")
    assert merged == unsharded(command, tmp_path, env)


def test_a_shard_killed_mid_way_and_run_again_ends_with_the_same_file(tmp_path, commsim_binary, repo):
    # One thread, points getting slower (the first three take ~5 ms together, the last, 8,192 GPUs,
    # ~0.4 s, so the kill lands inside it; with 64 nodes, 0.03 s, it raced the 20 ms polling):
    # kill once two rows are on disk, then run the same command again (--resume), as a restarted
    # pod or a requeued task does.
    scale = str(repo / "tests" / "scenarios" / "scale" / "zero3_70b_16k_p5en.toml")
    base = [commsim_binary, "sweep", scale, "--vary", "cluster.nodes=1,2,4,1024", "--jobs", "1", "--resume"]
    killed, clean = tmp_path / "killed.csv", tmp_path / "clean.csv"
    proc = subprocess.Popen(base + ["--csv", str(killed)])
    deadline = time.time() + 60
    while time.time() < deadline and (not killed.exists() or killed.read_bytes().count(b"\n") < 3):
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    kept = killed.read_bytes()
    assert kept.count(b"\n") >= 3  # header and the first rows survived the kill
    subprocess.run(base + ["--csv", str(killed)], check=True)
    subprocess.run(base + ["--csv", str(clean)], check=True)
    assert killed.read_bytes() == clean.read_bytes()
    assert kept.count(b"\n") < clean.read_bytes().count(b"\n")  # killed before the end
    assert clean.read_bytes().startswith(kept[: kept.rfind(b"\n") + 1])
