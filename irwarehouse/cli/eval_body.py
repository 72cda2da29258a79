"""The body of `irw eval` (trec_eval, ndeval and NTCIREVAL on files or a stored campaign),
without typer: eval.py declares its options for typer and calls `eval_body`, and cli/fast.py
calls it for the everyday command lines it parses itself (`irw eval -m map -m P.10 QRELS RUN`),
so that the run that researchers repeat most does not pay typer's start-up. The defaults here
are the command's (eval.py takes them from this signature). The evaluation options come as one
EvalSettings (cli/options.py, cli/optionspec.py); the layout from request/layouts.py; the
campaign's part of the request from request/evaluation.py."""

from __future__ import annotations

import sys
from pathlib import Path

from .plain import (
    DiversityKind,
    Engine,
    Format,
    QrelsFormat,
    _guard,
    _progress_bar,
    _warehouse_path,
    choices,
    note,
    open_warehouse,
    paper_style,
)

CiMethod = choices("CiMethod", "t", "bootstrap")


def eval_body(files: list[Path] | None = None, measure: list[str] | None = None,
              query: bool = False, fmt: Format = Format.trec_eval,
              qrels_format: QrelsFormat | None = None, keep_first: bool = False,
              campaign: str | None = None, run: list[str] | None = None, store: bool = False,
              warehouse: Path | None = None, alpha: float | None = None,
              beta: float | None = None, diversity: DiversityKind | None = None,
              intents: Path | None = None, gamma: float | None = None,
              doclengths: Path | None = None, doclengths_chars: Path | None = None,
              engine: Engine = Engine.duckdb, spark_master: str | None = None,
              data: Path | None = None, digits: int | None = None, percent: bool = False,
              ci: CiMethod | None = None, *, settings) -> None:
    """`irw eval`: what its --help says (eval.py), under _guard (one line and an exit code on
    any failure)."""
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
