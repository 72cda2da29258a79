"""The warehouse's upkeep: `irw check` (verify a warehouse: schema, every block read, row counts
and digests of runs and qrels, derived rows), `irw compact` (rewrite it to its live size) and
`irw rm` (remove a run, a qrels or a campaign with everything that hangs on it)."""

from __future__ import annotations

from typing import Annotated

import typer

from .common import WarehouseOpt, _guard, _warehouse_path, app, choices

RmKind = choices("RmKind", "run", "qrels", "campaign")


@app.command("check")
def check_cmd(warehouse: WarehouseOpt = None):
    """Verify a warehouse: row counts, digests, schema, every block.

    Checks the schema version, reads every table in full, compares each run's and qrels' row
    count and digest with those recorded at ingestion, and rebuilds run_list, judged_row and
    relevant_row. Exit code 0 when all is well, 3 when something is damaged."""
    def body():
        from pathlib import Path

        from ..errors import StorageError, WarehouseError
        from ..store.connection import opened, recorded_digest
        from ..store.integrity import check_warehouse
        path = _warehouse_path(warehouse)
        if not Path(path).exists():
            raise WarehouseError(f"no warehouse at {path}")
        with opened(path, read_only=True, create=False) as con:
            report = check_warehouse(con, path, recorded_digest(con))
        typer.echo(f"irw check {path}")
        typer.echo(report.text(), nl=False)
        if report.problems:
            raise StorageError(f"{path}: {len(report.problems)} problem"
                               f"{'s' if len(report.problems) > 1 else ''} found (see above)")
    _guard(body)


@app.command("compact")
def compact_cmd(
    warehouse: WarehouseOpt = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print nothing on success.")]
    = False,
):
    """Rewrite the warehouse file to its live size.

    Space left by replaced runs or a failed write is given back. Needs free space for one
    copy; the old file stays until the new one is complete and verified."""
    def body():
        from ..store.connection import opened
        from ..store.integrity import compact
        path = _warehouse_path(warehouse)
        with opened(path, create=False) as con:
            before, after = compact(con, path)
        if not quiet:
            typer.echo(f"compacted {path}: {_size(before)} -> {_size(after)}")
    _guard(body)


@app.command("rm")
def rm_cmd(
    kind: Annotated[RmKind, typer.Argument(help="What to remove.")],
    name: Annotated[str, typer.Argument(help="Its name (in the campaign, for a run or "
                    "qrels).")],
    campaign: Annotated[str | None, typer.Option("--campaign", "-C", help="Campaign of the "
                        "run or qrels.")] = None,
    warehouse: WarehouseOpt = None,
):
    """Remove a run, a qrels or a whole campaign, with everything that hangs on it.

    `irw rm run NAME -C C`, `irw rm qrels NAME -C C`, `irw rm campaign C`. One transaction:
    all of it or nothing. `irw compact` then gives the space back."""
    def body():
        from ..errors import IrwError
        from ..store.connection import opened
        from ..store.remove import remove, remove_campaign
        if kind.value == "campaign":
            if campaign is not None and campaign != name:
                raise IrwError(f"irw rm campaign {name} removes campaign {name}; drop "
                               f"-C {campaign}")
            with opened(_warehouse_path(warehouse), create=False) as con:
                rows = remove_campaign(con, name)
            typer.echo(f"removed campaign {name} ({rows:,} rows)")
            return
        if campaign is None:
            raise IrwError(f"irw rm {kind.value} {name} needs the campaign: -C NAME")
        with opened(_warehouse_path(warehouse), create=False) as con:
            rows = remove(con, kind.value, campaign, name)
        typer.echo(f"removed {kind.value} {name} from campaign {campaign} ({rows:,} rows)")
    _guard(body)


def _size(n: int) -> str:
    for unit in ("bytes", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:,} {unit}" if unit == "bytes" else f"{n:.1f} {unit}"
        n /= 1024
    return str(n)
