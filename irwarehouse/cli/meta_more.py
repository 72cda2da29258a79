"""More `irw meta` commands (issue 30): Carterette's d_rank, a generalisability-theory study,
score standardisation, the Friedman test and two-way ANOVA over a campaign's stored scores, and
the informativeness of a measure (the maximum entropy method). They read the score matrix as
every `irw meta` command does (cli/meta.py's _load)."""

from __future__ import annotations

from typing import Annotated

import typer

from .common import TableFormat, TableFormatOpt, WarehouseOpt, _guard, meta_app, note, warn
from .options import evaluation_options
from .meta import (
    Campaign,
    Measures,
    MissingOpt,
    Missing,
    Resamples,
    Runs,
    Seed,
    _emit,
    _load,
    _open,
    _seeded,
)


@meta_app.command()
@evaluation_options()
def drank(campaign: Campaign, measure: Measures, run: Runs = None,
          seed: Seed = None, B: Resamples = None, fmt: TableFormatOpt = TableFormat.table,
          missing: MissingOpt = Missing.error, warehouse: WarehouseOpt = None, *, settings):
    """Carterette's d_rank (SIGIR 2009): how far each metric's per-topic scores are from the
    run ranking of each other metric, with a simulated p-value (-B, default 1000)."""
    def body():
        from ..meta.drank import d_rank
        metrics = _load(warehouse, campaign, measure, run, settings, missing)
        means = metrics.run_means()
        seed_ = _seeded(seed)
        records = []
        for a in metrics.measures:
            for b in metrics.measures:
                if a == b:
                    continue
                result = d_rank(means[a], metrics[b], B=B or 1000, rng=seed_)
                records.append({"ranking_of": a, "scores_of": b, "drank": result.distance,
                                "pvalue": result.pvalue, "B": result.B, "seed": result.seed})
        _emit(records, fmt)
    _guard(body)


@meta_app.command()
@evaluation_options()
def gstudy(campaign: Campaign, measure: Measures, run: Runs = None,
           topics: Annotated[list[int] | None, typer.Option(
               "--topics", help="D-study: coefficients for this many topics too "
               "(repeatable).")] = None,
           target: Annotated[float, typer.Option(
               "--target", help="Dependability to reach: the topics it needs.")] = 0.95,
           fmt: TableFormatOpt = TableFormat.table, missing: MissingOpt = Missing.error,
           warehouse: WarehouseOpt = None, *, settings):
    """Generalisability theory (Bodoff & Li, SIGIR 2007): variance components of systems,
    topics and their interaction, generalisability and dependability coefficients."""
    def body():
        from ..meta.gtheory import g_study
        metrics = _load(warehouse, campaign, measure, run, settings, missing)
        records = []
        for m in metrics.measures:
            study = g_study(metrics[m])
            for row in study.records(topics or ()):
                records.append({"measure": m, **row})
            records.append({"measure": m, "source": f"topics for dependability {target:g}",
                            "topics_needed": study.topics_for_dependability(target)})
        _emit(records, fmt)
    _guard(body)


@meta_app.command()
@evaluation_options()
def standardise(campaign: Campaign, measure: Measures, run: Runs = None,
                reference: Annotated[list[str] | None, typer.Option(
                    "--reference", help="Reference runs (repeatable; default: every run).")]
                = None,
                cdf: Annotated[bool, typer.Option(
                    "--cdf", help="Map z through the normal CDF (a 0-1 score).")] = False,
                per_topic: Annotated[bool, typer.Option("-q", help="Per-topic values too.")]
                = False,
                fmt: TableFormatOpt = TableFormat.table, missing: MissingOpt = Missing.error,
                warehouse: WarehouseOpt = None, *, settings):
    """Score standardisation (Webber, Moffat & Zobel, CIKM 2008): z-scores per topic against
    reference runs, and each run's mean."""
    def body():
        from ..errors import IrwError
        from ..meta.standardise import standardise as standardised
        metrics = _load(warehouse, campaign, measure, run, settings, missing)
        unknown = sorted(set(reference or ()) - set(metrics.runs))
        if unknown:
            raise IrwError(f"no run {', '.join(unknown)} among the scored runs")
        columns = [metrics.runs.index(r) for r in reference] if reference else None
        records = []
        for m in metrics.measures:
            result = standardised(metrics[m], reference_runs=columns, cdf=cdf)
            for j, r in enumerate(metrics.runs):
                if per_topic:
                    records += [{"measure": m, "run": r, "topic": t,
                                 "value": float(result.values[i, j])}
                                for i, t in enumerate(metrics.topics)]
                records.append({"measure": m, "run": r, "topic": "all",
                                "value": float(result.values[:, j].mean())})
            if len(result.degenerate_topics):
                from .common import note
                note(f"{m}: {len(result.degenerate_topics)} topics on which the reference "
                     "runs all score the same are standardised to 0")
        _emit(records, fmt)
    _guard(body)


