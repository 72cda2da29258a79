"""`irw eval` without typer's start-up, for the command people run most (a shell loop over
run files: `irw eval -m map -m P.10 QRELS RUN`).

typer builds every command of the `irw` group before it parses anything, and validates each
parameter through a pydantic TypeAdapter: 0.15-0.25 s of CPU (pydantic's import alone 0.09 s),
more than evaluating a TREC-size run takes. `parse_eval` reads the everyday forms of `irw eval`
arguments itself and hands eval_cmd the values typer would have given it
(tests/cli/test_fast.py compares the two on many command lines). Anything it does not know
(`--help`, an option outside FLAGS/VALUES, a bad value, `-qc`, `--`, a file name starting
with `-`) returns None, and typer parses the command line as before, with its own messages.
"""

from __future__ import annotations

import re
from pathlib import Path

# option spelling -> eval_cmd parameter
FLAGS = {"-q": "query", "-c": "complete", "-J": "judged_only", "--store": "store",
         "--keep-first": "keep_first"}
VALUES = {"-m": "measure", "--measure": "measure", "-l": "level", "-M": "depth",
          "-f": "fmt", "--format": "fmt", "--order": "order",
          "--trec-eval-version": "trec_eval_version", "--qrels-format": "qrels_format",
          "-C": "campaign", "--campaign": "campaign", "--run": "run", "--qrels": "qrels",
          "-w": "warehouse", "--warehouse": "warehouse"}
LISTS = {"measure", "run"}
INTS = {"level", "depth", "trec_eval_version"}
_INT = re.compile(r"[+-]?[0-9]+")


def parse_eval(argv: list[str]) -> dict | None:
    """eval_cmd's keyword arguments for `argv` (the words after `eval`), or None when typer
    should parse them. Only the parameters given are returned; eval_cmd's defaults apply to
    the others, as they do under typer."""
    out: dict = {}
    files: list[Path] = []
    i = 0
    while i < len(argv):
        word = argv[i]
        i += 1
        if not word.startswith("-") or word == "-":
            files.append(Path(word))
            continue
        name, eq, value = word.partition("=")
        if name in FLAGS and not eq:
            out[FLAGS[name]] = True
            continue
        if name not in VALUES or (eq and not name.startswith("--")):
            return None
        if not eq:
            if i == len(argv):
                return None
            value = argv[i]
            i += 1
        param = VALUES[name]
        converted = _convert(param, value)
        if converted is None:
            return None
        if param in LISTS:
            out.setdefault(param, []).append(converted)
        else:
            out[param] = converted
    if files:
        out["files"] = files
    return out


def _convert(param: str, value: str):
    """A value as typer would convert it; None when typer should judge it."""
    from .common import Format, Order, QrelsFormat
    if param in INTS:
        return int(value) if _INT.fullmatch(value) else None
    choices = {"fmt": Format, "order": Order, "qrels_format": QrelsFormat}.get(param)
    if choices is not None:
        return choices(value) if value in {c.value for c in choices} else None
    if param == "warehouse":
        return Path(value)
    return value


def main(argv: list[str]) -> bool:
    """Run `irw [--debug] eval ...` without typer when parse_eval knows its arguments; False
    (nothing done) otherwise."""
    debug = argv[:1] == ["--debug"]
    words = argv[1:] if debug else argv
    if words[:1] != ["eval"]:
        return False
    kwargs = parse_eval(words[1:])
    if kwargs is None:
        return False
    import typer

    from .common import DEBUG
    from .eval import eval_cmd
    DEBUG["on"] = debug
    try:
        eval_cmd(**kwargs)
    except typer.Exit as exc:
        raise SystemExit(exc.exit_code) from None
    return True
