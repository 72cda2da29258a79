"""`irw eval` (trec_eval, ndeval and NTCIREVAL on files or a stored campaign) and
`irw measures`. The evaluation options come from their one declaration (cli/options.py); the
layout from request/layouts.py; the campaign's part of the request from request/evaluation.py."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer
from typer.core import TyperCommand

from .common import (
    DigitsOpt,
    DiversityKind,
    Engine,
    EngineOpt,
    Format,
    PercentOpt,
    QrelsFormat,
    SparkDataOpt,
    SparkMasterOpt,
    WarehouseOpt,
    _guard,
    choices,
    _progress_bar,
    app,
    note,
    open_warehouse,
    paper_style,
)
from .options import evaluation_options

FilesArg = Annotated[list[Path] | None, typer.Argument(
    help="QRELS RUN [RUN ...] to evaluate files directly (no warehouse); QRELS may be "
    "irds:DATASET_ID (an ir_datasets dataset's qrels).")]
MeasureOpt = Annotated[list[str] | None, typer.Option(
    "--measure", "-m", help="Measure (any tool's name: trec_eval, ir_measures, NTCIREVAL, "
    "ndeval, or a session, click or text measure of the campaign); repeatable. Default: "
    "trec_eval's official set; all_trec for everything.")]
QueryOpt = Annotated[bool, typer.Option("-q", help="Per-topic values too.")]
FormatOpt = Annotated[Format, typer.Option("--format", "-f", help="Output format.")]
QrelsFormatOpt = Annotated[QrelsFormat | None, typer.Option(
    help="Format of a QRELS file (default: read from its first lines; a 4-field file is "
    "diversity qrels when --format ndeval, --diversity or a diversity measure asks for "
    "diversity, trec_eval qrels otherwise).")]
KeepFirstOpt = Annotated[bool, typer.Option(help="Keep the first of duplicate documents.")]
CampaignOpt = Annotated[str | None, typer.Option("--campaign", "-C", help="Evaluate the stored "
                                                 "runs of this campaign.")]
RunOpt = Annotated[list[str] | None, typer.Option("--run", help="Only these stored runs.")]
StoreOpt = Annotated[bool, typer.Option(help="Materialise per-topic scores into the score "
                                        "table.")]
AlphaOpt = Annotated[float | None, typer.Option(help="Diversity: ndeval's alpha (novelty "
                                                "discount; default 0.5).")]
BetaOpt = Annotated[float | None, typer.Option(help="Diversity: ndeval's beta (NRBP "
                                               "persistence; default 0.5).")]
GammaOpt = Annotated[float | None, typer.Option(help="Diversity: weight of I-rec in the # "
                                                "measures (default 0.5).")]
DiversityOpt = Annotated[DiversityKind | None, typer.Option(
    help="NTCIREVAL diversity measures (default set when no -m): D (.Dnev), DIN (.DINnev) or "
    "IA (.nevIA).")]
IntentsOpt = Annotated[Path | None, typer.Option(help="Intent probabilities/types (NTCIREVAL "
                                                 "Iprob or DINprob) for QRELS RUN files.")]
LengthsOpt = Annotated[Path | None, typer.Option(
    help="Document lengths in words (docno<TAB>words, or docno<TAB>words<TAB>chars) for TBG "
    "and U with QRELS RUN files.")]
CharsOpt = Annotated[Path | None, typer.Option(help="Document lengths in characters "
                                               "(docno<TAB>chars) for the U-measure with QRELS "
                                               "RUN files.")]
CiMethod = choices("CiMethod", "t", "bootstrap")
CiOpt = Annotated[CiMethod | None, typer.Option(
    "--ci", help="A 95% confidence interval beside each run's mean (columns ci_low, ci_high "
    "of -f tsv, csv, json): --ci alone t-based, --ci bootstrap the percentile bootstrap "
    "(B = 10000, seed 1). The byte-exact layouts (trec_eval, ndeval, ntcireval) print none.",
    show_default=False)]


class _OptionalValueCommand(TyperCommand):
    """`--ci` alone or `--ci METHOD`: the word after a bare --ci is its value only when it is
    one of the methods (so `irw eval --ci QRELS RUN` keeps QRELS a file); a bare --ci is
    --ci=t. click's own optional-value options would take any next word as the value."""

    optional = {"--ci": ("t", ("t", "bootstrap"))}

    def parse_args(self, ctx, args):
        out, i = [], 0
        while i < len(args):
            word = args[i]
            i += 1
            if word == "--":
                out += args[i - 1:]
                break
            if word in self.optional:
                default, values = self.optional[word]
                if i < len(args) and args[i] in values:
                    word, i = f"{word}={args[i]}", i + 1
                else:
                    word = f"{word}={default}"
            out.append(word)
        return super().parse_args(ctx, out)


