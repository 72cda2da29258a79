"""`irw meta ...`: meta-evaluation commands (the sub-app meta_app of irwarehouse/cli/common.py).
Heavy imports happen inside the commands so that `irw --help` stays fast."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import Annotated

import typer

from .common import (
    TIE_RULE_HELP,
    Campaign,
    DigitsOpt,
    Missing,
    PaperFormat,
    TableFormat,
    TableFormatOpt,
    Test,
    TieRule,
    WarehouseOpt,
    _guard,
    choices,
    meta_app,
    note,
    open_warehouse,
    paper_style,
)
from .options import QrelsOpt, evaluation_options

Variant = choices("Variant", "bootstrap", "halves")


Stat = choices("Stat", "kendall", "tau_ap", "spearman", "rbo")


Measures = Annotated[list[str], typer.Option("--measure", "-m", help="Metric (repeatable), e.g. "
                                             "-m AP -m P@10 -m nDCG@10.")]
Runs = Annotated[list[str] | None, typer.Option("--run", help="Only these runs (repeatable).")]
Seed = Annotated[int | None, typer.Option("--seed", help="Random seed (default: fresh, "
                                             "printed so the result can be replayed).")]
Resamples = Annotated[int | None, typer.Option("-B", help="Resamples (default: bootstrap "
                                                  "1000, Tukey 5000, swap 1000).")]
Alpha = Annotated[float, typer.Option("--alpha", help="Significance level.")]
Plot = Annotated[Path | None, typer.Option("--plot", help="Write a plot (.png or .svg).")]
MissingOpt = Annotated[Missing, typer.Option("--missing", help="Topics a run lacks: error, drop "
                                             "them, or score 0.")]
TieRuleOpt = Annotated[TieRule, typer.Option("--tie-rule", help=TIE_RULE_HELP)]
def _open(warehouse: Path | None):
    return open_warehouse(warehouse, create=False)


def _emit(records, fmt: TableFormat, *, columns=None, meta=None) -> None:
    from ..meta.render import render
    sys.stdout.write(render(records, fmt.value, columns=columns, meta=meta))


def _seeded(seed):
    from ..meta._common import resolve_seed
    return resolve_seed(seed)


def _check_plot(plot: Path | None) -> None:
    if plot is not None:
        from ..writers.figures import check_path
        check_path(plot)


def _load(warehouse, campaign, measures, runs, settings, missing):
    """The per-topic score matrices of the measures (the one request's scores: stored, or
    evaluated under the command's evaluation options over the campaign's profile), read from
    the warehouse (opened and closed)."""
    from ..meta.load import load_metrics
    with _open(warehouse) as wh:
        return load_metrics(wh, campaign, measures, runs=runs, missing=missing.value,
                            given=settings, report=note)


def _gold_written_as_g(gold, settings):
    """`-g MEASURE`, the gold standard's earlier short flag: -g is --gains on every command now,
    so a -g value that is a measure name rather than gains is taken as --gold, with a note."""
    from dataclasses import replace

    from ..errors import IrwError
    from ..measures import parse_gains, parse_measures
    if settings.gains is None:
        return list(gold or []), settings
    try:
        parse_gains(settings.gains, monotone=False)
        return list(gold or []), settings
    except IrwError:
        parse_measures([settings.gains])        # neither gains nor a measure: the name's error
    note(f"-g {settings.gains} read as --gold {settings.gains} (the earlier form); -g is "
         "--gains on every command: write --gold MEASURE")
    return [*(gold or []), settings.gains], replace(settings, gains=None)


@meta_app.command()
@evaluation_options()
def discpower(campaign: Campaign, measure: Measures, run: Runs = None,
              test: Annotated[Test, typer.Option("--test", help="Significance test.")]
              = Test.bootstrap,
              seed: Seed = None, B: Resamples = None, alpha: Alpha = 0.05,
              tie_rule: TieRuleOpt = TieRule.ge,
              pairs: Annotated[bool, typer.Option("--pairs", help="One row per run pair (the "
                                                  "ASL curves' data).")] = False,
              fmt: TableFormatOpt = TableFormat.table, plot: Plot = None,
              missing: MissingOpt = Missing.error, warehouse: WarehouseOpt = None, *, settings):
    """Discriminative power: share of run pairs with ASL < alpha, delta for significance."""
    def body():
        from ..meta import discpower as dp
        _check_plot(plot)
        metrics = _load(warehouse, campaign, measure, run, settings, missing)
        rows = dp.discpower_table(metrics, test=test.value, alpha=alpha, B=B, rng=_seeded(seed),
                                  tie_rule=tie_rule.value)
        if plot:
            dp.plot_asl_curves(rows, plot)
        if pairs:
            _emit(dp.pair_records(rows, metrics.runs), fmt)
        else:
            _emit(dp.table_records(rows), fmt)
    _guard(body)


@meta_app.command()
@evaluation_options()
def sensitivity(campaign: Campaign, measure: Measures, run: Runs = None,
                seed: Seed = None, B: Resamples = None, alpha: Alpha = 0.05,
                unpaired: Annotated[bool, typer.Option(
                    "--unpaired", help="The Unpaired-Test version, for summaries that are no "
                    "mean of differences (GMAP; Sakai, SIGIR 2006).")] = False,
                fmt: TableFormatOpt = TableFormat.table, missing: MissingOpt = Missing.error,
                warehouse: WarehouseOpt = None, *, settings):
    """Bootstrap sensitivity (Sakai, IPSJ TOD 2007, Table 4): significant pairs and estimated difference."""
    def body():
        from ..meta.sensitivity import bootstrap_sensitivity, unpaired_sensitivity
        metrics = _load(warehouse, campaign, measure, run, settings, missing)
        method = unpaired_sensitivity if unpaired else bootstrap_sensitivity
        rows = method(metrics, alpha=alpha, B=B or 1000, rng=_seeded(seed))
        records = [{**r.record(), "sensitivity": r.cell()} for r in rows]
        columns = ["measure", "sensitivity", "estimated_difference", "raw_difference", "B",
                   "seed"]
        _emit(records, fmt, columns=columns if fmt == TableFormat.table else None)
    _guard(body)


@meta_app.command()
@evaluation_options()
def swap(campaign: Campaign, measure: Measures, run: Runs = None,
         variant: Annotated[Variant, typer.Option("--variant", help="bootstrap: two topic sets "
                            "drawn with replacement; halves: disjoint halves.")]
         = Variant.bootstrap,
         seed: Seed = None, B: Resamples = None,
         max_swap_rate: Annotated[float, typer.Option("--max-swap-rate")] = 0.05,
         bins: Annotated[bool, typer.Option("--bins", help="Swap rate of every bin.")] = False,
         ttest: Annotated[float | None, typer.Option(
             "--ttest", help="Count only differences a paired t-test finds significant at "
             "this level on the first topic set (Sanderson & Zobel, SIGIR 2005).")] = None,
         fmt: TableFormatOpt = TableFormat.table, plot: Plot = None,
         missing: MissingOpt = Missing.error, warehouse: WarehouseOpt = None, *, settings):
    """Swap method (Sakai, IPSJ TOD 2007, Table 3): delta with swap rate <= 5% and who meets it."""
    def body():
        from ..meta import swap as sw
        _check_plot(plot)
        metrics = _load(warehouse, campaign, measure, run, settings, missing)
        rows = sw.swap_table(metrics, variant=variant.value, B=B or 1000, rng=_seeded(seed),
                             max_swap_rate=max_swap_rate, significance_alpha=ttest)
        if plot:
            sw.plot_swap_rates(rows, plot)
        if bins:
            _emit([b for r in rows for b in r.bin_records()], fmt)
        else:
            _emit([r.record() for r in rows], fmt)
    _guard(body)


@meta_app.command()
@evaluation_options()
def rankcorr(campaign: Campaign, measure: Measures, run: Runs = None,
             stat: Annotated[list[Stat] | None, typer.Option(
                 "--stat", help="kendall, tau_ap (symmetric), spearman, rbo (RBO_ext, p = "
                 "0.9; Webber et al., TOIS 2010) (repeatable; default kendall and tau_ap).")]
             = None,
             agreement: Annotated[bool, typer.Option(
                 "--agreement", help="Instead: significantly different pairs in common "
                 "(Sakai, IPSJ JIP 2013, Table 4), with --test.")] = False,
             test: Annotated[Test, typer.Option("--test")] = Test.tukey,
             seed: Seed = None, B: Resamples = None, alpha: Alpha = 0.05,
             tie_rule: TieRuleOpt = TieRule.ge,
             fmt: TableFormatOpt = TableFormat.table, missing: MissingOpt = Missing.error,
             warehouse: WarehouseOpt = None, *, settings):
    """Correlation of the run rankings of every pair of metrics (Sakai, IPSJ JIP 2013, Table 5)."""
    def body():
        from ..meta import discpower as dp
        from ..meta import rankcorr as rc
        metrics = _load(warehouse, campaign, measure, run, settings, missing)
        if agreement:
            rows = dp.discpower_table(metrics, test=test.value, alpha=alpha, B=B,
                                      rng=_seeded(seed), tie_rule=tie_rule.value)
            sig = {r.measure: r.significant for r in rows}
            rule = {"tie_rule": tie_rule.value} if test == Test.tukey else {}
            records = [{**g.__dict__, "cell": g.cell(), "test": test.value, **rule,
                        "seed": rows[0].seed}
                       for g in rc.significance_agreement({m: sig[m] for m in metrics.measures})]
            _emit(records, fmt)
            return
        stats = [s.value for s in stat] if stat else ["kendall", "tau_ap"]
        cm = rc.correlation_matrix(metrics.run_means(), statistics=stats)
        _emit(cm.records(), fmt, meta={"n_runs": cm.n_systems,
                                       "kendall_critical_0.01": rc.kendall_critical_tau(
                                           max(cm.n_systems, 2), 0.01)})
    _guard(body)


@meta_app.command()
@evaluation_options()
def concordance(campaign: Campaign, measure: Measures,
                gold: Annotated[list[str] | None, typer.Option("--gold", help="Gold-standard "
                                "metric (repeatable: all must agree).")] = None,
                run: Runs = None, fmt: TableFormatOpt = TableFormat.table,
                missing: MissingOpt = Missing.error, warehouse: WarehouseOpt = None, *, settings):
    """Concordance test of every pair of -m metrics against the gold standard(s)
    (Sakai, IPSJ JIP 2013, Table 6): disagreements, concordance rates, two-sided sign test."""
    def body():
        from ..errors import IrwError
        from ..meta.concordance import concordance_table
        gold_, request = _gold_written_as_g(gold, settings)
        if len(measure) < 2:
            raise IrwError("the concordance test needs at least two metrics (-m)")
        if not gold_:
            raise IrwError("give the gold-standard metric with --gold MEASURE")
        metrics = _load(warehouse, campaign, list(dict.fromkeys([*measure, *gold_])), run,
                        request, missing)
        rows = concordance_table(metrics, list(measure), gold_)
        _emit([{**r.record(), "cell": r.cell()} for r in rows], fmt)
    _guard(body)


@meta_app.command()
def pool(campaign: Annotated[str | None, typer.Option(
             "--campaign", "-C", help="Campaign name (with --list: only its pools).")] = None,
         depth: Annotated[int | None, typer.Option("--depth", "-k", help="Pool depth.")]
         = None,
         run: Runs = None,
         name: Annotated[str | None, typer.Option("--name", help="Pool name (default "
                                                     "depth<k>).")] = None,
         team_pattern: Annotated[str | None, typer.Option(
             "--team-pattern", help="Regex on the run name giving its team (group 1 or the "
             "match), e.g. '^[A-Za-z]+'; default: the stored team, else the run name.")] = None,
         qrels: QrelsOpt = None,
         replace: Annotated[bool, typer.Option(help="Replace a pool of the same name.")] = False,
         list_pools: Annotated[bool, typer.Option(
             "--list", help="Instead, list the stored pools and how each was built (depth, "
             "runs, teams, team source and pattern, qrels).")] = False,
         fmt: TableFormatOpt = TableFormat.table, warehouse: WarehouseOpt = None):
    """Build a pool of depth k from the runs into the warehouse and print its statistics
    (or, with --list, list the pools). A failed build leaves nothing behind."""
    def body():
        from ..errors import IrwError
        from ..meta import pools
        if list_pools:
            if depth is not None or run or name or team_pattern or qrels or replace:
                raise IrwError("--list takes only -C, --format and -w")
            with _open(warehouse) as wh:
                infos = pools.list_pools(wh.con, campaign)
            _emit([i.record(created=True) for i in infos], fmt)
            return
        if campaign is None or depth is None:
            raise IrwError("give -C CAMPAIGN and --depth K (or --list)")
        with _open(warehouse) as wh:
            # everything is checked before the pool is written (in one transaction)
            qid = wh.qrels_id(campaign, qrels) if qrels else None
            pid = pools.build_pool(wh.con, campaign, depth=depth, runs=run, name=name,
                                   team_pattern=team_pattern, replace=replace, qrels_id=qid)
            counts_qid = qid if qid is not None else _qrels_or_none(wh, campaign, None)
            stats = pools.pool_stats(wh.con, pid, qrels_id=counts_qid)
            head = {**pools.pool_info(wh.con, pid).record(), **stats.record(),
                    "counted_with_qrels": _qrels_name(wh, counts_qid)}
        if fmt == TableFormat.table:
            _emit([head], fmt)
            _emit(stats.per_team.to_pylist(), fmt)
        else:
            _emit(stats.per_team.to_pylist(), fmt, meta=head)
    _guard(body)


def _qrels_name(wh, qrels_id):
    if qrels_id is None:
        return None
    return wh.con.execute("SELECT name FROM qrels WHERE qrels_id = ?", [qrels_id]).fetchone()[0]


def _qrels_or_none(wh, campaign, qrels):
    from ..errors import WarehouseError
    try:
        return wh.qrels_id(campaign, qrels)
    except WarehouseError:
        if qrels:
            raise
        return None


@meta_app.command()
@evaluation_options()
def loo(campaign: Campaign, measure: Measures,
        pool_name: Annotated[str | None, typer.Option("--pool", help="A stored pool (with "
                             "--depth / --team-pattern: checked against them).")] = None,
        depth: Annotated[int | None, typer.Option("--depth", "-k", help="Or the pool "
                         "depth<k> of all runs: built here, or reused when the stored one was "
                         "built the same way (else an error naming the difference).")] = None,
        team_pattern: Annotated[str | None, typer.Option("--team-pattern", help="Team regex "
                                "of the pool (see irw meta pool).")] = None,
        keep: Annotated[bool, typer.Option(help="Keep the derived LOO qrels in the "
                                           "warehouse.")] = False,
        per_run: Annotated[bool, typer.Option("--per-run", help="One row per run and "
                                              "measure.")] = False,
        fmt: TableFormatOpt = TableFormat.table, warehouse: WarehouseOpt = None, *,
        settings):
    """Leave-one-team-out: each team's runs without its unique pool documents (Sakai, PROMISE 2014,
    section 5.4); score, rank and Kendall tau changes, the largest rank change. Every output
    names the pool's build (depth, runs, teams, team pattern, qrels)."""
    def body():
        from ..request.evaluation import scope
        with _open(warehouse) as wh:
            where = scope(wh.con, campaign, settings)       # checked before any pool
            pid, built = _pool_for(wh, campaign, pool_name, depth, team_pattern, where.qrels_id)
            res = _loo_or_undo(wh, pid, built, where, measure, keep)
        rows = [r.record() for r in res.runs] if per_run else [m.record() for m in res.summary]
        if fmt == TableFormat.table:
            sys.stdout.write(f"# {res.describe()}\n")
            _emit(rows, fmt)
        else:
            _emit([{**row, **res.pool_record()} for row in rows], fmt)
    _guard(body)


