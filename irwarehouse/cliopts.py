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
