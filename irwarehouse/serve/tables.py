"""A table of the workspace: what a page shows, what its download writes (meta/render's
layouts: CSV, Markdown, LaTeX) and the SQL that reproduces it (report.query.Query, as the
static report shows it)."""

from __future__ import annotations

import contextvars
import math
from dataclasses import dataclass, field
from urllib.parse import urlencode

DOWNLOADS = ("csv", "markdown", "latex")
MEDIA = {"csv": ("text/csv", "csv"), "markdown": ("text/markdown", "md"),
         "latex": ("application/x-latex", "tex")}


@dataclass
class Table:
    name: str                                   # its key in the page (?table=NAME&download=)
    columns: list[str]
    rows: list[dict]
    links: dict = field(default_factory=dict)   # column -> row -> URL
    heads: dict = field(default_factory=dict)   # column -> hover text (a measure's doc)
    best: set = field(default_factory=set)      # (row index, column) marked best
    marks: dict = field(default_factory=dict)   # (row index, column) -> note shown after the value
    sql: str | None = None                      # the query that reproduces it
    row_class: dict = field(default_factory=dict)  # row index -> CSS class

    def cell(self, i: int, column: str) -> dict:
        """What the template shows: text (4 decimals, as trec_eval prints), the full value on
        hover, a link, a mark."""
        value = self.rows[i].get(column)
        link = self.links.get(column)
        return {"text": shown(value), "full": full(value), "numeric": is_number(value),
                "href": link(self.rows[i]) if link and value is not None else None,
                "best": (i, column) in self.best, "mark": self.marks.get((i, column))}


def is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def shown(value) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.4f}"
    return str(value)


def full(value) -> str | None:
    """The value in full (the hover of a number shown to 4 decimals)."""
    return repr(value) if isinstance(value, float) and not math.isnan(value) else None


# Set while the pages are written to files (serve.snapshot): it maps an address to the file
# that holds that page, or None when that page is not written (the link is then plain text).
STATIC = contextvars.ContextVar("irw_serve_static", default=None)


def url(path: str, **params) -> str | None:
    """`path?params` (lists repeated, None left out): every page's address is bookmarkable.
    Written to files (STATIC set): the page's file name, or None."""
    site = STATIC.get()
    if site is not None:
        return site.link(path, params)
    pairs = []
    for key, value in params.items():
        for v in value if isinstance(value, (list, tuple)) else [value]:
            if v is not None and v != "":
                pairs.append((key, str(v)))
    return path + ("?" + urlencode(pairs) if pairs else "")


def download(table: Table, fmt: str) -> tuple[str, str, str]:
    """(text, media type, file suffix) of a table in one of DOWNLOADS."""
    from ..meta.render import FORMATS, render
    if fmt not in DOWNLOADS or fmt not in FORMATS:
        raise ValueError(fmt)
    return render(table.rows, fmt, columns=table.columns), *MEDIA[fmt]
