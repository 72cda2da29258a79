"""`irw eval` (trec_eval, ndeval and NTCIREVAL on files or a stored campaign) and
`irw measures`."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from .common import (
    CompleteOpt,
    CutoffsOpt,
    DepthOpt,
    DiversityKind,
    Engine,
    EngineOpt,
    Format,
    GainsOpt,
    JudgedOnlyOpt,
    LevelOpt,
    OrderOpt,
    QrelsFormat,
    QrelsOpt,
    SparkDataOpt,
    SparkMasterOpt,
    VersionOpt,
    WarehouseOpt,
    _guard,
    _progress_bar,
    app,
    eval_settings,
    note,
    open_warehouse,
)


@app.command("eval")
def eval_cmd(
    files: Annotated[list[Path] | None, typer.Argument(
        help="QRELS RUN [RUN ...] to evaluate files directly (no warehouse).")] = None,
    measure: Annotated[list[str] | None, typer.Option(
        "--measure", "-m", help="Measure (trec_eval or ir_measures name); repeatable. "
        "Default: trec_eval's official set; all_trec for everything.")] = None,
    query: Annotated[bool, typer.Option("-q", help="Per-topic values too.")] = False,
    complete: CompleteOpt = None,
    level: LevelOpt = None,
    judged_only: JudgedOnlyOpt = None,
    depth: DepthOpt = None,
    fmt: Annotated[Format, typer.Option("--format", "-f", help="Output format.")]
    = Format.trec_eval,
    order: OrderOpt = None,
    trec_eval_version: VersionOpt = None,
    qrels_format: Annotated[QrelsFormat | None, typer.Option(
        help="Format of a QRELS file (default: read from its first lines; a 4-field file is "
        "diversity qrels when --format ndeval, --diversity or a diversity measure asks for "
        "diversity, trec_eval qrels otherwise).")] = None,
    keep_first: Annotated[bool, typer.Option(help="Keep the first of duplicate documents.")]
    = False,
    campaign: Annotated[str | None, typer.Option("--campaign", "-C", help="Evaluate the "
                        "stored runs of this campaign.")] = None,
    run: Annotated[list[str] | None, typer.Option("--run", help="Only these stored runs.")]
    = None,
    qrels: QrelsOpt = None,
    store: Annotated[bool, typer.Option(help="Materialise per-topic scores into the score "
                                        "table.")] = False,
    warehouse: WarehouseOpt = None,
    # -- diversity (ndeval / NTCIREVAL): irwarehouse.engine.diversity -----------------------------
    alpha: Annotated[float | None, typer.Option(help="Diversity: ndeval's alpha (novelty "
                     "discount; default 0.5).")] = None,
    beta: Annotated[float | None, typer.Option(help="Diversity: ndeval's beta (NRBP "
                    "persistence; default 0.5).")] = None,
    diversity: Annotated[DiversityKind | None, typer.Option(
        help="NTCIREVAL diversity measures (default set when no -m): D (.Dnev), DIN (.DINnev) "
        "or IA (.nevIA).")] = None,
    intents: Annotated[Path | None, typer.Option(help="Intent probabilities/types "
                       "(NTCIREVAL Iprob or DINprob) for QRELS RUN files.")] = None,
    gamma: Annotated[float | None, typer.Option(help="Diversity: weight of I-rec in the "
                     "# measures (default 0.5).")] = None,
    cutoffs: CutoffsOpt = None,
    gains: GainsOpt = None,
    doclengths: Annotated[Path | None, typer.Option(
        help="Document lengths in words (docno<TAB>words, or docno<TAB>words<TAB>chars) for "
        "TBG and U with QRELS RUN files.")] = None,
    doclengths_chars: Annotated[Path | None, typer.Option(
        help="Document lengths in characters (docno<TAB>chars) for the U-measure with QRELS "
        "RUN files.")] = None,
    # -- the engine (irwarehouse.spark) ---------------------------------------------------------
    engine: EngineOpt = Engine.duckdb,
    spark_master: SparkMasterOpt = None,
    data: SparkDataOpt = None,
):
    """Evaluate runs, like trec_eval: `irw eval QRELS RUN -m map -m P.10` or `--campaign C`.

    `--format ntcireval` prints ntcir_eval's .nev (its full set when no -m is given), over the
    first 1000 documents (-M 1000) of every judged topic (-c), as NTCIREVAL."""
    def body():
        from ..errors import IrwError
        from ..writers import render
        from .measure_names import cli_measures
        if intents is not None and campaign:
            raise IrwError("--intents is for QRELS RUN files; store a campaign's intents with "
                           "`irw ingest intents`")
        if (doclengths or doclengths_chars) and campaign:
            raise IrwError("--doclengths is for QRELS RUN files; store a campaign's document "
                           "lengths with `irw ingest doclengths`")
        given = eval_settings(qrels=qrels, gains=gains, order=order, complete=complete,
                              depth=depth, judged_only=judged_only, level=level,
                              version=trec_eval_version, cutoffs=cutoffs)
        # ntcir_eval's .nev: its full ad hoc set, the first 1000 documents (-M 1000) of every
        # judged topic (-c). The diversity layouts (--diversity) have their own defaults.
        nev = fmt == Format.ntcireval and diversity is None
        # the whole .Dnev / .DINnev / .nevIA files need NTCIREVAL's gcompute blocks
        blocks = fmt == Format.ntcireval

        def prepared(settings):
            names = cli_measures(measure or [], fmt.value, alpha=alpha, beta=beta,
                                 gamma=gamma, kind=diversity.value if diversity else None,
                                 cutoffs=settings.cutoffs)
            ntcir = _ntcir_settings(settings.gains, None if diversity else settings.cutoffs,
                                    nev, monotone=diversity is None)
            opts = settings.eval_options(**({"depth": 1000, "complete": True} if nev else {}))
            return names, ntcir, opts

        if engine == Engine.spark:
            settings = _spark_settings(campaign, given, data, warehouse)
            measure_names, ntcir, opts = prepared(settings)
            result = _eval_spark(files, blocks, campaign, measure_names, opts, run,
                                 settings.qrels, store, warehouse, data, spark_master, ntcir)
        elif spark_master or data:
            raise IrwError("--spark-master and --data are for --engine spark")
        elif campaign:
            if files:
                raise IrwError("give either files or --campaign, not both")
            from ..engine.checks import check_evaluation
            from ..engine.settings import effective
            with open_warehouse(warehouse, create=False, macros=False) as wh:
                settings, from_profile = effective(wh.con, campaign, given)
                if from_profile:
                    note(f"{campaign}: evaluated with the campaign's profile "
                         f"({settings.flags()}; see `irw campaign show {campaign}`)")
                measure_names, ntcir, opts = prepared(settings)
                result = wh.evaluate(measure_names, campaign=campaign, runs=run,
                                     qrels=settings.qrels, store=store, options=opts,
                                     ntcir=ntcir, progress=_progress_bar("evaluating"),
                                     gcompute=blocks, arrow=False)
                check_evaluation(wh.con, result, empty_is_error=fmt != Format.ndeval)
        else:
            if not files or len(files) < 2:
                raise IrwError("usage: irw eval QRELS RUN [RUN ...] (or --campaign NAME)")
            if store:
                raise IrwError("--store needs --campaign (files are evaluated without a "
                               "warehouse)")
            if qrels is not None:
                raise IrwError("--qrels names a stored qrels of --campaign; with files, the "
                               "first file is the qrels")
            from contextlib import nullcontext

            from ..api import evaluate_files
            from ..engine.checks import check_evaluation
            from ..formats.sniff import format_named, sniff_qrels_format
            measure_names, ntcir, opts = prepared(given)
            qformat = qrels_format.value if qrels_format else sniff_qrels_format(
                files[0], diversity=_wants_diversity(measure_names, fmt.value, diversity))
            named = nullcontext() if qrels_format else format_named(files[0], qformat)
            with named:
                result = evaluate_files(files[0], files[1:], measure_names, options=opts,
                                        qrels_format=qformat, keep_first=keep_first,
                                        intents=intents, ntcir=ntcir,
                                        doclengths=doclengths, doclengths_chars=doclengths_chars,
                                        progress=_progress_bar("evaluating"), gcompute=blocks,
                                        arrow=False)
            check_evaluation(None, result, empty_is_error=fmt != Format.ndeval)
        sys.stdout.write(render(result, fmt.value, per_topic=query))
    _guard(body)


def _wants_diversity(measure_names: list[str], fmt: str, kind) -> bool:
    """Whether the evaluation asks for diversity qrels: ndeval's layout, --diversity, or a
    diversity measure among the names (a name that does not parse is left for the evaluation
    to report)."""
    if fmt == "ndeval" or kind is not None:
        return True
    from ..errors import IrwError
    from ..measures import parse_measures
    try:
        return any(req.mdef.is_diversity for req in parse_measures(measure_names))
    except IrwError:
        return False


def _spark_settings(campaign, given, data, warehouse):
    """The evaluation settings of `irw eval --engine spark`: the command line over the
    campaign's profile when the campaign is read from the warehouse (an export given with
    --data carries no profile: the command line and trec_eval's defaults)."""
    if not campaign or data is not None:
        return given
    from ..engine.settings import effective
    with open_warehouse(warehouse, create=False, macros=False) as wh:
        settings, from_profile = effective(wh.con, campaign, given)
    if from_profile:
        note(f"{campaign}: evaluated with the campaign's profile ({settings.flags()}; see "
             f"`irw campaign show {campaign}`)")
    return settings