def _pool_for(wh, campaign, pool_name, depth, team_pattern, qrels_id) -> tuple[int, bool]:
    """(pool_id, built here): the named pool, checked against what else the command asks
    (--depth, --team-pattern, the qrels); or the pool depth<k>, reused only when the stored one
    is what the request would build."""
    from ..errors import IrwError
    from ..meta import pools
    if pool_name:
        pid = pools.pool_id(wh.con, campaign, pool_name)
        info = pools.pool_info(wh.con, pid)
        request = pools.pool_request(wh.con, campaign,
                                     depth=info.depth if depth is None else depth,
                                     runs=[run for run, _ in info.members],
                                     team_pattern=team_pattern, qrels_id=qrels_id)
        compare = (("depth",) if depth is not None else ()) + \
            (("teams",) if team_pattern else ()) + ("qrels",)
        pools.check_reuse(wh.con, pid, request, compare=compare,
                          hint=f"leave out what differs to use {pool_name} as it is, or build "
                          "the pool you want under another name (irw meta pool --name)")
        return pid, False
    if depth is None:
        raise IrwError("give --pool NAME or --depth K")
    request = pools.pool_request(wh.con, campaign, depth=depth, team_pattern=team_pattern,
                                 qrels_id=qrels_id)
    return pools.reuse_or_build(wh.con, request, f"depth{depth}")


