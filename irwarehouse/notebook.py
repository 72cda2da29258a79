"""HTML tables for Jupyter: the `_repr_html_` of the objects irw returns (an evaluation, a score
matrix, a comparison, a metric set, a statistical test's result ...), so that a notebook shows
them as tables, as it shows a DataFrame.

Every cell is escaped (a run named `<script>` is shown, not run) and formatted as the CLI's text
tables format it (`cell`, which meta.render reads too: 4 decimals, '-' for none); long tables
show their first and last rows, as pandas does. A leaf module (errors and failures only), so
that every layer, the statistics included, can show its results."""

from __future__ import annotations

import html
import math
from dataclasses import fields, is_dataclass

from .failures import clean

MAX_ROWS = 40               # rows shown before a table is cut in the middle

_STYLE = "border-collapse:collapse"
_CELL = "padding:2px 8px;text-align:{align}"


def table(records: list[dict], columns: list[str] | None = None, *, caption: str | None = None,
          max_rows: int = MAX_ROWS) -> str:
    """`records` (dicts, one per row) as an HTML table of `columns` (default: the first
    record's keys); text left, numbers right."""
    columns = columns or (list(records[0]) if records else [])
    numeric = {c: all(is_number(r.get(c)) for r in records) for c in columns}
    shown = records
    cut = len(records) > max_rows
    if cut:
        half = max_rows // 2
        shown = records[:half] + [None] + records[-half:]
    head = "".join(_th(c, numeric[c]) for c in columns)
    body = []
    for record in shown:
        if record is None:
            body.append("<tr>" + "".join(_td("…", numeric[c]) for c in columns) + "</tr>")
            continue
        body.append("<tr>" + "".join(_td(cell(record.get(c)), numeric[c]) for c in columns)
                    + "</tr>")
    title = f"<caption style='text-align:left'>{html.escape(caption)}</caption>" \
        if caption else ""
    size = f"<p><small>{len(records)} rows</small></p>" if cut else ""
    return (f"<table style='{_STYLE}'>{title}<thead><tr>{head}</tr></thead>"
            f"<tbody>{''.join(body)}</tbody></table>{size}")


def cell(value) -> str:
    """A value as a table cell shows it, in HTML and in the CLI's text tables (meta.render):
    '-' for none, yes/no, 4 decimals, names as one printable line."""
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        if math.isnan(value):
            return "-"
        return f"{value:.4f}"
    return clean(str(value), 10**6)     # names as stored: nothing that moves the terminal


def is_number(value) -> bool:
    """Whether a cell's value is a number (right-aligned), none counting as one."""
    return value is None or (isinstance(value, (int, float)) and not isinstance(value, bool))


def _th(text: str, right: bool) -> str:
    return f"<th style='{_CELL.format(align='right' if right else 'left')}'>" \
           f"{html.escape(str(text))}</th>"


def _td(text: str, right: bool) -> str:
    return f"<td style='{_CELL.format(align='right' if right else 'left')}'>" \
           f"{html.escape(text)}</td>"


def fields_table(obj, *, caption: str | None = None, skip: tuple[str, ...] = ()) -> str:
    """A dataclass (a test's result) as a two-column table of its fields; arrays by shape."""
    rows = []
    for f in fields(obj) if is_dataclass(obj) else ():
        if f.name in skip:
            continue
        value = getattr(obj, f.name)
        if hasattr(value, "shape") and getattr(value, "ndim", 0) > 0:
            value = f"array of shape {tuple(value.shape)}"
        elif is_dataclass(value):
            value = ", ".join(f"{g.name}={getattr(value, g.name)!r}" for g in fields(value))
        elif value is not None and not isinstance(value, (int, float, str, bool)):
            value = str(value)
        rows.append({"field": f.name, "value": value})
    return table(rows, ["field", "value"], caption=caption or type(obj).__name__)


def pivot(rows, row_key: str, column_key: str, value_key: str) -> list[dict]:
    """Long rows (dicts) as one record per `row_key` with a column per `column_key`, in the
    order first seen."""
    out: dict = {}
    for r in rows:
        out.setdefault(r[row_key], {row_key: r[row_key]})[r[column_key]] = r[value_key]
    return list(out.values())
