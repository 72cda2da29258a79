"""The analyst's housekeeping: `irw runs` (what a campaign holds) and `irw rename` (a new name
for a run, a qrels or a campaign). `irw rm` is in check.py with the warehouse's upkeep."""

from __future__ import annotations

from typing import Annotated

import typer

from .common import WarehouseOpt, _guard, _warehouse_path, app, choices

RenameKind = choices("RenameKind", "run", "qrels", "campaign")
RunsFormat = choices("RunsFormat", "table", "csv", "json")

# One row per stored run: its rows and topics counted from run_row (a session-log system has
# none: its rows are in session_row, counted there).
RUNS_SQL = """
SELECT c.name AS campaign, r.name AS run, r.team,
       coalesce(rr.num_rows, sr.num_rows, 0) AS rows,
       coalesce(rr.topics, sr.topics, 0) AS topics,
       r.source_path AS source, r.ingested_at::TIMESTAMP(0)::VARCHAR AS ingested
FROM run r JOIN campaign c USING (campaign_id)
LEFT JOIN (SELECT run_id, count(*) AS num_rows, count(DISTINCT topic) AS topics
           FROM run_row GROUP BY run_id) rr USING (run_id)
LEFT JOIN (SELECT run_id, count(*) AS num_rows, count(DISTINCT topic) AS topics
           FROM session_row GROUP BY run_id) sr USING (run_id)
WHERE $campaign IS NULL OR c.name = $campaign
ORDER BY c.name, r.name
"""


@app.command("runs")
def runs_cmd(
    campaign: Annotated[str | None, typer.Option("--campaign", "-C", help="Only this "
                        "campaign's runs (default: every campaign's).")] = None,
    fmt: Annotated[RunsFormat, typer.Option("--format", "-f", help="Output format.")]
    = RunsFormat.table,
    metadata: Annotated[bool, typer.Option(help="Show each run's whole ir_metadata YAML (the "
                        "table: after it, one block per run; csv and json: an ir_metadata "
                        "column).")] = False,
    warehouse: WarehouseOpt = None,
):
    """List stored runs: campaign, run, team, rows, topics, source file, and a summary of its
    ir_metadata (ir-metadata.org): the tag and the PRIMAD components it describes."""
    def body():
        from ..analyst.query import write_result
        from ..errors import WarehouseError
        from ..store.connection import opened
        from ..store.run_metadata import campaign_metadata
        with opened(_warehouse_path(warehouse), read_only=True, create=False) as con:
            if campaign is not None and not con.execute(
                    "SELECT 1 FROM campaign WHERE name = ?", [campaign]).fetchall():
                raise WarehouseError(f"no campaign {campaign!r} in the warehouse")
            table = con.sql(RUNS_SQL, params={"campaign": campaign}).to_arrow_table()
            described = campaign_metadata(con, campaign)
        if table.num_rows == 0:
            where = f"campaign {campaign}" if campaign else "the warehouse"
            typer.echo(f"irw: warning: no runs in {where}", err=True)
            if fmt.value == "table":
                return
        table = _with_metadata(table, described, full=metadata and fmt.value != "table")
        write_result(table, fmt.value, max_rows=max(table.num_rows, 1))
        if metadata and fmt.value == "table":
            for (c, r), text in described.items():
                typer.echo(f"\n# ir_metadata of run {r} of campaign {c}\n{text}", nl=False)
    _guard(body)


def _with_metadata(table, described: dict, *, full: bool):
    """The runs table with its `metadata` summary column (formats.ir_metadata.summary), and
    with `full` the `ir_metadata` YAML too."""
    import pyarrow as pa

    from ..formats.ir_metadata import summary
    keys = list(zip(table.column("campaign").to_pylist(), table.column("run").to_pylist()))
    table = table.append_column("metadata", pa.array(
        [summary(described.get(k)) for k in keys], pa.string()))
    if full:
        table = table.append_column("ir_metadata", pa.array(
            [described.get(k) for k in keys], pa.string()))
    return table


@app.command("rename")
def rename_cmd(
    kind: Annotated[RenameKind, typer.Argument(help="What to rename.")],
    old: Annotated[str, typer.Argument(help="Its name now.")],
    new: Annotated[str, typer.Argument(help="Its new name.")],
    campaign: Annotated[str | None, typer.Option("--campaign", "-C", help="Campaign of the "
                        "run or qrels.")] = None,
    warehouse: WarehouseOpt = None,
):
    """Rename a run, a qrels or a campaign.

    `irw rename run OLD NEW -C C`, `irw rename qrels OLD NEW -C C`, `irw rename campaign OLD
    NEW`. One transaction; scores, pools and stored comparisons follow the new name."""
    def body():
        from ..store.connection import opened
        from ..store.rename import rename
        with opened(_warehouse_path(warehouse), create=False) as con:
            rename(con, kind.value, old, new, campaign)
        where = f" in campaign {campaign}" if kind.value != "campaign" else ""
        typer.echo(f"renamed {kind.value} {old} to {new}{where}")
    _guard(body)
