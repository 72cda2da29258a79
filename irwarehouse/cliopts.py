"""Choices shared by the `irw` command groups (cli.py and meta/cli.py), so that each is
declared once and typer validates it on the parameter."""

from enum import Enum


class TableFormat(str, Enum):
    table = "table"
    json = "json"
    csv = "csv"


class Missing(str, Enum):
    """What to do with topics a run lacks in a score matrix (irwarehouse.matrix)."""
    error = "error"
    drop = "drop"
    zero = "zero"


class TieRule(str, Enum):
    """How randomised Tukey HSD counts a permuted range equal to a pair's difference
    (irwarehouse.stats.tukey_hsd): ge counts it, gt (the seed papers' '>') does not."""
    ge = "ge"
    gt = "gt"


TIE_RULE_HELP = ("Tukey HSD: count a permuted range equal to the pair's difference (ge, the "
                 "default) or not (gt, the '>' of Sakai's Fig 15 / Fig 4); matters on coarse "
                 "measures such as P@10 (docs/stats.md).")
