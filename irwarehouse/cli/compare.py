"""`irw compare`: significance tests between every pair of a campaign's runs."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from .common import (
    TIE_RULE_HELP,
    Correction,
    Missing,
    TableFormat,
    Test,
    TieRule,
    WarehouseOpt,
    _guard,
    app,
    open_warehouse,
)


@app.command()
def compare(
    campaign: Annotated[list[str], typer.Option("--campaign", "-C", help="Campaign(s); "
                        "repeat to compare runs across campaigns on shared topics.")],
    measure: Annotated[str, typer.Option("--measure", "-m", help="Measure to compare on.")],
    test: Annotated[Test, typer.Option(help="Significance test.")] = Test.bootstrap,
    correction: Annotated[Correction | None, typer.Option(
        help="Multiple-comparison correction of the pairwise p-values (default none; "
        "--test tukey controls the family-wise error itself).")] = None,
    resamples: Annotated[int | None, typer.Option("-B", help="Resamples (default: 1000 "
                         "bootstrap, 5000 Tukey, 10000 randomisation).")] = None,
    tie_rule: Annotated[TieRule, typer.Option("--tie-rule", help=TIE_RULE_HELP)] = TieRule.ge,
    seed: Annotated[int | None, typer.Option(help="Random seed (recorded; a fresh one "
                    "is drawn and printed when not given).")] = None,
    alpha: Annotated[float, typer.Option(help="Significance level.")] = 0.05,
    run: Annotated[list[str] | None, typer.Option("--run", help="Only these runs.")] = None,
    qrels: Annotated[str | None, typer.Option("--qrels", help="Which stored qrels, when a "
                     "campaign has several.")] = None,
    missing: Annotated[Missing, typer.Option(help="Topics missing in a run: error, drop or "
                           "zero.")] = Missing.error,
    fmt: Annotated[TableFormat, typer.Option("--format", "-f")] = TableFormat.table,
    store: Annotated[bool, typer.Option(help="Store the results in table `significance`.")]
    = False,
    warehouse: WarehouseOpt = None,
):
    """Significance tests between every pair of runs: a run x run table of differences."""
    def body():
        from ..engine import comparison as cmp
        from ..errors import IrwError
        from ..store.results import store_significance
        from ..writers.comparison import render
        chosen = correction.value if correction and correction.value != "none" else None
        if test.value == "tukey" and chosen:
            raise IrwError(f"--test tukey already controls the family-wise error over all "
                           f"pairs; drop --correction {chosen} (or give --correction none)")
        with open_warehouse(warehouse, create=False) as wh:
            matrix = cmp.matrix_for(wh, campaign, measure, run, missing.value, qrels)
            with typer.progressbar(length=100, label=f"{test.value}", file=sys.stderr,
                                   hidden=not sys.stderr.isatty()) as bar:
                state = {"shown": 0}

                def progress(done, total):
                    now = int(100 * done / max(total, 1))
                    bar.update(now - state["shown"])
                    state["shown"] = now
                result = cmp.run_tests(matrix, test=test.value,
                                       correction=chosen,
                                       alpha=alpha, B=resamples, seed=seed, progress=progress,
                                       tie_rule=tie_rule.value)
            if store:
                store_significance(wh.con, result, ",".join(campaign), measure)
        sys.stdout.write(render(result, matrix, fmt.value))
    _guard(body)
