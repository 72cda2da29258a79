"""`irw compare`: significance tests between every pair of a campaign's runs."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from .common import (
    TIE_RULE_HELP,
    CompleteOpt,
    Correction,
    DepthOpt,
    GainsOpt,
    JudgedOnlyOpt,
    LevelOpt,
    Missing,
    OrderOpt,
    QrelsOpt,
    Test,
    TieRule,
    VersionOpt,
    WarehouseOpt,
    _guard,
    app,
    choices,
    eval_settings,
    note,
    open_warehouse,
    warn,
)

# json: one JSON document (an array of rows, as `irw eval --format json`); jsonl: a row a line
CompareFormat = choices("CompareFormat", "table", "json", "jsonl", "csv")


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
    plus_one: Annotated[bool, typer.Option("--plus-one", help="Resampling tests: p = "
                        "(count + 1) / (B + 1), never 0 (Phipson and Smyth, SAGMB 2010), so "
                        "that a correction can act on every pair.")] = False,
    qrels: QrelsOpt = None,
    gains: GainsOpt = None,
    order: OrderOpt = None,
    complete: CompleteOpt = None,
    depth: DepthOpt = None,
    judged_only: JudgedOnlyOpt = None,
    level: LevelOpt = None,
    trec_eval_version: VersionOpt = None,
    missing: Annotated[Missing, typer.Option(help="Topics missing in a run: error, drop or "
                           "zero.")] = Missing.error,
    fmt: Annotated[CompareFormat, typer.Option("--format", "-f", help="table; json (one "
                   "document, an array of rows); jsonl (a row a line); csv.")]
    = CompareFormat.table,
    store: Annotated[bool, typer.Option(help="Store the results in table `significance`.")]
    = False,
    warehouse: WarehouseOpt = None,
):
    """Significance tests between every pair of runs: a run x run table of differences.

    Scores are read under each campaign's evaluation profile (`irw campaign set`) unless the
    evaluation options say otherwise; stderr names the option set used."""
    def body():
        from ..engine import comparison as cmp
        from ..engine.checks import resampling_warnings
        from ..errors import IrwError
        from ..store.results import store_significance
        from ..writers.comparison import render
        chosen = correction.value if correction and correction.value != "none" else None
        if test.value == "tukey" and chosen:
            raise IrwError(f"--test tukey already controls the family-wise error over all "
                           f"pairs; drop --correction {chosen} (or give --correction none)")
        given = eval_settings(qrels=qrels, gains=gains, order=order, complete=complete,
                              depth=depth, judged_only=judged_only, level=level,
                              version=trec_eval_version)
        with open_warehouse(warehouse, create=False) as wh:
            matrix = cmp.matrix_for(wh, campaign, measure, run, missing.value, given,
                                    report=note)
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
                                       tie_rule=tie_rule.value, plus_one=plus_one)
            for line in resampling_warnings(result, plus_one=plus_one):
                warn(line)
            if store:
                store_significance(wh.con, result, ",".join(campaign), measure)
        sys.stdout.write(render(result, matrix, fmt.value, measure=measure))
    _guard(body)
