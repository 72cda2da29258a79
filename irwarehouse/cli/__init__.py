"""The `irw` command: one module per command group (irwarehouse/cli/*.py), their shared apps,
options and guard in common.py. Heavy imports (duckdb, pyarrow) happen inside the commands so
that `irw --help` stays fast."""

from __future__ import annotations

from typing import Annotated

import typer

# the command groups register their commands, in the order `irw --help` lists them
from . import analyst, compare, demo, eval, ingest, meta, online, texts  # noqa: F401
from .common import DEBUG, app

# `irw --help` lists the commands in these groups
PANELS = {
    "Evaluate": ("eval", "compare", "measures", "rouge", "nuggets", "interleave"),
    "Warehouse": ("init", "demo", "ingest", "export", "sql", "schema", "report"),
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


@app.callback()
def main_options(debug: Annotated[bool, typer.Option(help="Show tracebacks.")] = False):
    DEBUG["on"] = debug


def main() -> None:
    app()


if __name__ == "__main__":
    main()
