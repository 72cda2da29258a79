"""Records (lists of dicts) as an aligned text table, JSON, CSV, TSV, Markdown or LaTeX: the
tables every command that prints records shares."""

from __future__ import annotations

import csv
import io
import json
import math

from ..notebook import cell as _cell
from ..notebook import is_number as _is_number

# markdown, latex: a paper's table (writers.paper, the one writer of paper tables)
FORMATS = ("table", "tsv", "csv", "json", "markdown", "latex")


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


def _jsonable(value):
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def render(records: list[dict], fmt: str, *, columns: list[str] | None = None,
           meta: dict | None = None) -> str:
    if fmt == "table":
        return table_text(records, columns)
    if fmt in ("markdown", "latex"):
        if not records:
            return "(nothing)\n"
        from ..writers import paper
        return paper.render(paper.records_table(records, columns, meta), fmt, paper.Style())
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
    raise ValueError(f"format must be one of {', '.join(FORMATS)}")