def _loo_or_undo(wh, pool_id, built, where, measures, keep):
    """Leave-one-team-out under the request's qrels and options (`where`, a request scope); a
    pool built for it by this command is dropped again when it fails, so that a failed command
    leaves nothing behind."""
    from ..meta import pools
    from ..meta.loo import leave_one_team_out
    from ..store.ingest import transaction
    try:
        return leave_one_team_out(wh.con, pool_id=pool_id, qrels_id=where.qrels_id,
                                  measures=measures, options=where.options, keep=keep)
    except BaseException:
        if built:
            with transaction(wh.con):
                pools.drop_pool(wh.con, pool_id)
        raise


@meta_app.command()
@evaluation_options()
def report(campaign: Campaign, measure: Measures,
           out: Annotated[Path, typer.Option("--out", help="Folder for report.md, report.json, "
                                             "pairs.csv and the plots.")],
           run: Runs = None,
           seed: Annotated[int, typer.Option("--seed")] = 1,
           B_bootstrap: Annotated[int, typer.Option("--B-bootstrap")] = 1000,
           B_tukey: Annotated[int, typer.Option("--B-tukey")] = 5000,
           B_swap: Annotated[int, typer.Option("--B-swap")] = 1000,
           alpha: Alpha = 0.05, tie_rule: TieRuleOpt = TieRule.ge,
           loo_depth: Annotated[int | None, typer.Option("--loo-depth", help="Also run "
                                "leave-one-team-out on the pool of this depth.")] = None,
           team_pattern: Annotated[str | None, typer.Option("--team-pattern")] = None,
           gold: Annotated[list[str] | None, typer.Option(
               "--gold", help="Add the concordance test of the other metrics against "
               "this gold-standard metric (repeatable: all must agree).")] = None,
           missing: MissingOpt = Missing.error, warehouse: WarehouseOpt = None,
           fmt: Annotated[PaperFormat | None, typer.Option(
               "--format", "-f", help="Also write the paper's table of the measures "
               "(discriminative power under both tests, swap method; best in bold): "
               "table.tex (latex, booktabs) or table.md (markdown).")] = None,
           digits: DigitsOpt = None, *, settings):
    """A reproducible report: discriminative power (both tests), sensitivity, swap rates,
    Kendall tau / tau_ap, significance agreement, optionally LOO; Markdown, JSON, plots."""
    def body():
        from ..errors import IrwError
        from ..report.meta import ReportSettings, meta_report
        gold_, request = _gold_written_as_g(gold, settings)
        if team_pattern and not loo_depth:
            raise IrwError("--team-pattern applies to the LOO pool: give --loo-depth too")
        style = paper_style(fmt.value if fmt else "", digits, False)
        report_settings = ReportSettings(seed=seed, alpha=alpha, B_bootstrap=B_bootstrap,
                                         B_tukey=B_tukey, B_swap=B_swap,
                                         tie_rule=tie_rule.value)
        metrics = _load(warehouse, campaign, list(dict.fromkeys([*measure, *gold_])), run,
                        request, missing)
        loo_part, built_pool = None, None
        if loo_depth:
            from ..request.evaluation import scope
            with _open(warehouse) as wh:
                where = scope(wh.con, campaign, request)
                pid, built = _pool_for(wh, campaign, None, loo_depth, team_pattern,
                                       where.qrels_id)
                result = _loo_or_undo(wh, pid, built, where, measure, False)
            built_pool = pid if built else None
            loo_part = {"pool": result.pool.name, "depth": loo_depth, "result": result}
        command = "irw meta report " + " ".join(shlex.quote(a) for a in sys.argv[3:]) \
            if len(sys.argv) > 3 and sys.argv[1:3] == ["meta", "report"] else None
        try:
            meta_report(metrics, out, campaign=campaign, settings=report_settings,
                        loo=loo_part, gold=gold_ or None, command=command,
                        table_format=fmt.value if fmt else None, style=style)
        except BaseException:
            if built_pool is not None:              # a failed command leaves nothing behind
                _drop_pool(warehouse, built_pool)
            raise
        typer.echo(f"report written to {out / 'report.md'}")
        if fmt:
            name = "table.tex" if fmt.value == "latex" else "table.md"
            typer.echo(f"table written to {out / name}")
    _guard(body)


def _drop_pool(warehouse, pool_id: int) -> None:
    from ..meta import pools
    from ..store.ingest import transaction
    with _open(warehouse) as wh, transaction(wh.con):
        pools.drop_pool(wh.con, pool_id)
