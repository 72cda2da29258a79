"""The `irw` command: one module per command group (irwarehouse/cli/*.py), registered on the
app by commands.py, their shared typer apps and options in common.py, what their bodies share
without typer (the choices, the guard) in plain.py. Heavy imports (duckdb, pyarrow) happen
inside the commands so that `irw --help` stays fast; this package imports nothing itself, so
that `irw eval QRELS RUN` (cli/fast.py) imports only its own body (eval_body.py), not typer."""

from __future__ import annotations


def __getattr__(name: str):
    """`from irwarehouse.cli import app` (tests, embedding): the app with every group."""
    if name in ("app", "PANELS", "main_options"):
        from . import commands
        return getattr(commands, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def main() -> None:
    """The `irw` command. A wrong command line is one line too (exit code 2), naming the
    command whose --help explains it, rather than typer's framed usage panel."""
    import sys

    from .fast import main as fast_main
    if fast_main(sys.argv[1:]):         # `irw eval`/`irw sql` without typer's start-up (fast.py)
        sys.exit(0)
    import typer
    from typer.exceptions import TyperException

    from ..failures import clean
    from .commands import app
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