def _per_measure(warehouse, campaign, measure, run, settings, missing, fmt, rows_of) -> None:
    """Load the score matrix and emit rows_of(measure, topics x runs matrix) for each measure."""
    metrics = _load(warehouse, campaign, measure, run, settings, missing)
    _emit([row for m in metrics.measures for row in rows_of(m, metrics[m])], fmt)


@meta_app.command()
@evaluation_options()
def friedman(campaign: Campaign, measure: Measures, run: Runs = None,
             fmt: TableFormatOpt = TableFormat.table, missing: MissingOpt = Missing.error,
             warehouse: WarehouseOpt = None, *, settings):
    """Friedman test of the runs with topics as blocks (Kendall's W as effect size)."""
    def rows_of(m, matrix):
        from ..stats import friedman as test
        r = test(matrix)
        return [{"measure": m, "chi2": r.statistic, "df": r.df, "pvalue": r.pvalue,
                 "kendall_w": r.effect_size, "topics": matrix.shape[0],
                 "runs": matrix.shape[1]}]
    _guard(lambda: _per_measure(warehouse, campaign, measure, run, settings, missing, fmt,
                                rows_of))


@meta_app.command()
@evaluation_options()
def anova(campaign: Campaign, measure: Measures, run: Runs = None,
          fmt: TableFormatOpt = TableFormat.table, missing: MissingOpt = Missing.error,
          warehouse: WarehouseOpt = None, *, settings):
    """Two-way ANOVA without replication: runs and topics (F, p, partial eta squared)."""
    def rows_of(m, matrix):
        from ..stats import anova_two_way
        result = anova_two_way(matrix)
        return [{"measure": m, "source": row.source, "sum_of_squares": row.sum_of_squares,
                 "df": row.df, "mean_square": row.mean_square, "F": row.statistic,
                 "pvalue": row.pvalue, "partial_eta_squared": row.partial_eta_squared}
                for row in (result.runs, result.topics, result.residual)]
    _guard(lambda: _per_measure(warehouse, campaign, measure, run, settings, missing, fmt,
                                rows_of))


@meta_app.command()
@evaluation_options()
def informativeness(campaign: Campaign, measure: Measures, run: Runs = None,
                    per_run: Annotated[bool, typer.Option(
                        "--per-run", help="One row per measure and run.")] = False,
                    curves: Annotated[bool, typer.Option(
                        "--curves", help="Each run's inferred and actual precision at the 11 "
                        "recall levels (averaged over its topics).")] = False,
                    fmt: TableFormatOpt = TableFormat.table, missing: MissingOpt = Missing.error,
                    warehouse: WarehouseOpt = None, *, settings):
    """Informativeness (Aslam, Yilmaz & Pavlu, SIGIR 2005): the precision-recall curve the
    maximum-entropy distribution given each measure's value implies, against the actual curve
    (RMS error at 11 recall levels; lower: more informative). AP, R-precision and P@k."""
    def body():
        from ..meta.informativeness import informativeness as infer
        with _open(warehouse) as wh:
            result = infer(wh, campaign, measure, runs=run, missing=missing.value,
                           given=settings, report=note)
        for text in result.notes():
            warn(text)
        if curves:
            _emit(result.curve_records(), fmt)
        elif per_run:
            _emit(result.run_records(), fmt)
        else:
            _emit(result.summary_records(), fmt)
    _guard(body)
