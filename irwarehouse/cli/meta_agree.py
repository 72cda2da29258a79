"""`irw meta qrels-agreement` (two qrels of one campaign: judge agreement and the agreement of
the system rankings) and `irw meta repro` (the reproducibility measures of Breuer et al., SIGIR
2020) (issue 34). Their engines: irwarehouse/meta/agreement.py and irwarehouse/meta/repro.py."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from .common import TableFormat, TableFormatOpt, WarehouseOpt, _guard, meta_app, note, warn
from .meta import Campaign, Missing, MissingOpt, Runs, _open
from .options import evaluation_options

# every evaluation option but --qrels, which qrels-agreement takes twice
_NOT_QRELS = ("gains", "order", "complete", "depth", "judged_only", "threshold", "version",
              "cutoffs")


@meta_app.command("qrels-agreement")
@evaluation_options(*_NOT_QRELS)
def qrels_agreement(
        campaign: Campaign,
        qrels: Annotated[list[str], typer.Option(
            "--qrels", help="A stored qrels of the campaign; give exactly two (the first is "
            "the reference of tau_ap and the rows of the confusion matrix).")],
        measure: Annotated[list[str] | None, typer.Option(
            "--measure", "-m", help="Rank the runs by this measure under each qrels "
            "(repeatable; default map).")] = None,
        run: Runs = None,
        top: Annotated[int, typer.Option("--top", help="Rank swaps listed per measure.")] = 5,
        fmt: TableFormatOpt = TableFormat.table, missing: MissingOpt = Missing.error,
        warehouse: WarehouseOpt = None, *, settings):
    """Agreement of two qrels: Cohen's kappa at -l, weighted kappa (linear, quadratic),
    Krippendorff's alpha (ordinal, interval), the confusion matrix of levels, and the
    correlation of the run rankings (Kendall's tau, tau_ap) with the largest rank swaps."""
    def body():
        from ..errors import IrwError
        from ..meta.agreement import qrels_agreement as agree
        if len(qrels) != 2:
            raise IrwError(f"give --qrels exactly twice (got {len(qrels)})")
        if top < 0:
            raise IrwError("--top must be 0 or more")
        with _open(warehouse) as wh:
            result = agree(wh, campaign, qrels[0], qrels[1], measures=measure or None,
                           runs=run, given=settings, missing=missing.value, report=note,
                           warn=warn)
        sys.stdout.write(_agreement_text(result, fmt.value, top))
    _guard(body)


def _agreement_text(result, fmt: str, top: int) -> str:
    from ..meta.render import render
    if fmt == "json":
        return json.dumps(result.as_dict(), indent=2) + "\n"
    j = result.judged
    sections = [
        ((f"qrels {result.qrels_a!r} vs {result.qrels_b!r} of {result.campaign}: "
          f"{len(j.topics)} topics, {j.levels_a.size} documents judged by both "
          f"({j.only_a} by {result.qrels_a} only, {j.only_b} by {result.qrels_b} only)"),
         result.summary_records(), None),
        (f"levels: rows {result.qrels_a}, columns {result.qrels_b}",
         result.confusion_records(), None),
        ("run rankings under each qrels (tau_ap: the second's ranking against the first's)",
         [r.record() for r in result.rankings], None),
        ("largest rank swaps (rank 1 = best; change = rank under the second minus the first)",
         [s for r in result.rankings for s in r.swaps(top)], None),
    ]
    out = []
    for title, records, columns in sections:
        if fmt == "table":
            out.append(title + "\n" + render(records, fmt, columns=columns))
        elif records:
            out.append(render(records, fmt, columns=columns))
    return "\n".join(out)



@meta_app.command()
@evaluation_options()
def repro(
        original: Annotated[str, typer.Option(
            "--original", help="The original run: a file, or with -C a stored run (the "
            "advanced run when baselines are given).")],
        reproduced: Annotated[str, typer.Option(
            "--reproduced", help="The reproduced run (a file, or a stored run with -C).")],
        original_baseline: Annotated[str | None, typer.Option(
            "--original-baseline", help="The original experiment's baseline: adds the "
            "effect ratio and DeltaRI.")] = None,
        reproduced_baseline: Annotated[str | None, typer.Option(
            "--reproduced-baseline", help="The reproduced baseline.")] = None,
        campaign: Annotated[str | None, typer.Option(
            "--campaign", "-C", help="Runs are stored runs of this campaign (qrels: its "
            "profile's or --qrels NAME); without -C they are files and --qrels is a "
            "qrels file.")] = None,
        measure: Annotated[list[str] | None, typer.Option(
            "--measure", "-m", help="Measures of RMSE, ER and DeltaRI (repeatable; default "
            "AP, nDCG, P@10, the measures of repro_eval's tests).")] = None,
        rbo_p: Annotated[float, typer.Option(
            "--rbo-p", help="RBO's persistence p (repro_eval's 0.95).")] = 0.95,
        per_topic: Annotated[bool, typer.Option(
            "--per-topic", help="Also KTU and RBO per topic.")] = False,
        fmt: TableFormatOpt = TableFormat.table, warehouse: WarehouseOpt = None,
        *, settings):
    """Reproducibility of a run (Breuer et al., SIGIR 2020; repro_eval's values): Kendall's tau
    Union and RBO between the rankings per topic, RMSE between the per-topic scores, and with
    baselines the effect ratio (ER) and delta relative improvement (DeltaRI)."""
    def body():
        from dataclasses import replace

        from ..errors import IrwError
        from ..meta import repro as rp
        if not 0 < rbo_p < 1:
            raise IrwError("--rbo-p must be strictly between 0 and 1")
        measures = list(dict.fromkeys(measure or ["AP", "nDCG", "P@10"]))
        pairs = {"original_baseline": original_baseline,
                 "reproduced_baseline": reproduced_baseline}
        if campaign is not None:
            with _open(warehouse) as wh:
                result = rp.reproduce(wh.con, campaign, original, reproduced, **pairs,
                                      measures=measures, given=settings, p=rbo_p, warn=warn,
                                      report=note)
        else:
            files = [original, reproduced, original_baseline, reproduced_baseline]
            for f in [settings.qrels, *files]:
                if f is not None and not Path(f).is_file():
                    raise IrwError(f"no file {f!r} (to name stored runs, give -C CAMPAIGN)")
            if (original_baseline is None) != (reproduced_baseline is None):
                raise IrwError("give both --original-baseline and --reproduced-baseline, "
                               "or neither")
            result = rp.reproduce_files(settings.qrels, original, reproduced, **pairs,
                                        measures=measures, given=replace(settings, qrels=None),
                                        p=rbo_p, warn=warn)
            if settings.qrels is None:
                note("no --qrels: the document order only (KTU, RBO); give --qrels FILE for "
                     "RMSE, ER and DeltaRI")
        sys.stdout.write(_repro_text(result, fmt.value, per_topic))
    _guard(body)


def _repro_text(result, fmt: str, per_topic: bool) -> str:
    from ..meta.render import render
    if fmt == "json":
        payload = result.as_dict()
        if per_topic:
            payload["per_topic"] = [r for o in result.order for r in o.topic_records()]
        return json.dumps(payload, indent=2) + "\n"
    sections = [((f"document order (top {result.depth}; RBO p = {result.p:g}, repro_eval's "
                  "normalised form to depth 1000; RBO_ext: Webber et al.'s extrapolation)"),
                 [o.record() for o in result.order])]
    if per_topic:
        sections.append(("per topic", [r for o in result.order for r in o.topic_records()]))
    if result.scores:
        sections.append(("per-topic scores (means; RMSE, nRMSE; p of the paired t-test)",
                         [s.record() for s in result.scores]))
    if result.effects:
        sections.append((("effects (ER: reproduced / original mean improvement; DeltaRI: "
                          "original minus reproduced relative improvement)"),
                         [e.record() for e in result.effects]))
    out = []
    for title, records in sections:
        out.append((title + "\n" if fmt == "table" else "") + render(records, fmt))
    return "\n".join(out)