@app.command("eval", cls=_OptionalValueCommand)
@evaluation_options()
def eval_cmd(files: FilesArg = None, measure: MeasureOpt = None, query: QueryOpt = False,
             fmt: FormatOpt = Format.trec_eval, qrels_format: QrelsFormatOpt = None,
             keep_first: KeepFirstOpt = False, campaign: CampaignOpt = None,
             run: RunOpt = None, store: StoreOpt = False, warehouse: WarehouseOpt = None,
             alpha: AlphaOpt = None, beta: BetaOpt = None, diversity: DiversityOpt = None,
             intents: IntentsOpt = None, gamma: GammaOpt = None, doclengths: LengthsOpt = None,
             doclengths_chars: CharsOpt = None, engine: EngineOpt = Engine.duckdb,
             spark_master: SparkMasterOpt = None, data: SparkDataOpt = None,
             digits: DigitsOpt = None, percent: PercentOpt = False, ci: CiOpt = None, *,
             settings):
    """Evaluate runs, like trec_eval: `irw eval QRELS RUN -m map -m P.10` or `--campaign C`.

    `--format ntcireval` prints ntcir_eval's .nev (its full set when no -m is given), over the
    first 1000 documents (-M 1000) of every judged topic (-c), as NTCIREVAL. `--format latex`
    or `markdown`: a paper's runs x measures table, the best value in bold
    (docs/paper_tables.md)."""
    def body():
        from ..errors import IrwError
        from ..request.layouts import layout_for, measure_names
        style = paper_style(fmt.value, digits, percent)
        if query and fmt.value in ("latex", "markdown"):
            raise IrwError(f"--format {fmt.value} prints a paper's runs x measures table; -q "
                           "(per-topic values) has no place in it")
        kind = diversity.value if diversity else None
        layout = layout_for(fmt.value, kind)
        names = measure_names(layout, measure or [], kind=kind, cutoffs=settings.cutoffs,
                              alpha=alpha, beta=beta, gamma=gamma)
        request = {"layout": layout, "names": names, "settings": settings, "kind": kind}
        if engine == Engine.spark:
            result = _eval_spark(files, campaign, run, store, warehouse, data, spark_master,
                                 **request)
        elif spark_master or data:
            raise IrwError("--spark-master and --data are for --engine spark")
        elif campaign:
            if files or intents is not None or doclengths or doclengths_chars:
                raise IrwError(_FILES_ONLY)
            result = _eval_campaign(campaign, run, store, warehouse, **request)
        else:
            result = _eval_files(files, store, qrels_format, keep_first, intents, doclengths,
                                 doclengths_chars, **request)
        method = ci.value if ci else None
        if method:
            note(layout.ci_note(method))
        sys.stdout.write(layout.render(result, per_topic=query, style=style, ci=method))
    _guard(body)


_FILES_ONLY = ("give either QRELS RUN files or --campaign, not both (--intents and "
               "--doclengths are for files; store a campaign's with `irw ingest intents` and "
               "`irw ingest doclengths`)")


def _eval_campaign(campaign, runs, store, warehouse, *, layout, names, settings, kind):
    """A stored campaign, under the request's settings over its profile."""
    from ..engine.checks import check_evaluation
    from ..request.evaluation import evaluate, scope
    with open_warehouse(warehouse, create=False, macros=False) as wh:
        where = scope(wh.con, campaign, settings, presets=layout.presets, measures=names)
        if where.worth_naming and where.qrels is not None:
            note(f"evaluated with {where.describe()}"
                 + (f"; see `irw campaign show {campaign}`" if where.from_profile else ""))
        result = evaluate(wh.con, where, names, runs=runs, store=store,
                          progress=_progress_bar("evaluating"), gcompute=layout.gcompute,
                          prefer=layout.ntcir_names, diversity=kind is not None)
        check_evaluation(result, empty_is_error=not layout.rows_when_empty)
    return result


