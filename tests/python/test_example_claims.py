# The comments of the shipped examples (scenarios/examples/**/*.toml) quote what commsim prints for
# them; this runs each quoted command and checks the number, so that a model change that moves a
# result also updates the prose that explains it. A comment states a claim in one of two forms
# (a comment block is read as one text, so a claim may wrap over lines):
#   `commsim run` prints 4.101 ms                  the file as shipped
#   (--set KEY=VALUE [--set KEY=VALUE ...]) 5.338 ms  the file with those overrides; a ':' may
#                                                  follow the parenthesis, which holds nothing else
# The unit is ms or s; the claim holds when the step time (run --json's step_time_s) rounds to the
# quoted digits: within half a unit of the last one. Numbers in other wording are not checked.

import pathlib
import re

import pytest

import commsim

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "scenarios" / "examples"

# Files whose comments must carry at least one checked claim (so a rewording that drops the
# pattern does not silently turn the check off).
MUST_CLAIM = ("dgx_h100_nvls_allreduce.toml", "dgx_h100_collnet_allreduce.toml", "allreduce_fat_tree_3tier.toml")

_NUMBER = r"(?P<value>\d+(?:\.(?P<decimals>\d+))?)\s*(?P<unit>ms|s)\b"
_PLAIN = re.compile(r"`commsim run` prints " + _NUMBER)
_SET = r"--set [^\s()]+=[^\s()]+"
_VARIANT = re.compile(r"\((?P<sets>" + _SET + r"(?: " + _SET + r")*)\):?\s+" + _NUMBER)


def _comment_blocks(text: str):
    """(joined text, [(offset in text, line number)]) for each run of full-line comments."""
    blocks, lines, starts = [], [], []
    for number, line in enumerate(text.splitlines() + [""], start=1):
        stripped = line.strip()
        if stripped.startswith("#"):
            body = stripped.lstrip("#").strip()
            starts.append((sum(len(x) + 1 for x in lines), number))
            lines.append(body)
        elif lines:
            blocks.append((" ".join(lines), starts))
            lines, starts = [], []
    return blocks


def claims_in(path: pathlib.Path):
    """[(line, overrides, seconds claimed, tolerance in seconds)] of one scenario file."""
    found = []
    for joined, starts in _comment_blocks(path.read_text()):
        matches = [(m, []) for m in _PLAIN.finditer(joined)]
        matches += [(m, re.findall(r"--set (\S+)", m.group("sets"))) for m in _VARIANT.finditer(joined)]
        for m, overrides in matches:
            line = max(n for offset, n in starts if offset <= m.start())
            scale = 1e-3 if m.group("unit") == "ms" else 1.0
            decimals = len(m.group("decimals") or "")
            found.append((line, overrides, float(m.group("value")) * scale, 0.5 * 10**-decimals * scale))
    return sorted(found, key=lambda c: c[0])


def _all_claims():
    for path in sorted(EXAMPLES.rglob("*.toml")):
        for line, overrides, seconds, tolerance in claims_in(path):
            yield pytest.param(
                path, overrides, seconds, tolerance, id=f"{path.relative_to(EXAMPLES)}:{line}"
            )


def test_parser_reads_both_forms_across_lines(tmp_path):
    f = tmp_path / "x.toml"
    f.write_text(
        "# `commsim run` prints 1.250 ms; with two (--set a.b=1\n"
        "# --set c.d=x): 3 s and (--set e.f=2) the rest, not 4 ms\n"
        'name = "x"\n'
    )
    got = claims_in(f)
    assert [(c[0], c[1]) for c in got] == [(1, []), (1, ["a.b=1", "c.d=x"])]
    assert got[0][2:] == pytest.approx((1.25e-3, 0.5e-6))
    assert got[1][2:] == pytest.approx((3.0, 0.5))


@pytest.mark.parametrize("name", MUST_CLAIM)
def test_these_examples_carry_checked_claims(name):
    assert claims_in(EXAMPLES / name), f"{name}: no `commsim run` prints / (--set ...) claim left"


@pytest.mark.parametrize("path, overrides, seconds, tolerance", list(_all_claims()))
def test_claim_matches_what_commsim_prints(path, overrides, seconds, tolerance):
    step = commsim.run(path, overrides)["step_time_s"]
    assert abs(step - seconds) <= tolerance * (1 + 1e-9), (
        f"{path.name} {' '.join('--set ' + o for o in overrides)}: the comment says {seconds:g} s, "
        f"commsim prints {step:.6g} s"
    )
