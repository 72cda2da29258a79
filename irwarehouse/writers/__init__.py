"""Writers: an evaluation result in the layout asked for (trec_eval, tsv, csv, json, ndeval,
NTCIREVAL's .nev and diversity files, and a paper's LaTeX or Markdown table)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import trec_eval

if TYPE_CHECKING:
    from ..engine.evaluate import EvalResult


def render(result: EvalResult, fmt: str, *, per_topic: bool, style=None,
           ci: str | None = None) -> str:
    """`ci` (t or bootstrap): confidence intervals beside the run means of the tsv, csv, json,
    LaTeX and Markdown layouts; the byte-exact layouts of the reference tools have none.
    `style` (writers.paper.Style: --digits, --percent) is for the paper layouts."""
    if fmt in ("latex", "markdown"):
        from ..errors import IrwError
        from . import paper
        if per_topic:
            raise IrwError(f"--format {fmt} prints a paper's runs x measures table; -q "
                           "(per-topic values) has no place in it")
        style = style or paper.Style()
        return paper.render(paper.evaluation_table(result, style=style, ci=ci), fmt, style)
    if fmt == "trec_eval":
        return trec_eval.trec_eval_text(result, per_topic=per_topic)
    if fmt in ("tsv", "csv"):
        return trec_eval.delimited_text(result, per_topic=per_topic, ci=ci,
                                        delimiter="\t" if fmt == "tsv" else ",")
    if fmt == "json":
        return trec_eval.json_text(result, per_topic=per_topic, ci=ci)
    if fmt == "ntcireval" and any(r.mdef.family == "diversity_ntcir" for r in result.requests):
        from .ntcireval import ntcireval_text
        return ntcireval_text(result)
    if fmt == "ndeval":
        from .ndeval import ndeval_text
        return ndeval_text(result)
    if fmt == "ntcireval":                      # per-topic .nev blocks only, as ntcir_eval
        from .ntcireval import nev_text
        return nev_text(result)
    raise ValueError(f"unknown format {fmt!r}")