def _eval_spark(files, blocks, campaign, measure_names, opts, run, qrels, store, warehouse,
                data, spark_master, ntcir):
    """`irw eval --engine spark`: a stored campaign (or an export of one) evaluated on Spark."""
    from ..errors import IrwError
    from ..spark.commands import eval_spark
    from .common import _warehouse_path
    if files or blocks:
        raise IrwError("--engine spark evaluates a stored campaign (--campaign C, --data DIR), "
                       "in any layout but --format ntcireval")
    return eval_spark(campaign=campaign, measure_names=measure_names, opts=opts, runs=run,
                      qrels=qrels, store=store, warehouse=_warehouse_path(warehouse),
                      data=data, master=spark_master, ntcir=ntcir,
                      progress=_progress_bar("evaluating on Spark"))


def _diversity_gains(gains: str | None) -> tuple:
    """`-g` for the NTCIREVAL diversity measures: the gain of L1, L2, ... as DIN-splitqrels'
    L1G..L9G table (`1:2:3`, or pairs `1:1,2:3`, `exp:3`); levels not listed keep gain =
    level, the script's default. The table need not increase with the level."""
    from ..measures import parse_gains
    return tuple(sorted(parse_gains(gains, monotone=False).items())) if gains else ()


def _ntcir_settings(gains: str | None, cutoffs: str | None, prefer: bool,
                    monotone: bool = True):
    from ..measures import NtcirSettings, parse_cutoffs, parse_gains
    return NtcirSettings(gains=parse_gains(gains, monotone=monotone) if gains else {},
                         cutoffs=parse_cutoffs(cutoffs) if cutoffs else (1000,), prefer=prefer)


