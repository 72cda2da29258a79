"""Records (lists of dicts) as an aligned text table, JSON, CSV or TSV: the tables every command
that prints records shares."""

from __future__ import annotations

import csv
import io
import json
import math

from ..failures import clean

FORMATS = ("table", "tsv", "csv", "json", "markdown", "latex")


def _cell(value) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        if math.isnan(value):
            return "-"
        return f"{value:.4f}"
    return clean(str(value), 10**6)     # names as stored: nothing that moves the terminal


def table_text(records: list[dict], columns: list[str] | None = None) -> str:
    if not records:
        return "(nothing)\n"
    columns = columns or list(records[0])
    cells = [[_cell(r.get(c)) for c in columns] for r in records]
    widths = [max(len(c), *(len(row[i]) for row in cells)) for i, c in enumerate(columns)]
    numeric = [all(_is_number(r.get(c)) for r in records) for c in columns]

    def line(values):
        return "  ".join(v.rjust(w) if num else v.ljust(w)
                         for v, w, num in zip(values, widths, numeric)).rstrip()
    out = [line(columns), line(["-" * w for w in widths])]
    out.extend(line(row) for row in cells)
    return "\n".join(out) + "\n"


def _is_number(value) -> bool:
    return value is None or (isinstance(value, (int, float)) and not isinstance(value, bool))


def _jsonable(value):
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def render(records: list[dict], fmt: str, *, columns: list[str] | None = None,
           meta: dict | None = None) -> str:
    if fmt == "table":
        return table_text(records, columns)
    if fmt == "json":
        rows = [{k: _jsonable(v) for k, v in r.items()} for r in records]
        payload = {**meta, "rows": rows} if meta else rows
        return json.dumps(payload, indent=2) + "\n"
    if fmt in ("csv", "tsv"):
        buffer = io.StringIO()
        columns = columns or (list(records[0]) if records else [])
        writer = csv.DictWriter(buffer, fieldnames=columns, extrasaction="ignore",
                                lineterminator="\n", delimiter="\t" if fmt == "tsv" else ",")
        writer.writeheader()
        for r in records:
            writer.writerow({k: ("" if v is None else v) for k, v in r.items()})
        return buffer.getvalue()
    if fmt == "markdown":
        return _markdown(records, columns or (list(records[0]) if records else []))
    if fmt == "latex":
        return _latex(records, columns or (list(records[0]) if records else []))
    raise ValueError(f"format must be one of {', '.join(FORMATS)}")


def _markdown(records: list[dict], columns: list[str]) -> str:
    """A GitHub-flavoured Markdown table (numbers right-aligned; `|` in a value escaped)."""
    def cell(value) -> str:
        return _cell(value).replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")
    numeric = [all(_is_number(r.get(c)) for r in records) for c in columns]
    out = ["| " + " | ".join(cell(c) for c in columns) + " |",
           "|" + "|".join("---:" if n else ":---" for n in numeric) + "|"]
    out += ["| " + " | ".join(cell(r.get(c)) for c in columns) + " |" for r in records]
    return "\n".join(out) + "\n"


_LATEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
                  "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}",
                  "^": r"\textasciicircum{}"}


def _latex(records: list[dict], columns: list[str]) -> str:
    """A LaTeX tabular (booktabs rules), every special character of a value escaped."""
    def cell(value) -> str:
        return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in _cell(value).replace("\n", " "))
    numeric = [all(_is_number(r.get(c)) for r in records) for c in columns]
    out = [r"\begin{tabular}{" + "".join("r" if n else "l" for n in numeric) + "}",
           r"\toprule", " & ".join(cell(c) for c in columns) + r" \\", r"\midrule"]
    out += [" & ".join(cell(r.get(c)) for c in columns) + r" \\" for r in records]
    out += [r"\bottomrule", r"\end{tabular}"]
    return "\n".join(out) + "\n"
