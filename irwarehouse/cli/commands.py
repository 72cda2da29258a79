"""Every command group of `irw`, registered on the one typer app (common.app) in the order
`irw --help` lists them. Imported when typer parses a command line (cli.main) or when `app` is
asked for (`from irwarehouse.cli import app`), not by the fast path of `irw eval` and
`irw sql` (cli/fast.py), which needs none of the other groups (0.03-0.05 s of their imports)."""

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