@app.command()
def measures(
    name: Annotated[list[str] | None, typer.Argument(
        help="Measure names to explain (any tool's spelling); none: list every measure.")]
    = None,
):
    """List the measures the SQL files define, or say what a name means.

    `irw measures ERR@20` prints the measure the name resolves to (canonical name, the tool
    whose name it is, its parameters as bound), its definition and its source."""
    def body():
        from ..measures import registry
        from ..errors import MeasureError
        from .domain_measures import domain_listing, explain_domain
        if not name:
            for mdef in registry().values():
                params = ", ".join(f"{p.name} {p.type} = {p.default}" for p in mdef.params)
                typer.echo(f"{mdef.name:<24} {mdef.family + '.sql':<24} {params}")
            for line in domain_listing():       # online and text measures (sql/online, texts)
                typer.echo(line)
            return
        for text in name:
            try:
                typer.echo(_explain(text))
            except MeasureError:
                domain = explain_domain(text)
                if domain is None:
                    raise
                typer.echo(domain)
    _guard(body)


def _explain(text: str) -> str:
    """What `text` means: every request it stands for, with definition and source."""
    from ..measures import parse_measures
    lines = []
    for req in parse_measures([text]):
        mdef = req.mdef
        bound = ", ".join(f"{p.name}={a}" for p, a in zip(mdef.params, req.args))
        own = ", ".join(f"{k}={v}" for k, v in req.overrides)
        lines += [f"{text} -> {req.name}: measure {mdef.name} ({mdef.dialect}; "
                  f"sql/metrics/{mdef.family}.sql, macro {mdef.macro})",
                  *([f"  parameters: {bound}"] if bound else []),
                  *([f"  evaluated with: {own}"] if own else []),
                  *(["  on the condensed list (unjudged documents dropped first)"]
                    if req.condensed else []),
                  f"  definition: {mdef.doc}",
                  f"  source: {mdef.source}"]
    return "\n".join(lines)