def _eval_files(files, store, qrels_format, keep_first, intents, doclengths, doclengths_chars,
                *, layout, names, settings, kind):
    """QRELS RUN [RUN ...] files, in a private in-memory warehouse."""
    from contextlib import nullcontext

    from ..api import evaluate_files
    from ..engine.checks import check_evaluation
    from ..errors import IrwError
    from ..formats.sniff import format_named, sniff_qrels_format
    from ..request.layouts import wants_diversity
    if not files or len(files) < 2:
        raise IrwError("usage: irw eval QRELS RUN [RUN ...] (or --campaign NAME)")
    if store:
        raise IrwError("--store needs --campaign (files are evaluated without a warehouse)")
    if settings.qrels is not None:
        raise IrwError("--qrels names a stored qrels of --campaign; with files, the first "
                       "file is the qrels")
    from ..formats.irds import dataset_id
    irds = dataset_id(files[0]) is not None       # irds:ID, an ir_datasets dataset's qrels
    if irds and qrels_format:
        raise IrwError("--qrels-format does not apply to irds: qrels (the dataset's qrels "
                       "type, ad hoc or diversity, decides)")
    qformat = qrels_format.value if qrels_format else "qrels" if irds else sniff_qrels_format(
        files[0], diversity=wants_diversity(layout, names, kind))
    with nullcontext() if qrels_format or irds else format_named(files[0], qformat):
        result = evaluate_files(
            files[0], files[1:], names, options=settings.eval_options(**layout.presets),
            qrels_format=qformat, keep_first=keep_first, intents=intents,
            ntcir=settings.ntcir(prefer=layout.ntcir_names, diversity=kind is not None),
            doclengths=doclengths, doclengths_chars=doclengths_chars,
            progress=_progress_bar("evaluating"), gcompute=layout.gcompute, arrow=False)
    check_evaluation(result, empty_is_error=not layout.rows_when_empty)
    return result


def _eval_spark(files, campaign, runs, store, warehouse, data, master, *, layout, names,
                settings, kind):
    """`irw eval --engine spark`: a stored campaign (or an export of one, with the profile it
    carries) evaluated on Spark."""
    from ..errors import IrwError
    from ..spark.commands import eval_spark
    from .common import _warehouse_path
    if files or layout.gcompute:
        raise IrwError("--engine spark evaluates a stored campaign (--campaign C, --data DIR), "
                       "in any layout but --format ntcireval")
    if campaign and data is None:
        from ..request.evaluation import scope
        with open_warehouse(warehouse, create=False, macros=False) as wh:
            where = scope(wh.con, campaign, settings, presets=layout.presets)
        if where.from_profile:
            note(f"evaluated with {where.describe()}; see `irw campaign show {campaign}`")
        settings = where.settings
    elif data is not None:              # the profile the export carries
        from ..spark.export import exported_profile
        profile = exported_profile(data, campaign)
        if not profile.empty:
            note(f"evaluated with the exported campaign's profile: {profile.flags()}")
        settings = settings.over(profile)
    return eval_spark(campaign=campaign, measure_names=names,
                      opts=settings.eval_options(**layout.presets), runs=runs,
                      qrels=settings.qrels, store=store, warehouse=_warehouse_path(warehouse),
                      data=data, master=master, ntcir=settings.ntcir(diversity=kind is not None),
                      progress=_progress_bar("evaluating on Spark"))


@app.command()
def measures(
    name: Annotated[list[str] | None, typer.Argument(
        help="Measure names to explain (any tool's spelling); none: list every measure.")]
    = None,
):
    """List the measures of the catalog, or say what a name means.

    `irw measures ERR@20` prints the measure the name resolves to (canonical name, the tool
    whose name it is, its parameters as bound), its definition and its source."""
    def body():
        from ..request.explain import explain, listing
        if not name:
            typer.echo(listing())
            return
        for text in name:
            typer.echo(explain(text))
    _guard(body)
