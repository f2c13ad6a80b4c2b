#!/usr/bin/env python3
"""Rewrites the ```console blocks of docs/*.md with what the program prints now.

Each block starts with "$ build/scenarios/commsim ARGS" and quotes some lines of that command's
output in order ("..." skips; a line ending in " ..." is the start of one), as
tests/scenarios/docs_console_test.cpp checks them. After a model change moves a number, this
runs each block's command and replaces every quoted line that is no longer printed by the printed
line it stands for: the next printed line, in order, that starts with the same words before the
first digit. A line it cannot place is left as it is and reported; the test then says where.

    python3 scripts/refresh-console-docs.py BUILD/scenarios/commsim [PAGE ...]

Review the diff: the prose around a block may quote the same numbers.
"""
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
PROMPT = "$ build/scenarios/commsim "


def stem(line):
    """The words before the first digit: what a line says, not what it measures."""
    m = re.search(r"\d", line)
    return (line[: m.start()] if m else line).rstrip()


def refresh_block(binary, lines):
    args = [w if not w.endswith(".toml") else str(ROOT / w) for w in lines[0][len(PROMPT):].split()]
    run = subprocess.run([binary] + args, capture_output=True, text=True, cwd=ROOT)
    if run.returncode != 0:
        return lines, [f"{lines[0]}: exit {run.returncode}"]
    printed = run.stdout.split("\n")
    out, problems, nxt = [lines[0]], [], 0
    for want in lines[1:]:
        if want in ("...", ""):
            out.append(want)
            continue
        prefix = want.endswith(" ...") and len(want) > 4
        head = want[:-3] if prefix else want
        match = lambda p: p.startswith(head) if prefix else p == want  # noqa: E731
        at = next((i for i in range(nxt, len(printed)) if match(printed[i])), None)
        if at is None:
            key = stem(head)
            at = next((i for i in range(nxt, len(printed)) if key and printed[i].startswith(key)), None)
            if at is None:
                problems.append(f"{lines[0]}: no printed line for: {want}")
                out.append(want)
                continue
            if prefix:  # keep the quoted start's length, cut at a word
                cut = printed[at][: len(head)].rsplit(" ", 1)[0] if len(printed[at]) > len(head) else printed[at]
                want = cut + " ..."
            else:
                want = printed[at]
        out.append(want)
        nxt = at + 1
    return out, problems


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    binary = str(pathlib.Path(sys.argv[1]).resolve())
    pages = [pathlib.Path(p) for p in sys.argv[2:]] or sorted((ROOT / "docs").glob("*.md"))
    problems = []
    for page in pages:
        text = page.read_text()
        parts, at = [], 0
        for m in re.finditer(r"```console\n(.*?)```", text, re.S):
            block = m.group(1).rstrip("\n").split("\n")
            if not block[0].startswith(PROMPT):
                continue
            new, bad = refresh_block(binary, block)
            problems += [f"{page.name}: {b}" for b in bad]
            parts.append(text[at:m.start(1)] + "\n".join(new) + "\n")
            at = m.end(1)
        parts.append(text[at:])
        new_text = "".join(parts)
        if new_text != text:
            page.write_text(new_text)
            print(f"updated {page.relative_to(ROOT)}")
    for p in problems:
        print(p, file=sys.stderr)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
