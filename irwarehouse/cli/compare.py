"""`irw compare`: significance tests between every pair of a campaign's runs."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from .common import (
    TIE_RULE_HELP,
    Correction,
    DigitsOpt,
    Missing,
    PercentOpt,
    Test,
    TieRule,
    WarehouseOpt,
    _guard,
    app,
    choices,
    note,
    open_warehouse,
    paper_style,
    warn,
)
from .options import evaluation_options

# json: one JSON document (an array of rows, as `irw eval --format json`); jsonl: a row a line;
# latex, markdown: a paper's runs x measures table (writers.paper, as `irw eval`'s layouts)
CompareFormat = choices("CompareFormat", "table", "tsv", "csv", "json", "jsonl", "latex",
                        "markdown")


@app.command()
@evaluation_options()
def compare(
    campaign: Annotated[list[str], typer.Option("--campaign", "-C", help="Campaign(s); "
                        "repeat to compare runs across campaigns on shared topics.")],
    measure: Annotated[list[str], typer.Option("--measure", "-m", help="Measure to compare "
                       "on; repeatable (a table per measure and a runs x measures summary).")],
    test: Annotated[Test | None, typer.Option(help="Significance test (default: tukey, "
                    "randomised Tukey HSD, over more than two runs, as Sakai, IPSJ JIP 2013 "
                    "recommends for a set of runs; bootstrap for two runs or with a "
                    "--correction).")] = None,
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
    baseline: Annotated[str | None, typer.Option(
        help="Mark in the runs x measures summary each run significantly better (+) or "
        "worse (-) than this run.")] = None,
    plus_one: Annotated[bool, typer.Option("--plus-one", help="Resampling tests: p = "
                        "(count + 1) / (B + 1), never 0 (Phipson and Smyth, SAGMB 2010), so "
                        "that a correction can act on every pair.")] = False,
    missing: Annotated[Missing, typer.Option(help="Topics missing in a run: error, drop or "
                           "zero.")] = Missing.error,
    fmt: Annotated[CompareFormat, typer.Option("--format", "-f", help="table; tsv or csv (a "
                   "row per pair); json (one document, an array of rows); jsonl (a row a "
                   "line); latex or markdown (a paper's runs x measures table: best in bold, "
                   "superscript letters of the runs each beats, or daggers against "
                   "--baseline).")] = CompareFormat.table,
    digits: DigitsOpt = None,
    percent: PercentOpt = False,
    store: Annotated[bool, typer.Option(help="Store the results in table `significance`, and "
                                       "the scores evaluated for runs that had none.")] = False,
    group: Annotated[str | None, typer.Option(
        "--group", help="Systems with several runs (seeds, folds): compare systems by their "
        "per-topic mean over their runs, and show how many runs each has and their spread. "
        "team (the runs' teams), a run<TAB>system file, or a regular expression whose first "
        "group names the system, e.g. '^(.*)-seed[0-9]+$'.")] = None,
    warehouse: WarehouseOpt = None,
    *, settings,
):
    """Significance tests between every pair of runs: a run x run table of differences per
    measure, and a runs x measures summary.

    Scores are the request's: stored, or evaluated for the runs that have none, under each
    campaign's evaluation profile (`irw campaign set`) unless the evaluation options say
    otherwise; stderr names the qrels and options used."""
    def body():
        from ..request import comparison as cmp
        from ..engine.checks import missing_warnings, resampling_warnings
        from ..errors import IrwError
        from ..store.results import store_significance
        from ..writers.comparison import render_all
        style = paper_style(fmt.value, digits, percent)
        chosen = correction.value if correction and correction.value != "none" else None
        test_name = test.value if test is not None else None
        if test_name == "tukey" and chosen:
            raise IrwError(f"--test tukey already controls the family-wise error over all "
                           f"pairs; drop --correction {chosen} (or give --correction none)")
        measures = list(dict.fromkeys(measure))
        with open_warehouse(warehouse, create=False) as wh:
            matrices = cmp.matrices_for(wh, campaign, measures, run, missing.value, settings,
                                        report=note, store=store)
            if group is not None:
                matrices = _grouped(wh, campaign, matrices, group, store, fmt.value)
            if baseline is not None and not any(baseline in m.runs for m in matrices):
                raise IrwError(f"--baseline {baseline!r} is not one of the runs compared")
            results, seed_of_all = [], seed
            for matrix in matrices:
                for line in missing_warnings(matrix):
                    warn(line)
                result = _tests(cmp, matrix, test_name, chosen, alpha, resamples,
                                seed_of_all, tie_rule.value, plus_one)
                seed_of_all = result.seed if seed_of_all is None else seed_of_all
                for line in resampling_warnings(result, plus_one=plus_one):
                    warn(line)
                if store:
                    store_significance(wh.con, result, ",".join(campaign), matrix.measure)
                results.append((result, matrix))
        sys.stdout.write(render_all(results, fmt.value, baseline=baseline, style=style,
                                    campaign=", ".join(campaign)))
    _guard(body)


def _tests(cmp, matrix, test, correction, alpha, resamples, seed, tie_rule, plus_one):
    """The pairwise tests of one matrix, with a progress bar on a terminal."""
    with typer.progressbar(length=100, label=f"{test or 'test'} {matrix.measure}",
                           file=sys.stderr, hidden=not sys.stderr.isatty()) as bar:
        state = {"shown": 0}

        def progress(done, total):
            now = int(100 * done / max(total, 1))
            bar.update(now - state["shown"])
            state["shown"] = now
        return cmp.run_tests(matrix, test=test, correction=correction, alpha=alpha,
                             B=resamples, seed=seed, progress=progress, tie_rule=tie_rule,
                             plus_one=plus_one)


def _grouped(wh, campaigns, matrices, spec, store, fmt):
    """--group: the systems' matrices; their replicates' spread printed first (on stderr for
    the machine-read formats, whose stdout stays one document)."""
    from ..analyst.replicates import grouped_matrices
    from ..errors import IrwError
    from ..meta.render import table_text
    if store:
        raise IrwError("--store keeps run pairs; it cannot be combined with --group")
    systems, spreads, how = grouped_matrices(wh.con, campaigns, matrices, spec, warn=warn)
    text = "".join(
        f"{m.measure}: systems by {how}, each the per-topic mean over its runs; value over "
        f"{len(m.topics)} topics, sd/min/max of its runs' values\n"
        + table_text([s.record() for s in spread]) + "\n"
        for m, spread in zip(systems, spreads))
    (sys.stdout if fmt == "table" else sys.stderr).write(text)
    return systems
