"""Text outputs (irwarehouse.texts): `irw rouge`, `irw ingest texts`, `irw ingest nuggets`,
`irw ingest pyramid`, `irw nuggets`. Only typer is imported here (the work is imported inside
the commands, so `irw --help` stays fast)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from .common import (
    Campaign,
    TableFormat,
    TableFormatOpt,
    WarehouseOpt,
    _guard,
    _warehouse_path,
    app,
    choices,
    ingest_app,
)

TextKind = choices("TextKind", "outputs", "references", "rouge-config")



def _connection(warehouse, *, create: bool = True):
    """The warehouse connection of a text command (its own macros: irwarehouse.texts.store),
    closed (and checkpointed) when the block ends."""
    from ..store.connection import opened
    return opened(_warehouse_path(warehouse), create=create, macros=False)


@app.command("rouge", add_help_option=False, context_settings={
    "ignore_unknown_options": True, "allow_extra_args": True})
def rouge_cmd(ctx: typer.Context):
    """A drop-in for ROUGE-1.5.5.pl: irw rouge [ROUGE options] CONFIG.xml (-h: options)."""
    def body():
        from .rouge import run
        code = run(list(ctx.args))
        if code:
            raise typer.Exit(code)
    _guard(body)

@ingest_app.command("texts")
def ingest_texts(
    file: Annotated[Path, typer.Argument(help="TSV of outputs (topic run text) or "
                                         "references (topic ref_id text), one sentence "
                                         "per line; or a ROUGE configuration (.xml).")],
    campaign: Campaign,
    kind: Annotated[TextKind, typer.Option(help="What the file holds (an .xml file is "
                                           "always a ROUGE configuration).")]
    = TextKind.outputs,
    name: Annotated[str | None, typer.Option(help="Name of the reference set "
                                                "(default: the file name).")] = None,
    byte_limit: Annotated[int, typer.Option(help="ROUGE's -b: keep only the first N "
                                            "bytes of each text.")] = 0,
    replace: Annotated[bool, typer.Option(help="Replace texts stored before.")] = False,
    warehouse: WarehouseOpt = None,
):
    """Ingest system outputs or reference texts, tokenised as ROUGE-1.5.5 does."""
    def body():
        from ..texts.store import ingest_text_file
        with _connection(warehouse) as con:
            typer.echo(ingest_text_file(con, file, campaign, kind.value, name=name,
                                        replace=replace, byte_limit=byte_limit))
    _guard(body)


@ingest_app.command("nuggets")
def ingest_nuggets(
    campaign: Campaign,
    name: Annotated[str, typer.Option(help="Name of the nugget / iUnit set.")],
    gold: Annotated[Path | None, typer.Option(help="topic unit weight text "
                                                 "(weight: number, vital or okay).")] = None,
    matches: Annotated[Path | None, typer.Option(
        help="topic run unit [end_offset|- [support|partial_support]].")] = None,
    lengths: Annotated[Path | None, typer.Option(
        help="topic run length (characters without whitespace).")] = None,
    intents: Annotated[Path | None, typer.Option(
        help="topic intent probability / topic intent unit importance (M).")] = None,
    mobileclick: Annotated[Path | None, typer.Option(
        help="topic run layer seq kind unit length (M; layer - = first).")] = None,
    replace: Annotated[bool, typer.Option(help="Replace a gold set of this name.")] = False,
    warehouse: WarehouseOpt = None,
):
    """Ingest gold nuggets / iUnits and runs' matches against them (one transaction)."""
    def body():
        from ..texts.nuggets import NuggetFiles
        from ..texts.nuggets import ingest_nuggets as ingest
        with _connection(warehouse) as con:
            files = NuggetFiles(gold, matches, lengths, intents, mobileclick)
            typer.echo(ingest(con, campaign, name, files, replace=replace))
    _guard(body)


@ingest_app.command("pyramid")
def ingest_pyramid(
    campaign: Campaign,
    name: Annotated[str, typer.Option(help="Name of the pyramid.")],
    scus: Annotated[Path | None, typer.Option(
        help="topic scu model [label]: model summary `model` expresses SCU `scu`.")] = None,
    peers: Annotated[Path | None, typer.Option(
        help="topic run scu: a content unit of the run's summary expresses SCU `scu` "
        "(- = matches no SCU).")] = None,
    replace: Annotated[bool, typer.Option(help="Replace a pyramid of this name.")] = False,
    warehouse: WarehouseOpt = None,
):
    """Ingest a pyramid of summary content units (Nenkova & Passonneau, NAACL 2004) and peer
    annotations against it (one transaction); evaluate with irw nuggets -m pyramid."""
    def body():
        from ..texts.pyramid import ingest_pyramid as ingest
        with _connection(warehouse) as con:
            typer.echo(ingest(con, campaign, name, scus, peers, replace=replace))
    _guard(body)


@app.command("nuggets")
def nuggets_cmd(
    campaign: Campaign,
    nuggets: Annotated[str, typer.Option(help="The nugget / iUnit set; for BLEU the "
                                         "reference texts, for pyramid the pyramid.")],
    measure: Annotated[list[str], typer.Option(
        "--measure", "-m", help="nuggetF, nuggetF_trec2003, nuggetF_trec2004, POURPRE, S, "
        "T, S#, U-iUnit, M, strict_vital, strict_all, vital, all, BLEU, BLEU_corpus, "
        "pyramid, pyramid_modified.")],
    param: Annotated[list[str] | None, typer.Option(
        "--param", "-p", help="name=value: beta, allowance, patience, partial, "
        "stem_tokens; BLEU: lowercase, max_order, smooth_method, smooth_value, "
        "effective_order, tokenize; pyramid: variant.")] = None,
    store: Annotated[bool, typer.Option(help="Store the scores in `score`.")] = False,
    per_topic: Annotated[bool, typer.Option("-q", help="Per-topic values too.")] = False,
    fmt: TableFormatOpt = TableFormat.table,
    warehouse: WarehouseOpt = None,
):
    """Nugget and iUnit measures of every run (measure, run, topic|all, value); also
    `irw eval -C C -m nuggetF` with the campaign's only nugget set."""
    def body():
        from ..texts.nuggets import evaluate_nuggets, parse_params, store_nugget_scores
        with _connection(warehouse, create=False) as con:
            rows = evaluate_nuggets(con, campaign, nuggets, measure, parse_params(param or []))
            if store:
                store_nugget_scores(con, campaign, nuggets, rows)
        if not rows:
            typer.echo("irw: warning: no run has an output for a topic of the set", err=True)
        records, means = [], {}
        for name, run, topic, value, _ in rows:
            if per_topic and topic != "all":       # BLEU_corpus: one row per run, 'all'
                records.append({"measure": name, "run": run, "topic": topic, "value": value})
            means.setdefault((name, run), []).append(value)
        records += [{"measure": name, "run": run, "topic": "all",
                     "value": sum(values) / len(values)} for (name, run), values in means.items()]
        if fmt == TableFormat.table:            # the tab-separated lines of earlier releases
            for r in records:
                typer.echo(f"{r['measure']}\t{r['run']}\t{r['topic']}\t{r['value']:.4f}")
        else:
            from ..meta.render import render
            typer.echo(render(records, fmt.value), nl=False)
    _guard(body)
