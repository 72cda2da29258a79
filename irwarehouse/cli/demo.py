"""`irw demo`: the bundled sample campaign (data/) from ingestion to comparison."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

from .common import _guard, app


@app.command()
def demo(
    warehouse: Annotated[Path, typer.Option(help="Where to build the demo warehouse.")]
    = Path("demo.duckdb"),
):
    """Build, evaluate and query a warehouse of the bundled sample campaign.

    The sample is data/ (NIST's trec_eval test files): its two runs are evaluated with
    trec_eval's and NTCIREVAL's measures, the per-topic scores stored, queried and compared."""
    def body():
        from ..api import Warehouse
        from ..request import comparison as cmp
        from ..options import EvalSettings
        from ..writers import render
        from ..writers.comparison import table_text
        data = _data_dir()
        if warehouse.exists():
            warehouse.unlink()
        with Warehouse(warehouse) as wh:
            wh.ingest_qrels(data / "qrels.test", "sample", name="binary")
            wh.ingest_qrels(data / "qrels.rel_level", "sample", name="graded")
            for run in sorted(data.glob("runs/*")):
                # both files carry the tag STANDARD: name them after the file
                wh.ingest_run(run, "sample", name=run.name, team="nist")
            result = wh.evaluate(["runid", "map", "P.10", "ndcg_cut.10", "recip_rank", "bpref",
                                  "Q", "nERR@10"], campaign="sample", qrels="graded",
                                 store=True)
            typer.echo(render(result, "trec_eval", per_topic=False))
            typer.echo("SELECT run, measure, round(mean, 4) FROM run_score "
                       "WHERE measure IN ('map', 'Q'):")
            for row in wh.con.execute("SELECT run, measure, round(mean, 4) FROM run_score "
                                      "WHERE measure IN ('map', 'Q') ORDER BY ALL").fetchall():
                typer.echo("  " + "  ".join(map(str, row)))
            # results.trunc has only some of the topics: the test pairs the runs on the topics
            # both have (its table says how many were left out)
            matrix = cmp.matrix_for(wh, ["sample"], "map", None, "drop",
                                    EvalSettings(qrels="graded"))
            comparison = cmp.run_tests(matrix, test="t", correction=None, alpha=0.05, B=None,
                                       seed=None)
            typer.echo("\n" + table_text(comparison, matrix))
            n = wh.con.execute("SELECT count(*) FROM score").fetchone()[0]
        typer.echo(f"{n} per-topic scores stored in {warehouse}; try:\n"
                   f"  {_irw_as_run()} sql -w {warehouse} \"SELECT * FROM run_score\"")
    _guard(body)


def _irw_as_run() -> str:
    """irw as the user ran it (`.venv/bin/irw` in the README's set-up), so that the suggested
    command works without activating the venv; plain `irw` when it was found on PATH."""
    import sys
    given = sys.argv[0]
    return given if os.sep in given and os.path.basename(given) == "irw" else "irw"


def _data_dir() -> Path:
    from ..errors import IrwError
    for cand in (Path(os.environ.get("IRW_DATA", "data")),
                 Path(__file__).resolve().parents[2] / "data"):
        if (cand / "qrels.test").is_file():
            return cand
    raise IrwError("cannot find the sample data folder (data/)")
