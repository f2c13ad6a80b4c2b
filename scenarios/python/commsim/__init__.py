"""commsim from Python: a thin wrapper over the command's JSON interface.

Nothing to build and no ABI to match: each call runs the ``commsim`` program with ``--json`` and
returns what it printed, parsed (the shape is docs/result.schema.json, ``schema_version`` 1)::

    import commsim
    r = commsim.run("scenarios/seeds/p4d_1pod_4gpu.toml", {"training.steps": 10})
    r["step_time_s"], r["busiest_link"]
    c = commsim.compare(["a.toml", "a.toml"], {"2:placement.gpus_per_pod": 1})
    rows = commsim.sweep("a.toml", {"placement.gpus_per_pod": [1, 2, 4]})
    pandas.DataFrame(rows)

The program is found through ``COMMSIM_BINARY``, else ``build/scenarios/commsim`` of the
repository this package sits in, else ``commsim`` on ``PATH``. A user error (exit code 2, one
line ``FILE:LINE:COL: message``) or any other failure raises :class:`CommsimError`.
"""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import subprocess
from typing import Any, Iterable, Mapping, Sequence, Union

__all__ = ["CommsimError", "binary", "run", "compare", "sweep", "plan", "command", "SCHEMA_VERSION"]

SCHEMA_VERSION = 1

Overrides = Union[None, Mapping[str, Any], Sequence[str]]


class CommsimError(RuntimeError):
    """commsim refused or failed. ``message`` is its one line (``FILE:LINE:COL: what is wrong
    (what was expected)`` for user errors), ``exit_code`` 2 for user errors, 1 for internal
    failures and for ``sweep(..., fail_on_error=True)`` with failed points (negative: the program
    was killed by that signal, e.g. -9 when out of memory); ``file``, ``line``, ``col`` are the
    position when the message has one. ``rows``: a sweep's rows, every point's, when the sweep ran
    and some points failed (``fail_on_error``); else empty."""

    def __init__(self, message: str, exit_code: int, args: Sequence[str] = (), stderr: str = "",
                 rows: Sequence[dict] = ()):
        super().__init__(message)
        self.message = message
        self.exit_code = exit_code
        self.command = list(args)
        self.stderr = stderr
        self.rows = list(rows)
        self.file, self.line, self.col = _position(message)

    def __str__(self) -> str:
        return f"{self.message} (exit code {self.exit_code})"


def _position(message: str):
    # FILE:LINE:COL: ... where FILE may itself hold ':' (a Windows drive never occurs here).
    head = message.split(": ", 1)[0]
    parts = head.rsplit(":", 2)
    if len(parts) == 3 and parts[1].isdigit() and parts[2].isdigit():
        return parts[0], int(parts[1]), int(parts[2])
    return None, None, None


def binary() -> str:
    """The commsim program this package runs (see the module's documentation)."""
    env = os.environ.get("COMMSIM_BINARY")
    if env:
        return env
    repo = pathlib.Path(__file__).resolve().parents[3]
    built = repo / "build" / "scenarios" / "commsim"
    if built.is_file() and os.access(built, os.X_OK):
        return str(built)
    found = shutil.which("commsim")
    if found:
        return found
    raise CommsimError(
        f"commsim not found: set COMMSIM_BINARY, build it at {built} (the README's first command), "
        "or put it on PATH",
        127,
    )


