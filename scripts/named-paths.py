#!/usr/bin/env python3
"""Every file of this repository that a tracked text names by its path exists.

Docs, comments, scenarios and scripts cite files by their path from the repository root
(`bench/device/comm/torch_nccl_bench.py`, `models/scale/gpu_rotation.hpp`); when a file moves, a
citation left behind sends the reader nowhere. This finds every such path (one under a top-level
folder of this repository, ending in a file extension) and fails naming FILE:LINE for each one
that does not exist. Paths that name another project's file, or a made-up one in a test, are
listed in NOT_OURS with the reason.
Usage: scripts/named-paths.py [REPO_ROOT]
"""
import os, re, subprocess, sys

ROOT = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOP = "bench|docs|models|scenarios|scripts|sim|tests|viz"
EXT = "cpp|hpp|h|cu|cuh|c|py|sh|md|toml|json|jsonl|txt|csv|yaml|yml|html|js|css|svg"
PATH = re.compile(r"(?<![\w./-])((?:%s)/[A-Za-z0-9_./+-]*\.(?:%s))(?![\w/])" % (TOP, EXT))
NOT_OURS = {
    "models/megatron-22B.json": "calculon-ai/calculon's model file, cited as the source of a preset",
    "models/turing-530B.json": "calculon-ai/calculon's model file",
    "models/megatron-1T.json": "calculon-ai/calculon's model file",
    "models/gpt3-175B.json": "calculon-ai/calculon's model file",
    "scripts/models/kimi-k2.sh": "THUDM/slime's model arguments, cited as the source of a preset",
    "scripts/models/glm4.5-355B-A32B.sh": "THUDM/slime's model arguments, cited as the source of a preset",
    "docs/source/distrib_optimizer.md": "Megatron-LM's documentation, cited",
    "docs/benchmark-report.md": "MG-Cafe's benchmark report, cited",
    "scenarios/NAME.toml": "a placeholder in a usage line",
    "scenarios/seeds/example.toml": "a report fixture's made-up source file name",
    "models/topology/render.cpp": "an architecture test's made-up file",
    "models/unlisted/x.cpp": "an architecture test's made-up file",
    "docs/performance.md": "pytorch/torchtitan's page of published throughput (scenarios/validation/torchtitan)",
}
SKIP = ("tests/fuzz/corpus/", "tests/fuzz/regressions/", "tests/scenarios/bad/")

missing = []
for rel in subprocess.check_output(["git", "-C", ROOT, "ls-files"], text=True).split("\n"):
    if not rel or rel.startswith(SKIP):
        continue
    try:
        text = open(os.path.join(ROOT, rel), encoding="utf-8").read()
    except (UnicodeDecodeError, IsADirectoryError, FileNotFoundError):
        continue
    for m in PATH.finditer(text):
        path = m.group(1)
        if path in NOT_OURS or os.path.exists(os.path.join(ROOT, path)):
            continue
        missing.append(f"{rel}:{text.count(chr(10), 0, m.start()) + 1}: names {path}, which does not exist")
if missing:
    # A path of another project that happens to start with one of our folder names is cited, not
    # moved: say where such a citation is declared, so the fix is not a rename.
    missing.append("(another project's file, cited? list it in NOT_OURS in scripts/named-paths.py)")
print("\n".join(missing) if missing else "every named path exists")
sys.exit(1 if missing else 0)
