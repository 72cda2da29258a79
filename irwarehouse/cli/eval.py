"""`irw eval` (trec_eval, ndeval and NTCIREVAL on files or a stored campaign) and
`irw measures`: their typer declarations. The evaluation options come from their one
declaration (cli/options.py); irw eval's body, and its parameters' defaults, are
eval_body.py's (typer-free, so that cli/fast.py runs the everyday command without typer)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from typer.core import TyperCommand

from .common import (
    DigitsOpt,
    DiversityKind,
    EngineOpt,
    Format,
    PercentOpt,
    QrelsFormat,
    SparkDataOpt,
    SparkMasterOpt,
    WarehouseOpt,
    _guard,
    app,
    declared,
)
from .eval_body import CiMethod, eval_body
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
@declared(eval_body, files=FilesArg, measure=MeasureOpt, query=QueryOpt, fmt=FormatOpt,
          qrels_format=QrelsFormatOpt, keep_first=KeepFirstOpt, campaign=CampaignOpt,
          run=RunOpt, store=StoreOpt, warehouse=WarehouseOpt, alpha=AlphaOpt, beta=BetaOpt,
          diversity=DiversityOpt, intents=IntentsOpt, gamma=GammaOpt, doclengths=LengthsOpt,
          doclengths_chars=CharsOpt, engine=EngineOpt, spark_master=SparkMasterOpt,
          data=SparkDataOpt, digits=DigitsOpt, percent=PercentOpt, ci=CiOpt)
def eval_cmd(**kwargs):
    """Evaluate runs, like trec_eval: `irw eval QRELS RUN -m map -m P.10` or `--campaign C`.

    `--format ntcireval` prints ntcir_eval's .nev (its full set when no -m is given), over the
    first 1000 documents (-M 1000) of every judged topic (-c), as NTCIREVAL. `--format latex`
    or `markdown`: a paper's runs x measures table, the best value in bold
    (docs/paper_tables.md)."""
    eval_body(**kwargs)


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