def _toml_value(value: Any) -> str:
    """A Python value as the TOML text --set expects: strings quoted, so they stay strings."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        # A JSON string is a TOML basic string; characters outside ASCII stay as they are, since
        # TOML has no surrogate-pair escapes (json.dumps' default writes "\ud83d\ude80").
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    raise TypeError(f"cannot pass {type(value).__name__} {value!r} to commsim (expected str, int, float, bool, list)")


def _set_args(overrides: Overrides) -> list[str]:
    if overrides is None:
        return []
    if isinstance(overrides, Mapping):
        items = [f"{key}={_toml_value(value)}" for key, value in overrides.items()]
    elif isinstance(overrides, (str, bytes)):
        raise TypeError("overrides: expected a mapping {key: value} or a list of 'KEY=VALUE' strings")
    else:
        items = list(overrides)
    args: list[str] = []
    for item in items:
        args += ["--set", item]
    return args


def command(args: Sequence[str], *, json_output: bool = True, check: bool = True, partial_ok: bool = False) -> Any:
    """Runs ``commsim ARGS`` and returns its standard output parsed as JSON (or the text when
    ``json_output`` is false). Raises CommsimError on a non-zero exit when ``check``, except exit 3
    (a partial result, stopped by --time-limit) when ``partial_ok``: that result is returned, its
    ``partial`` true."""
    full, proc = _run(args)
    if check and proc.returncode != 0 and not (partial_ok and proc.returncode == 3 and proc.stdout.strip()):
        raise _failure(full, proc)
    if not json_output:
        return proc.stdout
    return json.loads(proc.stdout)


def _run(args: Sequence[str]):
    full = [binary(), *map(str, args)]
    try:
        return full, subprocess.run(full, capture_output=True, text=True)
    except OSError as e:  # not found, not executable
        raise CommsimError(f"cannot run {full[0]}: {e.strerror} (set COMMSIM_BINARY to the commsim program)", 127, full)


def _failure(full: Sequence[str], proc: subprocess.CompletedProcess) -> CommsimError:
    # A user error is one FILE:LINE:COL line; other lines on stderr (progress, summaries) may
    # follow it, so the positioned line wins over the last one.
    lines = [l for l in proc.stderr.splitlines() if l.strip()]
    positioned = [l for l in lines if _position(l)[0] is not None]
    message = positioned[0] if positioned else lines[-1] if lines else f"commsim exited with code {proc.returncode}"
    return CommsimError(message, proc.returncode, full, proc.stderr)


def run(path: Union[str, os.PathLike], overrides: Overrides = None, *, time_limit: float | None = None) -> dict:
    """``commsim run PATH --json``: one run's result (``step_time_s``, ``run_time_s``, ``ranks``,
    ``links``, ``transports``, ...). ``overrides``: ``{"placement.gpus_per_pod": 1}`` or
    ``["placement.gpus_per_pod=1"]``."""
    args = ["run", os.fspath(path), "--json", *_set_args(overrides)]
    if time_limit is not None:
        args += ["--time-limit", str(time_limit)]
    return command(args, partial_ok=time_limit is not None)


def compare(paths: Iterable[Union[str, os.PathLike]], overrides: Overrides = None) -> dict:
    """``commsim compare A B ... --json``: ``results`` holds one summary per scenario with
    ``step_time_ratio`` against the first. A key ``"2:placement.gpus_per_pod"`` applies to the
    second scenario only; the same file may be given twice."""
    files = [os.fspath(p) for p in paths]
    if len(files) < 2:
        raise ValueError("compare: expected at least two scenario files")
    return command(["compare", *files, "--json", *_set_args(overrides)])


def sweep(
    path: Union[str, os.PathLike],
    vary: Mapping[str, Sequence[Any]],
    overrides: Overrides = None,
    *,
    jobs: int | None = None,
    shard: tuple[int, int] | None = None,
    fail_on_error: bool = False,
) -> list[dict]:
    """``commsim sweep PATH --vary K=v1,v2 ... --json``: one flat dict per point, in sweep order
    (the first key varies slowest), ready for ``pandas.DataFrame(rows)``. A point the model
    rejects has ``error`` set and null numbers; with ``fail_on_error`` it raises CommsimError
    instead, whose message names how many points failed and the first one's error (with its
    ``file``, ``line``, ``col``) and whose ``rows`` hold every point's row."""
    if not vary:
        raise ValueError("sweep: expected at least one key to vary")
    args = ["sweep", os.fspath(path), "--json"]
    for key, values in vary.items():
        values = list(values)
        if not values:
            raise ValueError(f"sweep: no values for {key}")
        args += ["--vary", f"{key}=" + ",".join(_toml_value(v) for v in values)]
    args += _set_args(overrides)
    if jobs is not None:
        args += ["--jobs", str(jobs)]
    if shard is not None:
        args += ["--shard", f"{shard[0]}/{shard[1]}"]
    if fail_on_error:
        args.append("--fail-on-error")
    full, proc = _run(args)
    rows = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()] if proc.returncode in (0, 1) else []
    failed = [r for r in rows if r.get("error")]
    if proc.returncode == 1 and fail_on_error and failed:
        message = f"{failed[0]['error']} ({len(failed)} of {len(rows)} sweep points failed; the first's error)"
        raise CommsimError(message, 1, full, proc.stderr, rows)
    if proc.returncode != 0:
        raise _failure(full, proc)
    return rows


def plan(
    path: Union[str, os.PathLike],
    overrides: Overrides = None,
    *,
    instances: Union[str, Sequence[str], None] = None,
    gpus: Union[int, str, Sequence[int], None] = None,
    **options: Any,
) -> dict:
    """``commsim plan PATH --json``: the ranked layouts (``rows``, best first, each with ``gpus``,
    ``nodes``, ``instance``, ``layout``, ``expected_train_time_s`` and ``expected_cost_usd`` with
    failures, by which they are ranked, ``train_time_s`` and ``cost_usd`` without), the Pareto front
    (``pareto_ranks``) and what became of each instance's candidates (``space["instances"]``).
    ``instances``: one name or a list of names. ``gpus``: ``(64, 1024)`` or ``[64, 1024]``,
    ``"64..1024"`` or one count. Any other option of the command by its
    name with ``_`` for ``-``: ``strategies=["megatron", "fsdp"]``, ``budget="2M"``,
    ``deadline="30d"``, ``objective="cost"``, ``hosts_per_domain=[16, 18]``, ``jobs=2``,
    ``pareto_exact=True``, ``html="plan.html"`` (``csv`` is refused: the result is the JSON)."""
    args = ["plan", os.fspath(path), "--json", *_set_args(overrides)]
    if instances is not None:
        # One name as a str, not its letters joined by commas.
        args += ["--instances", instances if isinstance(instances, str) else ",".join(instances)]
    if gpus is not None:
        if isinstance(gpus, (list, tuple)):
            if len(gpus) != 2:
                raise ValueError(f"gpus={gpus!r}: expected (MIN, MAX), \"MIN..MAX\" or one count")
            gpus = f"{gpus[0]}..{gpus[1]}"
        args += ["--gpus", str(gpus)]
    for name, value in options.items():
        if name in ("json", "csv"):
            raise ValueError(f"plan: {name}= is not an option here: plan() returns the --json object "
                             "(write it with json.dump, or pandas.DataFrame(result['rows']).to_csv)")
        flag = "--" + name.replace("_", "-")
        if value is True:
            args.append(flag)
        elif value is False or value is None:
            continue
        elif isinstance(value, (list, tuple)):
            args += [flag, ",".join(str(v) for v in value)]
        else:
            args += [flag, str(value)]
    return command(args)
