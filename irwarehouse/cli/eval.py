"""`irw eval` (trec_eval, ndeval and NTCIREVAL on files or a stored campaign) and
`irw measures`."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from .common import (
    DiversityKind,
    Engine,
    EngineOpt,
    Format,
    Order,
    QrelsFormat,
    SparkDataOpt,
    SparkMasterOpt,
    WarehouseOpt,
    _guard,
    _progress_bar,
    app,
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
    complete: Annotated[bool, typer.Option("-c", help="Average over every judged topic "
                                           "(absent topics score 0).")] = False,
    level: Annotated[int, typer.Option("-l", help="Relevance threshold: level >= l is "
                                       "relevant.")] = 1,
    judged_only: Annotated[bool, typer.Option("-J", help="Judged documents only "
                                              "(condensed lists).")] = False,
    depth: Annotated[int | None, typer.Option("-M", help="Evaluate the top M documents "
                                                 "only.")] = None,
    fmt: Annotated[Format, typer.Option("--format", "-f", help="Output format.")]
    = Format.trec_eval,
    order: Annotated[Order, typer.Option(help="Ranking: score (trec_eval: score desc, docno "
                     "desc), rank (the rank column), file (file order, NTCIREVAL).")]
    = Order.score,
    trec_eval_version: Annotated[int, typer.Option(
        "--trec-eval-version", help="9 (9.0.8, as pytrec_eval) or 10 semantics.")] = 9,
    qrels_format: Annotated[QrelsFormat, typer.Option(help="Format of a QRELS file.")]
    = QrelsFormat.qrels,
    keep_first: Annotated[bool, typer.Option(help="Keep the first of duplicate documents.")]
    = False,
    campaign: Annotated[str | None, typer.Option("--campaign", "-C", help="Evaluate the "
                        "stored runs of this campaign.")] = None,
    run: Annotated[list[str] | None, typer.Option("--run", help="Only these stored runs.")]
    = None,
    qrels: Annotated[str | None, typer.Option("--qrels", help="Which stored qrels.")] = None,
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
    cutoffs: Annotated[str | None, typer.Option(
        help="NTCIREVAL cutoffs for the @k measures, e.g. 1,10 (default 10 for --diversity).")]
    = None,
    gains: Annotated[str | None, typer.Option(
        "--gains", "-g", help="NTCIREVAL gain per level: 1:2 (L1=1, L2=2, as ntcir_eval -g) "
        "or pairs 1:1,2:3,3:7 / S:3,A:2,B:1, or exp:3 (2^level-1). Default: gain = level.")]
    = None,
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
        from ..engine.evaluate import EvalOptions
        from ..errors import IrwError
        from ..writers import render
        from .measure_names import cli_measures
        measure_names = cli_measures(measure or [], fmt.value, alpha=alpha, beta=beta,
                                     gamma=gamma, kind=diversity.value if diversity else None,
                                     cutoffs=cutoffs)
        if intents is not None and campaign:
            raise IrwError("--intents is for QRELS RUN files; store a campaign's intents with "
                           "`irw ingest intents`")
        if (doclengths or doclengths_chars) and campaign:
            raise IrwError("--doclengths is for QRELS RUN files; store a campaign's document "
                           "lengths with `irw ingest doclengths`")
        # ntcir_eval's .nev: its full ad hoc set, the first 1000 documents (-M 1000) of every
        # judged topic (-c). The diversity layouts (--diversity) have their own defaults.
        nev = fmt == Format.ntcireval and diversity is None
        ntcir = _ntcir_settings(gains, None if diversity else cutoffs, nev,
                                monotone=diversity is None)
        opts = EvalOptions(threshold=level, judged_only=judged_only,
                           depth=1000 if nev and depth is None else depth,
                           complete=complete or nev, order=order.value, version=trec_eval_version,
                           gains=_diversity_gains(gains))
        # the whole .Dnev / .DINnev / .nevIA files need NTCIREVAL's gcompute blocks
        blocks = fmt == Format.ntcireval
        if engine == Engine.spark:
            result = _eval_spark(files, blocks, campaign, measure_names, opts, run, qrels,
                                 store, warehouse, data, spark_master, ntcir)
        elif spark_master or data:
            raise IrwError("--spark-master and --data are for --engine spark")
        elif campaign:
            if files:
                raise IrwError("give either files or --campaign, not both")
            with open_warehouse(warehouse, create=False, macros=False) as wh:
                result = wh.evaluate(measure_names, campaign=campaign, runs=run, qrels=qrels,
                                     store=store, options=opts, ntcir=ntcir,
                                     progress=_progress_bar("evaluating"), gcompute=blocks,
                                     arrow=False)
        else:
            if not files or len(files) < 2:
                raise IrwError("usage: irw eval QRELS RUN [RUN ...] (or --campaign NAME)")
            if store:
                raise IrwError("--store needs --campaign (files are evaluated without a "
                               "warehouse)")
            from ..api import evaluate_files
            result = evaluate_files(files[0], files[1:], measure_names, options=opts,
                                    qrels_format=qrels_format.value, keep_first=keep_first,
                                    intents=intents, ntcir=ntcir,
                                    doclengths=doclengths, doclengths_chars=doclengths_chars,
                                    progress=_progress_bar("evaluating"), gcompute=blocks,
                                    arrow=False)
        sys.stdout.write(render(result, fmt.value, per_topic=query))
    _guard(body)


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
        if not name:
            for mdef in registry().values():
                params = ", ".join(f"{p.name} {p.type} = {p.default}" for p in mdef.params)
                typer.echo(f"{mdef.name:<24} {mdef.family + '.sql':<24} {params}")
            return
        for text in name:
            typer.echo(_explain(text))
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
