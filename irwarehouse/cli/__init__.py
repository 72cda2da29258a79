"""The `irw` command: one module per command group (irwarehouse/cli/*.py), their shared apps,
options and guard in common.py. Heavy imports (duckdb, pyarrow) happen inside the commands so
that `irw --help` stays fast."""

from __future__ import annotations

from typing import Annotated

import typer

# the command groups register their commands, in the order `irw --help` lists them
from . import (  # noqa: F401
    analyst,
    campaign,
    check,
    compare,
    demo,
    eval,
    housekeeping,
    ingest,
    meta,
    meta_more,
    meta_agree,
    meta_power,
    online,
    serve,
    texts,
)
from .common import DEBUG, add_wait_options, app

# `irw --help` lists the commands in these groups
PANELS = {
    "Evaluate": ("eval", "compare", "measures", "rouge", "nuggets", "interleave"),
    "Warehouse": ("init", "demo", "ingest", "export", "sql", "schema", "report", "check",
                  "compact", "rm", "rename", "runs", "campaign", "campaigns", "serve"),
    "Meta-evaluation and online evaluation": ("meta", "online"),
}
_PANEL_OF = {name: panel for panel, names in PANELS.items() for name in names}
_ORDER = [name for names in PANELS.values() for name in names]


def _name(info) -> str:
    return info.name or info.callback.__name__.replace("_", "-")


for _infos in (app.registered_commands, app.registered_groups):
    _infos.sort(key=lambda info: _ORDER.index(_name(info)))
    for _info in _infos:
        _info.rich_help_panel = _PANEL_OF[_name(_info)]


add_wait_options(app)


@app.callback()
def main_options(debug: Annotated[bool, typer.Option(help="Show tracebacks.")] = False):
    DEBUG["on"] = debug


def main() -> None:
    """The `irw` command. A wrong command line is one line too (exit code 2), naming the
    command whose --help explains it, rather than typer's framed usage panel."""
    import sys

    from .fast import main as fast_main
    if fast_main(sys.argv[1:]):         # `irw eval`/`irw sql` without typer's start-up (fast.py)
        sys.exit(0)
    from typer.exceptions import TyperException

    from ..failures import clean
    try:
        code = app(standalone_mode=False)
    except TyperException as exc:
        if not hasattr(exc, "format_message"):      # Abort: Ctrl-C at a prompt
            typer.echo("irw: interrupted; nothing was written", err=True)
            sys.exit(130)
        message = clean(_option_hint(exc) or exc.format_message())
        if not message.strip():                     # `irw` alone: the help is printed
            sys.exit(getattr(exc, "exit_code", 2))
        ctx = getattr(exc, "ctx", None)
        where = f" (see `{ctx.command_path} --help`)" if ctx is not None else ""
        typer.echo(f"irw: error: {message}{where}", err=True)
        sys.exit(getattr(exc, "exit_code", 2))
    sys.exit(code if isinstance(code, int) else 0)


def _option_hint(exc) -> str | None:
    """An unknown option's message with the closest options only ('did you mean --qrels?'),
    rather than typer's list of every option that shares a letter or two; None to keep
    typer's message."""
    import difflib
    name, options = getattr(exc, "option_name", None), getattr(exc, "possibilities", None)
    if not name or not options:
        return None
    close = difflib.get_close_matches(name, sorted(options), n=1, cutoff=0.6)
    if not close:
        return None
    return f"{exc.message}; did you mean {close[0]}?"


if __name__ == "__main__":
    main()
