"""`irw eval` and `irw sql` without typer's start-up, for the commands people run most (a shell
loop over run files: `irw eval -m map -m P.10 QRELS RUN`; a quick `irw sql "SELECT ..."`).

typer validates every parameter through a pydantic TypeAdapter, the group's own --debug too, so
any command imports pydantic and builds adapters before it runs: 0.1-0.2 s of CPU, about what
evaluating a TREC-size run takes. `parse_args` reads the everyday forms of these commands'
arguments itself and hands the command function the values typer would have given it
(tests/cli/test_fast.py compares the two on many command lines). Anything it does not know
(`--help`, an option outside the command's table, a bad value, `-qc`, `--`, `-f FILE` whose
checks typer makes, a word starting with `-` where a value may be a file) returns None, and
typer parses the command line as before, with its own messages.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

_INT = re.compile(r"[+-]?[0-9]+")
_SECONDS = re.compile(r"[0-9]+([.][0-9]+)?")


@dataclass(frozen=True)
class Spec:
    """The options of one command that the fast path knows: spelling -> parameter."""
    switches: dict[str, tuple[str, object]]          # flag -> (parameter, value it sets)
    values: dict[str, str]                           # option taking a value -> parameter
    positional: str                                  # the parameter of the positional words
    many: bool                                       # the positional parameter is a list
    lists: frozenset[str] = frozenset()
    ints: frozenset[str] = frozenset()
    paths: frozenset[str] = frozenset()
    choices: dict = field(default_factory=dict)      # parameter -> its Enum


def _eval_spec() -> Spec:
    """irw eval's own options, and the evaluation options from their declaration."""
    from .optionspec import fast_spec
    from .plain import Format, QrelsFormat
    switches, values, ints, choices = fast_spec()
    return Spec(
        switches={"-q": ("query", True), "--store": ("store", True),
                  "--keep-first": ("keep_first", True), **switches},
        values={"-m": "measure", "--measure": "measure", "-f": "fmt", "--format": "fmt",
                "--qrels-format": "qrels_format", "-C": "campaign", "--campaign": "campaign",
                "--run": "run", "-w": "warehouse", "--warehouse": "warehouse",
                "--wait": "wait", **values},
        positional="files", many=True, lists=frozenset({"measure", "run"}),
        ints=frozenset(ints), paths=frozenset({"warehouse"}),
        choices={"fmt": Format, "qrels_format": QrelsFormat, **choices})


def _sql_spec() -> Spec:
    from .analyst import SqlFormat
    return Spec(
        switches={"--write": ("write", True)},
        values={"--format": "fmt", "--max-rows": "max_rows", "-o": "out", "--out": "out",
                "-w": "warehouse", "--warehouse": "warehouse", "--wait": "wait"},
        positional="query", many=False, ints=frozenset({"max_rows"}),
        paths=frozenset({"out", "warehouse"}), choices={"fmt": SqlFormat})


COMMANDS = {"eval": _eval_spec, "sql": _sql_spec}


def parse_args(command: str, argv: list[str]) -> dict | None:
    """The keyword arguments of `command`'s function for `argv` (the words after the command
    name), or None when typer should parse them. Only the parameters given are returned; the
    function's defaults apply to the others, as they do under typer."""
    spec = COMMANDS[command]()
    out: dict = {}
    words: list[str] = []
    i = 0
    while i < len(argv):
        word = argv[i]
        i += 1
        if not word.startswith("-") or word == "-":
            words.append(word)
            continue
        name, eq, value = word.partition("=")
        if name in spec.switches and not eq:
            param, value = spec.switches[name]
            out[param] = value
            continue
        if name not in spec.values or (eq and not name.startswith("--")):
            return None
        if not eq:
            if i == len(argv):
                return None
            value = argv[i]
            i += 1
        param = spec.values[name]
        converted = _convert(command, spec, param, value)
        if converted is None:
            return None
        if param in spec.lists:
            out.setdefault(param, []).append(converted)
        else:
            out[param] = converted
    if spec.many and words:
        out[spec.positional] = [Path(w) for w in words]
    elif not spec.many:
        if len(words) > 1:
            return None                              # typer's "unexpected extra argument"
        if words:
            out[spec.positional] = words[0]
    return out


def _convert(command: str, spec: Spec, param: str, value: str):
    """A value as typer would convert it; None when typer should judge it."""
    if param in spec.ints:
        return int(value) if _INT.fullmatch(value) else None
    if param == "wait":                              # seconds >= 0 (typer judges the rest)
        return float(value) if _SECONDS.fullmatch(value) else None
    if param in spec.choices:
        choices = spec.choices[param]
        return choices(value) if value in {c.value for c in choices} else None
    if param in spec.paths:
        return Path(value)
    return value


# the module that registers each command typer runs (cli/commands.py imports every group)
_MODULES = {"eval": "eval", "sql": "analyst"}


def _function(command: str):
    """The function typer calls for `command`, as registered with common.add_wait_options'
    --wait wrapper (applied here when cli.commands has not been imported)."""
    import importlib

    from .common import _with_wait, app
    importlib.import_module(f".{_MODULES[command]}", __package__)
    return _with_wait(next(info.callback for info in app.registered_commands
                           if (info.name or info.callback.__name__) == command))


def _eval(**kwargs) -> None:
    """`irw eval`'s body (eval_body.py) without typer, given what typer's two wrappers of the
    command would have given it: --wait (common.add_wait_options) and the evaluation options
    as one EvalSettings (options.evaluation_options)."""
    from ..store.locking import set_default_wait
    from .eval_body import eval_body
    from .optionspec import take_settings
    set_default_wait(kwargs.pop("wait", None))
    settings = take_settings(kwargs)
    eval_body(**kwargs, settings=settings)


def main(argv: list[str]) -> bool:
    """Run `irw [--debug] eval|sql ...` without typer's parsing when parse_args knows its
    arguments (`irw eval` without importing typer at all); False (nothing done) otherwise."""
    debug = argv[:1] == ["--debug"]
    words = argv[1:] if debug else argv
    if not words or words[0] not in COMMANDS:
        return False
    kwargs = parse_args(words[0], words[1:])
    if kwargs is None:
        return False
    from .plain import DEBUG
    DEBUG["on"] = debug
    if words[0] == "eval":
        _eval(**kwargs)
        return True
    import typer
    try:
        _function(words[0])(**kwargs)
    except typer.Exit as exc:
        raise SystemExit(exc.exit_code) from None
    return True
